"""How long each notebook takes a reader: the "Time" paragraph of its "Before you start" cell.

The estimate is computed, not guessed (CONTRIBUTING.md, "One template for every notebook"):

* reading: the words of the Markdown cells (all but "Before you start" itself and the
  References) at :data:`WORDS_PER_MINUTE`, the non-blank lines of the code cells before the
  Exercises at :data:`CODE_LINES_PER_MINUTE`, and :data:`MINUTES_PER_FIGURE` for every stored
  figure (an output ``<figure>`` or image);
* running: the processor time the notebook's kernel used to run every cell on one thread
  (:data:`RUN_SECONDS`, kernel start and imports included), rounded up to whole minutes;
* exercises: :data:`MINUTES_PER_VALUE_EXERCISE` for an exercise answered by a value,
  :data:`MINUTES_PER_FUNCTION_EXERCISE` for one answered by a function (read from the registry,
  ``vitexplain.exercises``);

and the sum, rounded up to a multiple of 5 minutes.

Usage: ``python scripts/chapter_time.py`` prints the table; ``--write`` puts each notebook's
paragraph into its "Time" section (Markdown only: no re-execution needed); ``--check`` exits
with status 1 if a notebook's paragraph is not the computed one; ``--measure`` runs every
notebook and prints the processor seconds to copy into :data:`RUN_SECONDS`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))

WORDS_PER_MINUTE = 150  # technical prose with formulas, read to be understood
CODE_LINES_PER_MINUTE = 15  # code read before running it
MINUTES_PER_FIGURE = 1.0  # a look at the figure and its caption
MINUTES_PER_VALUE_EXERCISE = 5  # predict, compute, check
MINUTES_PER_FUNCTION_EXERCISE = 15  # write a function, run the checker, fix it

#: Processor seconds (user + system) of the kernel that ran every cell of the notebook, its start
#: and imports included, with torch on one thread (`--measure` sets OMP_NUM_THREADS=1), measured
#: with psutil before the kernel shut down (nbclient, one notebook at a time; 2026-11-29, load
#: average 7-14 on 2 cores). One thread, because waiting threads spin and count: with torch's
#: default two threads on that busy machine notebook 08 took 211 s of processor time and 17
#: minutes of wall clock; on one thread 19 s (a reader measured 152 s with the default threads).
#: On one thread the processor time hardly depends on the other jobs, and on an idle machine it
#: is about the wall-clock time, which the Time paragraph rounds up to minutes.
RUN_SECONDS = {
    "01": 3.3,
    "02": 3.9,
    "03": 5.9,
    "04": 3.9,
    "05": 6.0,
    "06": 8.9,
    "07": 9.8,
    "08": 19.1,
    "09": 19.2,
}

BEFORE = "Before you start"
TIME_HEADING = "### Time"
_H2 = re.compile(r"^## (.+?)\s*$", re.M)


@dataclass(frozen=True)
class Estimate:
    """The counts of one notebook and the minutes they make."""

    number: str  # "01"
    words: int
    code_lines: int
    figures: int
    run_seconds: float
    value_exercises: int
    function_exercises: int

    @property
    def read_minutes(self) -> float:
        return (
            self.words / WORDS_PER_MINUTE
            + self.code_lines / CODE_LINES_PER_MINUTE
            + self.figures * MINUTES_PER_FIGURE
        )

    @property
    def run_minutes(self) -> int:
        return max(1, math.ceil(self.run_seconds / 60))

    @property
    def exercise_minutes(self) -> int:
        return (
            self.value_exercises * MINUTES_PER_VALUE_EXERCISE
            + self.function_exercises * MINUTES_PER_FUNCTION_EXERCISE
        )

    @property
    def total_minutes(self) -> int:
        exact = self.read_minutes + self.run_minutes + self.exercise_minutes
        return 5 * math.ceil(exact / 5)


class Node(dict):
    """A dict whose keys read as attributes (``cell.source``), as nbformat's NotebookNode."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    __setattr__ = dict.__setitem__


def read(path: Path) -> Node:
    """The notebook as ``nbformat.read(path, as_version=4)`` gives it, read with ``json``:
    importing nbformat costs 1.4 s of processor time or more (jsonschema's format checkers build
    39 grammars), and counting needs no schema (nbval and nbformat's writer check the notebooks).
    As nbformat does, it joins what the file stores as lists of lines: a cell's source, a stream's
    text, an output's data of a non-JSON type."""

    def node(value):
        if isinstance(value, dict):
            return Node((key, node(item)) for key, item in value.items())
        return [node(item) for item in value] if isinstance(value, list) else value

    notebook = node(json.loads(path.read_text(encoding="utf-8")))
    if notebook.nbformat != 4:
        raise ValueError(f"{path.name}: nbformat {notebook.nbformat}, not 4")
    for cell in notebook.cells:
        cell.source = "".join(cell.source)
        for output in cell.get("outputs", []):
            if isinstance(output.get("text"), list):
                output.text = "".join(output.text)
            for mime, data in output.get("data", {}).items():
                if not mime.endswith("json") and isinstance(data, list):
                    output.data[mime] = "".join(data)
    return notebook


def sections(notebook: Node) -> list[tuple[str, list]]:
    """The notebook cut at its level-2 headings: (heading, cells) pairs; the cells before the
    first heading (the title cell) come under the heading ""."""
    parts: list[tuple[str, list]] = [("", [])]
    for cell in notebook.cells:
        heading = _H2.search(cell.source) if cell.cell_type == "markdown" else None
        if heading and cell.source.lstrip().startswith("## "):
            parts.append((heading[1], []))
        parts[-1][1].append(cell)
    return parts


