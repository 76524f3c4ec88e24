"""The reading path on the site's index, read from the notebooks themselves.

Where ``docs/index.md`` has the line ``<!-- vx-reading-path -->``, this extension writes a
"Reading path" section: the notebooks in order, each with its estimated time, the earlier
notebooks it needs and its first learning objective, all taken from the notebook's "Before you
start" cell (CONTRIBUTING.md, "One template for every notebook"); then the time of the whole
series and of the shortest path to the last notebook (the last notebook and every notebook it
needs, directly or through another).

A notebook without that cell, or a cell that does not follow the template, stops the build.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

MARKER = "<!-- vx-reading-path -->"
_TIME = re.compile(r"^About (\d+) minutes\b", re.M)
_OBJECTIVE = re.compile(r"^1\. (.+?)(?=^\d+\. |\Z)", re.M | re.S)
_NEEDS = re.compile(r"^\* \*\*Notebooks:\*\*(.+?)(?=^\* |\Z)", re.M | re.S)
_LINK = re.compile(r"\]\(((\d\d)_[\w-]+\.ipynb)\)")


@dataclass(frozen=True)
class Chapter:
    number: str  # "01"
    path: str  # "notebooks/01_patch_tokenization.ipynb"
    title: str  # "01 · Patch tokenization: from a picture to a sequence"
    minutes: int
    needs: tuple[str, ...]  # numbers of the earlier notebooks it needs
    objective: str  # the first learning objective, as written


def _subsection(source: str, heading: str, path: Path) -> str:
    parts = source.split(f"### {heading}\n", 1)
    if len(parts) != 2:
        raise ExtensionError(f'{path.name}: "Before you start" has no "### {heading}"')
    return parts[1].split("\n### ", 1)[0].strip()


def read_chapter(path: Path) -> Chapter:
    """The title, time, prerequisites and first objective of one notebook."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells[:2]]
    if len(sources) < 2 or not sources[1].startswith("## Before you start"):
        raise ExtensionError(f'{path.name}: the cell after the title is not "## Before you start"')
    title = sources[0].splitlines()[0].removeprefix("# ").strip()
    time = _TIME.search(_subsection(sources[1], "Time", path))
    objective = _OBJECTIVE.search(_subsection(sources[1], "Learning objectives", path))
    needs = _NEEDS.search(_subsection(sources[1], "Prerequisites", path))
    if time is None or objective is None or needs is None:
        raise ExtensionError(f"{path.name}: no time, first objective or needed notebooks")
    first = " ".join(objective[1].split()).rstrip(";.")
    return Chapter(
        number=path.name[:2],
        path=f"notebooks/{path.name}",
        title=title,
        minutes=int(time[1]),
        needs=tuple(number for _, number in _LINK.findall(needs[1])),
        objective=first,
    )


def shortest_path(chapters: list[Chapter]) -> list[Chapter]:
    """The last notebook and every notebook it needs, directly or through another, in order."""
    by_number = {c.number: c for c in chapters}
    wanted, todo = set(), [chapters[-1].number]
    while todo:
        number = todo.pop()
        if number not in wanted:
            wanted.add(number)
            todo.extend(by_number[number].needs)
    return [c for c in chapters if c.number in wanted]


def hours(minutes: int) -> str:
    """'11 h 10 min', '55 min'."""
    h, m = divmod(minutes, 60)
    return f"{h} h {m} min" if h and m else f"{h} h" if h else f"{m} min"


def reading_path_markdown(chapters: list[Chapter]) -> str:
    """The MyST of the "Reading path" section."""
    short = shortest_path(chapters)
    skipped = [c.number for c in chapters if c not in short]
    total = sum(c.minutes for c in chapters)
    lines = [
        f"Each notebook builds on the ones it names under *Prerequisites*. Read in order, the "
        f"series takes about {hours(total)}: the sum of the notebooks' estimates (reading, "
        f"running every cell and doing the exercises; each notebook says how its estimate is "
        f"computed).",
    ]
    if skipped:
        route = " → ".join(c.number for c in short)
        lines[-1] += (
            f" The shortest way to notebook {chapters[-1].number} leaves out "
            f"{' and '.join(skipped)}: {route}, about {hours(sum(c.minutes for c in short))}."
        )
    lines.append("")
    for k, c in enumerate(chapters, 1):
        needs = ", ".join(c.needs) if c.needs else "no earlier notebook"
        lines.append(
            f"{k}. [{c.title}]({c.path}) · **about {c.minutes} min** · needs {needs}  \n"
            f"   After it you can {c.objective}."
        )
    body = "\n".join(lines)
    return f"## Reading path\n\n:::{{container}} vx-reading-path\n{body}\n:::\n"


def source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    if docname != app.config.root_doc or MARKER not in source[0]:
        return
    root = Path(app.confdir).parent
    paths = sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    chapters = [read_chapter(p) for p in paths]
    source[0] = source[0].replace(MARKER, reading_path_markdown(chapters))


def setup(app: Sphinx) -> dict:
    app.connect("source-read", source_read)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
