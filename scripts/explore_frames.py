"""Draw the site's Explore frames with the package (``make figures``), into docs/_data/explore/.

The static site has no kernel, so each Explore section of notebooks 01, 03 and 05 is shown there
as frames drawn ahead: for every state of the section's site grid
(:func:`vitexplain.explore.site_explores`), the PNG that JupyterLab's Explore shows for that
state (:meth:`vitexplain.explore.Explore.state`: the same drawing function, the same
``figure_to_png``), its alt text and caption, and the closed-form numbers the page computes again
in JavaScript. Written per notebook::

    docs/_data/explore/<notebook>.json       the manifest: controls, then one entry per state
    docs/_data/explore/<notebook>/NNN.png    the frames, in the manifest's order

The site build (docs/_ext/vx_explore.py, no torch) reads only these files. Running this twice
writes the same bytes; files of states no longer drawn are removed.

Usage: ``python scripts/explore_frames.py [--out docs/_data/explore] [notebook ...]``
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "_data" / "explore"


def control_entry(explore, name: str) -> dict[str, Any]:
    """One control of the manifest: its label, the site's values (with their labels and what
    each means to a screen reader) and JupyterLab's range."""
    from vitexplain.explore import Choice

    spec = explore.controls[name]
    grid = explore.grid(name)
    values, labels, says = explore.values(name), explore.labels(name), explore.says(name)
    if isinstance(spec, Choice):
        lab = {"values": values, "labels": labels, "says": says}
    else:  # the calculator's number field: its range in words, for a refused value
        lab = {"min": spec.min, "max": spec.max, "step": spec.step}
        lab["takes"] = explore.range_text(name)
    return {
        "name": name,
        "label": spec.description,
        "values": grid,
        "labels": [labels[values.index(v)] for v in grid],
        "says": [says[values.index(v)] for v in grid],
        "start": grid.index(spec.value),
        "lab": lab,
    }


def manifest_and_frames(notebook: str, explore) -> tuple[dict[str, Any], list[bytes]]:
    """The manifest of one Explore section and its frames (PNG bytes, in the states' order)."""
    from vitexplain import load_mountains

    names = list(explore.controls)
    controls = [control_entry(explore, name) for name in names]
    states, frames = [], []
    for index, combo in enumerate(itertools.product(*(explore.grid(n) for n in names))):
        values = dict(zip(names, combo, strict=True))
        png, alt, caption = explore.state(**values)
        frames.append(png)
        states.append(
            {
                "values": values,
                "frame": f"{notebook}/{index:03d}.png",
                "alt": alt,
                "caption": caption,
                "numbers": explore.numbers(**values),
            }
        )
    picture = list(load_mountains().shape)  # (H, W): the closed forms of 01 and 05 need it
    return {
        "notebook": notebook,
        "picture": picture,
        "controls": controls,
        "states": states,
    }, frames


def write(notebook: str, explore, out: Path) -> int:
    """Write one section's manifest and frames; return the bytes written."""
    manifest, frames = manifest_and_frames(notebook, explore)
    folder = out / notebook
    folder.mkdir(parents=True, exist_ok=True)
    keep = set()
    for state, png in zip(manifest["states"], frames, strict=True):
        path = out / state["frame"]
        keep.add(path)
        if not path.is_file() or path.read_bytes() != png:
            path.write_bytes(png)
    for old in folder.glob("*.png"):
        if old not in keep:
            old.unlink()
    text = json.dumps(manifest, indent=1, ensure_ascii=False) + "\n"
    (out / f"{notebook}.json").write_text(text, encoding="utf-8")
    return sum(map(len, frames)) + len(text.encode())


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    from vitexplain.explore import site_explores

    parser = argparse.ArgumentParser(description="Draw the site's Explore frames.")
    parser.add_argument("notebooks", nargs="*", help="notebook names (all three by default)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    explores = site_explores()
    for notebook in args.notebooks or explores:
        if notebook not in explores:
            parser.error(f"no Explore section for {notebook!r}; one of {sorted(explores)}")
        size = write(notebook, explores[notebook], args.out)
        print(f"{notebook}: {size / 1e6:.2f} MB in {args.out.relative_to(ROOT)}/")


if __name__ == "__main__":
    main()
