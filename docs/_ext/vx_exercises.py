"""The exercises on the site: an answer box under every value exercise, a worked solution under
every exercise.

Data: docs/_data/exercises.json, exported from the package by scripts/export_exercises.py at
``make figures`` (the site build has no torch). Under each notebook cell that calls
``vx.exercises.check("NN.k", ...)`` this adds

* for a value exercise, a form (label, text input, Check button, a live region for the verdict),
  hidden until the page's script runs; the script (docs/_js/exercises.js, inlined as a classic
  script with the page's specs as inline JSON) grades by the same spec as ``check``;
* for every exercise, a ``<details>`` disclosure "Worked solution (try it first)" with the
  answer or the function's code and the explanation: it opens without JavaScript. The code
  starts with the imports it needs (computed from the names it reads) and has a Copy button
  (vx.js): pasted into a fresh notebook it runs;
* for a warm-up (``"NN.wk"``), the same form and worked solution;
* for a prediction (``"NN.pk"``), a form for the guess (radio buttons for a choice) with a
  "Show me" button: the script hides the output of the next notebook cell, the reveal, until a
  guess is checked or Show me is pressed. Without JavaScript the form stays hidden and the
  output is shown. A prediction answered by patch numbers on a grid (its spec's ``grid``) also
  gets a grid of toggle buttons, one per patch, that write the list into the text box
  (docs/_js/grid.js, inlined after exercises.js).
"""

from __future__ import annotations

import builtins
import html
import json
import re
import symtable
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

DOCS = Path(__file__).resolve().parent.parent
DATA = DOCS / "_data" / "exercises.json"
SCRIPT = DOCS / "_js" / "exercises.js"
GRID_SCRIPT = DOCS / "_js" / "grid.js"
CHECK_CALL = re.compile(r"vx\.exercises\.check\(\s*\"(\d\d\.[pw]?\d)\"")
FORMS = (
    "Type it as Python reads it: 94714 or 94_714 (a comma makes a tuple), 0.5 or 1/2, "
    "arithmetic such as 14*14 or 2**10, True or False, a tuple such as (196, 768); then press "
    "Enter or Check."
)
PRIVACY = (
    "Checked here, in your browser, by the same rules and hints as vx.exercises.check; nothing "
    "you type is sent anywhere or stored."
)


def _slug(exercise_id: str) -> str:
    return exercise_id.replace(".", "-")


def _form(exercise_id: str, noun: str = "exercise", kind: str = "vx-answer") -> str:
    slug = _slug(exercise_id)
    return (
        f'<form class="{kind}" data-exercise="{exercise_id}" hidden>'
        f'<label for="vx-answer-{slug}">Your answer to {noun} {exercise_id}</label>'
        f'<span class="vx-answer-row"><input id="vx-answer-{slug}" type="text" '
        f'autocomplete="off" spellcheck="false" aria-describedby="vx-forms-{slug}">'
        f'<button type="submit">Check</button></span>'
        f'<span class="vx-forms" id="vx-forms-{slug}">{html.escape(FORMS)} {PRIVACY}</span>'
        f'<output class="vx-verdict" role="status" aria-live="polite"></output></form>'
    )


PREDICT_NOTE = (
    "The output of the next cell is folded until you check a guess or press Show me. "
    "Checked here, in your browser; nothing is sent or stored."
)


def _grid(slug: str, rows: int, cols: int) -> str:
    """Toggle buttons for the patches of a rows x cols grid, numbered 1, 2, ... row by row."""
    cells = "".join(
        f'<button type="button" aria-pressed="false" data-patch="{n + 1}" '
        f'aria-label="patch {n + 1}, row {n // cols + 1}, column {n % cols + 1}">{n + 1}</button>'
        for n in range(rows * cols)
    )
    return (
        f'<span class="vx-grid-note" id="vx-grid-{slug}">Or press patches on the {rows} x {cols} '
        "grid, numbered row by row from the top left: the box shows their list.</span>"
        f'<div class="vx-grid" role="group" aria-labelledby="vx-grid-{slug}" '
        f'style="--vx-cols: {cols}">{cells}</div>'
    )


def _predict_form(exercise_id: str, spec: dict[str, Any]) -> str:
    """A prediction's form: radio buttons (a choice) or a text box (and a grid of patches to
    press when the spec has one), Check and Show me."""
    slug = _slug(exercise_id)
    if spec["kind"] == "choice":
        options = "".join(
            f'<label class="vx-option"><input type="radio" name="vx-guess-{slug}" '
            f'value="{letter}"> ({letter}) {html.escape(text)}</label>'
            for letter, text in zip("abcdefgh", spec["options"], strict=False)
        )
        field = f"<fieldset><legend>Your prediction {exercise_id}</legend>{options}</fieldset>"
    else:
        field = (
            f'<label for="vx-answer-{slug}">Your prediction {exercise_id}</label>'
            f'<input id="vx-answer-{slug}" type="text" autocomplete="off" spellcheck="false" '
            f'aria-describedby="vx-accepts-{slug} vx-forms-{slug}">'
            f'<span class="vx-forms" id="vx-accepts-{slug}">{html.escape(FORMS)}</span>'
        )
        if "grid" in spec:
            field += _grid(slug, *spec["grid"])
    return (
        f'<form class="vx-prompt vx-predict" data-exercise="{exercise_id}" hidden>{field}'
        f'<span class="vx-answer-row"><button type="submit">Check</button>'
        f'<button type="button" class="vx-show">Show me</button></span>'
        f'<span class="vx-forms vx-reveal-note" id="vx-forms-{slug}" hidden>'
        f"{PREDICT_NOTE}</span>"
        f'<output class="vx-verdict" role="status" aria-live="polite"></output></form>'
    )