def _figures(cell: Node) -> int:
    count = 0
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if "image/png" in data or "image/gif" in data:
            count += 1
        elif "<figure" in data.get("text/html", ""):
            count += 1
    return count


def estimate(path: Path) -> Estimate:
    """Count the words, code lines, figures and exercises of one notebook."""
    from vitexplain.exercises import exercises  # torch: only when estimating

    number = path.name[:2]
    notebook = read(path)
    words = code_lines = figures = 0
    for heading, cells in sections(notebook):
        for cell in cells:
            if cell.cell_type == "markdown" and heading not in (BEFORE, "References"):
                words += len(cell.source.split())
            elif cell.cell_type == "code" and heading != "Exercises":
                code_lines += sum(1 for line in cell.source.splitlines() if line.strip())
            figures += _figures(cell)
    mine = [e for e in exercises().values() if e.id.startswith(f"{number}.")]
    functions = sum(1 for e in mine if e.returns is not None)
    return Estimate(
        number, words, code_lines, figures, RUN_SECONDS[number], len(mine) - functions, functions
    )


def time_paragraph(e: Estimate) -> str:
    """The Markdown under the notebook's "### Time" heading (the last part of its cell), wrapped
    at 100 characters."""
    exercises = e.value_exercises + e.function_exercises
    text = (
        f"About {e.total_minutes} minutes: {round(e.read_minutes)} to read, {e.run_minutes} to "
        f"run, {e.exercise_minutes} for the {exercises} exercises. Estimated by "
        f"`scripts/chapter_time.py`, not guessed: {e.words:,} words at {WORDS_PER_MINUTE} a "
        f"minute, {e.code_lines} lines of code at {CODE_LINES_PER_MINUTE} a minute and "
        f"{MINUTES_PER_FIGURE:g} minute for each of the {e.figures} figures; running every cell "
        f"took {e.run_seconds:.0f} s of processor time on one thread (`OMP_NUM_THREADS=1`), kernel "
        "start included; "
        f"{MINUTES_PER_VALUE_EXERCISE} minutes for an exercise answered by a value, "
        f"{MINUTES_PER_FUNCTION_EXERCISE} for one answered by a function; the sum rounded up to "
        "5 minutes."
    )
    return textwrap.fill(text, 100, break_on_hyphens=False, break_long_words=False)


def _time_cell(notebook: Node) -> Node:
    for heading, cells in sections(notebook):
        if heading == BEFORE:
            return cells[0]
    raise ValueError(f'no "## {BEFORE}" section')


def stated_paragraph(notebook: Node) -> str:
    """The text under "### Time", the last part of the "Before you start" cell."""
    source = _time_cell(notebook).source
    if TIME_HEADING not in source:
        raise ValueError(f'"## {BEFORE}" has no "{TIME_HEADING}"')
    return source.split(TIME_HEADING, 1)[1].strip()


def write(path: Path, paragraph: str) -> bool:
    """Put the paragraph under "### Time"; return whether the file changed."""
    import nbformat  # its writer keeps the notebooks' format

    notebook = nbformat.read(path, as_version=4)
    if stated_paragraph(notebook) == paragraph:
        return False
    cell = _time_cell(notebook)
    cell.source = cell.source.split(TIME_HEADING, 1)[0] + f"{TIME_HEADING}\n\n{paragraph}"
    nbformat.write(notebook, path)
    return True


def measure(path: Path) -> float:
    """Run every cell of a notebook in a fresh kernel (nothing is written) and return the
    processor seconds (user + system) the kernel used, its start and imports included."""
    import nbformat
    import psutil
    from nbclient import NotebookClient

    # One thread: idle OpenMP threads spin, and on a busy machine their spinning would count.
    os.environ["OMP_NUM_THREADS"] = "1"
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=3000,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    with client.setup_kernel():
        kernel = psutil.Process(client.km.provisioner.process.pid)
        for index, cell in enumerate(notebook.cells):
            client.execute_cell(cell, index)
        times = kernel.cpu_times()
        children = [child.cpu_times() for child in kernel.children(recursive=True)]
    return (
        times.user
        + times.system
        + times.children_user
        + times.children_system
        + sum(c.user + c.system for c in children)
    )


def main() -> int:
    parser = argparse.ArgumentParser(description="Estimate how long each notebook takes.")
    parser.add_argument("--write", action="store_true", help="update each notebook's Time")
    parser.add_argument("--check", action="store_true", help="fail if a stated Time differs")
    parser.add_argument(
        "--measure", action="store_true", help="run each notebook, print its processor seconds"
    )
    args = parser.parse_args()
    if args.measure:
        for path in NOTEBOOKS:
            print(f"{path.name}: {measure(path):.1f} s of processor time", flush=True)
        return 0
    stale = []
    print("notebook  words  code  figures  run s  exercises (value+function)  read  run  ex  total")
    for path in NOTEBOOKS:
        e = estimate(path)
        print(
            f"{e.number:>8}  {e.words:5d}  {e.code_lines:4d}  {e.figures:7d}  {e.run_seconds:5.0f}"
            f"  {e.value_exercises:>14d}+{e.function_exercises:<11d}  {e.read_minutes:4.0f}"
            f"  {e.run_minutes:3d}  {e.exercise_minutes:2d}  {e.total_minutes:5d}"
        )
        paragraph = time_paragraph(e)
        if args.write and write(path, paragraph):
            print(f"          wrote {path.name}")
        elif args.check and stated_paragraph(read(path)) != paragraph:
            stale.append(path.name)
    if stale:
        print(f"stale Time in {', '.join(stale)}: run python scripts/chapter_time.py --write")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
