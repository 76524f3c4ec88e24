"""Explore sections on the site: the controls of JupyterLab's Explore, frames the package drew.

The notebooks' Explore cells (tag ``explore``) store no output: their controls need a kernel. For
each such cell this extension gives the page, in the cell's place, the same controls as labelled
range inputs (arrow keys, Home/End), the figure of the starting state with its alt text and
caption (shown without JavaScript too), and the frames of every state of the section's site grid,
all read from ``docs/_data/explore/`` (written by ``scripts/explore_frames.py`` with the package,
at ``make figures`` time; the site build needs no torch). ``docs/_js/explore.js`` is inlined as
a classic script that swaps the frames and computes the closed-form numbers; the frames are
copied next to the pages (``_explore/``), so nothing is fetched from the network, and only the
starting frame loads with the page (the others when the section comes near the screen). Each
slider's ``aria-valuetext`` says what its value means (``Explore.says``); an "Actual size"
button shows the frame at its own pixels in a box that scrolls sideways under the sliders.
"""

from __future__ import annotations

import html
import json
import math
import shutil
import struct
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

DOCS = Path(__file__).resolve().parents[1]
DATA = DOCS / "_data" / "explore"
SCRIPT = DOCS / "_js" / "explore.js"
OUT_FOLDER = "_explore"
# Which closed forms explore.js shows for a section (its `describe` functions).
KINDS = {
    "01_patch_tokenization": "patch_size",
    "03_sinusoidal_pe_clocks": "clocks",
    "05_t2t_soft_split": "softsplit",
}


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) of a PNG, from its IHDR chunk."""
    header = path.read_bytes()[:24]
    if header[:8] != b"\x89PNG\r\n\x1a\n":
        raise ExtensionError(f"{path} is not a PNG")
    return struct.unpack(">II", header[16:24])


def lab_count(control: dict) -> int:
    """How many values JupyterLab's control offers."""
    lab = control["lab"]
    if "values" in lab:
        return len(lab["values"])
    return (lab["max"] - lab["min"]) // lab["step"] + 1


def slider_html(section: str, index: int, control: dict) -> str:
    """A labelled range input over the site's values of one control (positions 0 ... n - 1)."""
    ident = f"vx-{section}-{control['name']}"
    label = control["labels"][control["start"]]
    says = control["says"][control["start"]]  # what the value means, for a screen reader
    return (
        '<div class="vx-explore-control">'
        f'<label for="{ident}">{html.escape(control["label"])}</label>'
        f'<input type="range" class="vx-explore-slider" id="{ident}" min="0" '
        f'max="{len(control["values"]) - 1}" step="1" value="{control["start"]}" '
        f'aria-valuetext="{html.escape(says)}" data-control="{index}">'
        f'<output for="{ident}" aria-hidden="true">{html.escape(label)}</output></div>'
    )


def field_html(section: str, index: int, control: dict) -> str:
    """A calculator input over every value JupyterLab's control offers."""
    ident = f"vx-{section}-any-{control['name']}"
    lab = control["lab"]
    start = control["values"][control["start"]]
    common = f'id="{ident}" data-name="{control["name"]}" data-control="{index}"'
    if "values" in lab:  # a list: a range input over its positions, read out by its labels
        position = lab["values"].index(start)
        label = lab["labels"][position]
        span = f"{lab['labels'][0]} … {lab['labels'][-1]}"
        field = (
            f'<input type="range" {common} min="0" max="{len(lab["values"]) - 1}" step="1" '
            f'value="{position}" aria-valuetext="{html.escape(lab["says"][position])}">'
            f'<output for="{ident}" aria-hidden="true">{html.escape(label)}</output>'
        )
    else:
        span = f"{lab['min']} … {lab['max']}" + (f", step {lab['step']}" if lab["step"] > 1 else "")
        field = (  # no min/max: a value outside is refused in words, not clamped
            f'<input type="number" {common} step="{lab["step"]}" value="{start}" '
            f'aria-describedby="vx-{section}-numbers">'
        )
    return (
        '<div class="vx-explore-control">'
        f'<label for="{ident}">{html.escape(control["label"])} ({html.escape(span)})</label>'
        f"{field}</div>"
    )