# A worked solution shows the package's own source, formatted to the package's 100 characters:
# it wraps under its own indentation (vx.css) instead of scrolling sideways, so it needs no Tab
# stop of its own.
def solution_lines(code: str) -> str:
    """A solution's escaped source with every line in a span of its own, the newlines between
    the spans (so that the page's text, and a copy of it, is the source itself)."""
    return "\n".join(
        f'<span class="vx-line" style="--vx-indent: {len(line) - len(line.lstrip(" "))}">'
        f"{line}</span>"
        for line in code.split("\n")
    )


# --- a code solution's imports, Copy button and link (not grading) ---------------------------

# The imports a solution may need, as the notebooks write them.
IMPORTS = {  # in the order ruff's isort writes them
    "math": "import math",
    "np": "import numpy as np",
    "torch": "import torch",
    "F": "import torch.nn.functional as F",
    "rearrange": "from einops import rearrange",
    "nn": "from torch import nn",
    "vx": "import vitexplain as vx",
}


def solution_imports(code: str) -> list[str]:
    """The import lines of the module-level names a solution's code reads (its functions'
    globals that are not builtins), in IMPORTS' order; a name IMPORTS lacks stops the build."""
    names: set[str] = set()
    tables = [symtable.symtable(code, "<solution>", "exec")]
    while tables:
        table = tables.pop()
        if table.get_type() != "module":
            names.update(table.get_globals())
        tables.extend(table.get_children())
    defined = {s.get_name() for s in symtable.symtable(code, "<s>", "exec").get_symbols()}
    needed = sorted(names - defined - set(dir(builtins)))
    unknown = [n for n in needed if n not in IMPORTS]
    if unknown:
        raise ExtensionError(f"a worked solution reads {unknown}: add their import to IMPORTS")
    return [IMPORTS[n] for n in IMPORTS if n in needed]


def _solution(exercise_id: str, entry: dict[str, Any], run_page: str) -> str:
    parts = [f"<summary>Worked solution of {exercise_id} (try it first)</summary>"]
    if "code" in entry:
        name = entry["asks"].partition("(")[0]
        imports = "\n".join(solution_imports(entry["code"]))
        code = html.escape(f"{imports}\n\n\n{entry['code']}" if imports else entry["code"])
        parts.append(
            '<div class="vx-code-box"><pre class="vx-code vx-wraps">'
            f"<code>{solution_lines(code)}</code></pre></div>"
        )
        parts.append(f"<p>{html.escape(entry['why'])}</p>")
        parts.append(
            "<p>To check your own version, run this notebook in JupyterLab (<a "
            f'href="{run_page}">Run it yourself</a> says how, from this site) and call '
            f'<code>vx.exercises.check("{exercise_id}", {name})</code> under your function: it '
            "runs your code, which a page cannot.</p>"
        )
    else:
        parts.append(f"<p>Answer: <code>{html.escape(entry['answer'])}</code></p>")
        parts.append(f"<p>{html.escape(entry['why'])}</p>")
    return f'<details class="vx-solution">{"".join(parts)}</details>'


def _cell_of(node: nodes.Node) -> nodes.Node:
    """The notebook cell (myst-nb's container) a literal block sits in."""
    cell = node
    while cell.parent is not None and "cell" not in cell.get("classes", []):
        cell = cell.parent
    return cell if cell.parent is not None else node


def _script(data: dict[str, Any], used: dict[str, Any]) -> str:
    page = {"verdict": data["verdict"], "typed": data["typed"], "specs": used}
    page["prompt_verdict"] = data["prompt_verdict"]
    page["prompts"] = {i: data["prompts"][i] for i in used if i in data["prompts"]}
    text = json.dumps(page, ensure_ascii=False).replace("</", "<\\/")
    code = SCRIPT.read_text(encoding="utf-8")
    if any("grid" in spec for spec in used.values()):
        code += GRID_SCRIPT.read_text(encoding="utf-8")
    return (
        f'<script type="application/json" id="vx-exercises-data">{text}</script>'
        f"<script>\n{code}</script>"
    )


def add_exercises(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if not docname.startswith("notebooks/"):
        return
    data = json.loads(DATA.read_text(encoding="utf-8"))
    used: dict[str, Any] = {}
    for block in list(doctree.findall(nodes.literal_block)):
        found = CHECK_CALL.search(block.astext())
        entries = data["exercises"] | data["prompts"]
        if not found or found[1] not in entries:
            continue
        exercise_id = found[1]
        entry = entries[exercise_id]
        parts = []
        if entry.get("kind") == "prediction":  # its reveal is the next cell: no solution
            used[exercise_id] = entry["spec"]
            parts.append(_predict_form(exercise_id, entry["spec"]))
        elif entry.get("kind") == "warmup":
            used[exercise_id] = entry["spec"]
            parts.append(_form(exercise_id, "warm-up", "vx-prompt"))
        elif "spec" in entry:
            used[exercise_id] = entry["spec"]
            parts.append(_form(exercise_id))
        if entry.get("kind") != "prediction":
            parts.append(
                _solution(exercise_id, entry, app.builder.get_relative_uri(docname, "run"))
            )
        slug, inner = _slug(exercise_id), "".join(parts)
        box = f'<div class="vx-exercise" id="vx-exercise-{slug}">{inner}</div>'
        if "kind" in entry:  # a prediction or a warm-up
            box = f'<div class="vx-prompt-box" id="vx-prompt-{slug}">{inner}</div>'
        cell = _cell_of(block)
        cell.parent.insert(cell.parent.index(cell) + 1, nodes.raw("", box, format="html"))
    if used:
        doctree.append(nodes.raw("", _script(data, used), format="html"))


def setup(app: Sphinx) -> dict:
    app.connect("doctree-resolved", add_exercises)
    app.add_css_file("vx-exercises.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