def section_html(manifest: dict, depth: int, with_script: bool) -> str:
    """The HTML put in place of an Explore cell's output."""
    notebook = manifest["notebook"]
    section = notebook[:2]
    controls = manifest["controls"]
    base = "../" * depth + f"{OUT_FOLDER}/"
    states = [
        {"values": s["values"], "frame": s["frame"], "alt": s["alt"], "caption": s["caption"]}
        for s in manifest["states"]
    ]
    data = {
        "kind": KINDS[notebook],
        "picture": manifest["picture"],
        "base": base,
        "controls": controls,
        "states": states,
    }
    start = 0
    for control in controls:
        start = start * len(control["values"]) + control["start"]
    first = manifest["states"][start]
    width, height = png_size(DATA / first["frame"])
    drawn, offered = len(states), math.prod(lab_count(c) for c in controls)
    sliders = "".join(slider_html(section, i, c) for i, c in enumerate(controls))
    if drawn < offered:
        fields = "".join(field_html(section, i, c) for i, c in enumerate(controls))
        calculator = (
            '<fieldset class="vx-explore-calc vx-explore-live" hidden>'
            "<legend>Numbers for any setting JupyterLab allows (computed on this page)</legend>"
            f"{fields}</fieldset>"
        )
        scope = (
            f"This page has frames for {drawn:,} of the {offered:,} settings the notebook's "
            "controls offer (the sliders step through them); the numbers below are computed "
            "here for any setting, and the figure shows the drawn setting nearest to it."
        )
    else:
        calculator = ""
        scope = (
            f"This page has the frames of all {drawn} settings the notebook's control offers; "
            "the numbers are computed here."
        )
    data_json = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    script = f"<script>\n{SCRIPT.read_text(encoding='utf-8')}</script>" if with_script else ""
    zoom = (  # the figure at its own pixels, beside the sliders (explore.js)
        '<button type="button" class="vx-button vx-explore-zoom" aria-pressed="false">'
        "Actual size</button>"
    )
    return (
        f'<div class="vx-explore" id="vx-explore-{section}">'
        f'<div class="vx-explore-controls vx-explore-live" role="group" '
        f'aria-label="Explore controls" hidden>{sliders}{zoom}</div>'
        '<figure class="vx-figure vx-explore-figure"><div class="vx-explore-frame">'
        f'<img src="{base}{first["frame"]}" alt="{html.escape(first["alt"])}" '
        f'width="{width}" height="{height}"></div>'
        f'<figcaption aria-live="polite">{html.escape(first["caption"])}</figcaption></figure>'
        f"{calculator}"
        f'<p class="vx-explore-numbers vx-explore-live" id="vx-{section}-numbers" '
        'role="status" hidden></p>'
        f'<p class="vx-explore-scope">{html.escape(scope)} Without JavaScript, the figure of '
        "the starting setting stays.</p>"
        f'<script type="application/json" class="vx-explore-data">{data_json}</script>'
        f"{script}</div>"
    )


def add_explore_outputs(notebook: dict, name: str, depth: int) -> int:
    """Give each Explore cell of a notebook its section; returns how many it gave."""
    path = DATA / f"{name}.json"
    cells = [c for c in notebook["cells"] if "explore" in c.get("metadata", {}).get("tags", [])]
    if not cells:
        return 0
    if not path.is_file():
        raise ExtensionError(f"{name} has an Explore cell but {path} is missing: make figures")
    manifest = json.loads(path.read_text(encoding="utf-8"))
    for number, cell in enumerate(cells):
        html_text = section_html(manifest, depth, with_script=number == 0)
        cell["outputs"] = [
            {"output_type": "display_data", "metadata": {}, "data": {"text/html": html_text}}
        ]
    return len(cells)


def source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    if app.env.doc2path(docname).suffix != ".ipynb":
        return
    notebook = json.loads(source[0])
    if add_explore_outputs(notebook, Path(docname).name, docname.count("/")):
        source[0] = json.dumps(notebook)


def copy_frames(app: Sphinx, exception: Exception | None) -> None:
    """Put the frames next to the pages: <outdir>/_explore/<notebook>/NNN.png."""
    if exception is not None or app.builder.format != "html":
        return
    for manifest in sorted(DATA.glob("*.json")):
        target = Path(app.outdir) / OUT_FOLDER / manifest.stem
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(DATA / manifest.stem, target)


def setup(app: Sphinx) -> dict:
    app.connect("source-read", source_read)
    app.connect("build-finished", copy_frames)
    app.add_css_file("vx-explore.css")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
