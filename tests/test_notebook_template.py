"""Every notebook follows the one chapter template of CONTRIBUTING.md ("One template for every
notebook"): the title; "Before you start" (learning objectives, each naming the exercise that
checks it; prerequisites; the estimated time, as scripts/chapter_time.py computes it); from 02 on
a Warm-up (questions on earlier notebooks); numbered sections, with predictions before their
reveals; Explore where the notebook has one; Summary (its key points); Exercises; References."""

import json
import re
from pathlib import Path

import chapter_time
import pytest

from vitexplain.exercises import exercises, prompts

# Nothing here compares a float that PyTorch or NumPy computed: `make test-baseline` leaves it out.
# The notebooks are read with json (chapter_time.read), not nbformat, whose import costs 1.4 s of
# processor time or more in each process that makes it.
pytestmark = pytest.mark.cpu_independent

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))

EXERCISE_IDS = set(exercises())
EXERCISE_ID = re.compile(r"\b(\d\d\.\d+)\b")
CLOSING = ["Summary", "Exercises", "References"]
PROMPTS = prompts()


def _markdown_lines(cell) -> list[str]:
    """The lines of a Markdown cell outside fenced code blocks."""
    lines, fenced = [], False
    for line in cell.source.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def _headings(notebook, level: int) -> list[tuple[int, str]]:
    """(cell index, text) of every heading of this level, in reading order."""
    mark = "#" * level + " "
    return [
        (i, line[len(mark) :].strip())
        for i, cell in enumerate(notebook.cells)
        if cell.cell_type == "markdown"
        for line in _markdown_lines(cell)
        if line.startswith(mark)
    ]


def _section(notebook, heading: str) -> str:
    """The Markdown of one level-2 section (its cells' sources, joined)."""
    for name, cells in chapter_time.sections(notebook):
        if name == heading:
            return "\n\n".join(c.source for c in cells if c.cell_type == "markdown")
    raise AssertionError(f"no section {heading!r}")


def _items(markdown: str, marker: str) -> list[str]:
    """The items of the Markdown list whose items start with `marker` (a regex), joined with
    their continuation lines."""
    items: list[str] = []
    for line in markdown.splitlines():
        if re.match(marker, line):
            items.append(re.sub(marker, "", line, count=1).strip())
        elif items and line.startswith("  ") and line.strip():
            items[-1] += " " + line.strip()
        elif line.strip() and not line.startswith(" "):
            if items:
                break
    return items


def _subsection(cell_source: str, heading: str) -> str:
    part = cell_source.split(f"### {heading}\n", 1)[1]
    return part.split("\n### ", 1)[0]


@pytest.fixture(params=NOTEBOOKS, ids=lambda p: p.name[:2])
def notebook(request):
    nb = chapter_time.read(request.param)
    nb.number = request.param.name[:2]
    nb.path = request.param
    return nb


def test_the_series_has_nine_notebooks():
    assert [p.name[:2] for p in NOTEBOOKS] == [f"{n:02d}" for n in range(1, 10)]


def test_title_then_before_you_start(notebook):
    title = notebook.cells[0]
    assert title.cell_type == "markdown"
    assert title.source.startswith(f"# {notebook.number} · ")
    assert len(_headings(notebook, 1)) == 1, "one title per notebook"
    before = notebook.cells[1]
    assert before.cell_type == "markdown"
    assert before.source.startswith("## Before you start\n")
    subheadings = [line for line in _markdown_lines(before) if line.startswith("#")]
    assert subheadings == [
        "## Before you start",
        "### Learning objectives",
        "### Prerequisites",
        "### Time",
    ]


def test_sections_follow_the_template(notebook):
    """Before you start, the numbered sections 1, 2, ..., Explore (only where the notebook has
    explore cells), Summary, Exercises, References: in that order, and nothing else."""
    names = [name for _, name in _headings(notebook, 2)]
    assert names[0] == "Before you start"
    assert names[-3:] == CLOSING
    warm_up = any(i.startswith(f"{notebook.number}.w") for i in PROMPTS)
    assert (names[1] == "Warm-up") == warm_up
    middle = names[1 + warm_up : -3]
    has_explore = any("explore" in c.metadata.get("tags", []) for c in notebook.cells)
    if has_explore:
        assert middle[-1] == "Explore"
        middle = middle[:-1]
    assert "Explore" not in middle
    numbers = [re.match(r"(\d+)\. \S", name) for name in middle]
    unnumbered = [name for name, match in zip(middle, numbers, strict=True) if not match]
    assert not unnumbered, f"unnumbered sections: {unnumbered}"
    assert [int(m[1]) for m in numbers] == list(range(1, len(middle) + 1))


def test_objectives_name_existing_exercises_of_this_notebook(notebook):
    """3 to 5 objectives; each names at least one exercise of the registry, of this notebook;
    together they name every exercise of the notebook."""
    objectives = _items(_subsection(notebook.cells[1].source, "Learning objectives"), r"^\d+\. ")
    assert 3 <= len(objectives) <= 5, objectives
    named: set[str] = set()
    for objective in objectives:
        ids = EXERCISE_ID.findall(objective)
        assert re.search(r"\(exercises? \d\d\.\d+( and \d\d\.\d+)?\)[;.]$", objective), objective
        assert ids, f"names no exercise: {objective}"
        unknown = set(ids) - EXERCISE_IDS
        assert not unknown, f"no such exercise {unknown} in vitexplain.exercises: {objective}"
        assert all(i.startswith(f"{notebook.number}.") for i in ids), objective
        named |= set(ids)
    mine = {i for i in EXERCISE_IDS if i.startswith(f"{notebook.number}.")}
    assert named == mine, f"exercises no objective names: {sorted(mine - named)}"


def test_prerequisites_name_earlier_notebooks_and_outside_knowledge(notebook):
    text = _subsection(notebook.cells[1].source, "Prerequisites")
    items = _items(text, r"^\* ")
    labels = [re.match(r"\*\*([^*]+):\*\*", item) for item in items]
    assert all(labels), items
    kinds = [m[1] for m in labels]
    assert kinds[0] == "Notebooks" and kinds[-1] == "From outside the series"
    assert set(kinds) <= {"Notebooks", "Helpful, not needed", "From outside the series"}
    existing = {p.name for p in NOTEBOOKS}
    for item in items[:-1]:
        for link in re.findall(r"\]\(([^)]+)\)", item):
            assert link in existing, link
            assert link[:2] < notebook.number, f"{link} is not an earlier notebook"
    needed = re.findall(r"\]\((\d\d)_", items[0])
    if notebook.number == "01":
        assert not needed and "none" in items[0]
    else:
        assert needed, "every notebook after 01 builds on an earlier one"


def test_time_is_the_computed_estimate(notebook):
    """The stated time is what scripts/chapter_time.py computes now: after a change of the text,
    the code, the figures or the exercises, run `python scripts/chapter_time.py --write`."""
    estimate = chapter_time.estimate(notebook.path)
    assert chapter_time.stated_paragraph(notebook) == chapter_time.time_paragraph(estimate)
    assert estimate.run_seconds > 0, "RUN_SECONDS holds no measurement for this notebook"
    assert estimate.total_minutes % 5 == 0
    exact = estimate.read_minutes + estimate.run_minutes + estimate.exercise_minutes
    assert exact <= estimate.total_minutes < exact + 5


def test_summary_is_a_short_list_of_key_points(notebook):
    points = _items(_section(notebook, "Summary"), r"^\* ")
    assert 3 <= len(points) <= 6, points


def test_exercises_section_holds_every_exercise_of_the_notebook(notebook):
    exercises_part = "\n".join(
        c.source
        for name, cells in chapter_time.sections(notebook)
        if name == "Exercises"
        for c in cells
    )
    mine = {i for i in EXERCISE_IDS if i.startswith(f"{notebook.number}.")}
    assert {i for i in mine if f'"{i}"' in exercises_part} == mine


def test_references_are_a_list(notebook):
    assert _items(_section(notebook, "References"), r"^\* ")


def _cell(kind: str, source: list[str], **fields) -> dict:
    """A cell as a notebook file stores it: its source a list of lines."""
    return {"cell_type": kind, "metadata": {}, "source": source, **fields}


def test_estimate_counts_against_a_hand_count(tmp_path):
    """The estimate's counts on a small notebook counted by hand, in the file format nbformat
    writes (sources and outputs as lists of lines), which chapter_time.read joins as nbformat
    does (its data of a JSON type stay as they are)."""
    figure = {"text/html": ["<figure><img>\n", "</figure>"], "application/json": ["a", "b"]}
    cells = [
        _cell("markdown", ["# 01 · A title\n", "\n", "four words in here"]),  # 9 words
        _cell("markdown", ["## Before you start\n", "\n", "not counted at all"]),
        _cell(
            "code",
            ["x = 1\n", "\n", "# a comment\n", "y = 2"],  # 3 lines
            execution_count=1,
            outputs=[
                {"output_type": "display_data", "metadata": {}, "data": figure},
                {"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBOR"}},
                {"output_type": "stream", "name": "stdout", "text": ["no\n", "figure"]},
            ],
        ),
        _cell("markdown", ["## Exercises\n", "\n", "three more words"]),  # 5 words
        _cell("code", ["not = 'counted'"], execution_count=None, outputs=[]),
        _cell("markdown", ["## References\n", "\n", "* not counted"]),
    ]
    path = tmp_path / "01_hand.ipynb"
    stored = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(stored), encoding="utf-8")
    nb = chapter_time.read(path)
    assert nb.cells[0].source == "# 01 · A title\n\nfour words in here"
    data, _, stream = nb.cells[2].outputs
    assert data.data == {"text/html": "<figure><img>\n</figure>", "application/json": ["a", "b"]}
    assert stream.text == "no\nfigure"
    e = chapter_time.estimate(path)
    assert (e.words, e.code_lines, e.figures) == (9 + 5, 3, 2)
    mine = [x for x in exercises().values() if x.id.startswith("01.")]
    assert e.value_exercises + e.function_exercises == len(mine)
    path.write_text(json.dumps({**stored, "nbformat": 3}), encoding="utf-8")
    with pytest.raises(ValueError, match="nbformat 3, not 4"):
        chapter_time.read(path)


def _needs(path: Path) -> list[str]:
    source = chapter_time.read(path).cells[1].source
    line = _items(_subsection(source, "Prerequisites"), r"^\* ")[0]
    return re.findall(r"\]\((\d\d)_", line)


def test_readme_states_the_computed_times_and_the_shortest_path():
    """The README's sentence on the notebooks' times says what the script computes, and its
    shortest way to the last notebook is the closure of the notebooks' stated needs."""
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    estimates = [chapter_time.estimate(p) for p in NOTEBOOKS]
    minutes = [e.total_minutes for e in estimates]
    seconds = [round(e.run_seconds) for e in estimates]
    hours, rest = divmod(sum(minutes), 60)
    assert f"between {min(minutes)} and {max(minutes)} minutes" in readme
    assert f"about {hours} h {rest} min for all nine" in readme
    assert f"{min(seconds)} to {max(seconds)} s of processor time" in readme
    needs = {p.name[:2]: _needs(p) for p in NOTEBOOKS}
    wanted, todo = set(), [NOTEBOOKS[-1].name[:2]]
    while todo:
        number = todo.pop()
        if number not in wanted:
            wanted.add(number)
            todo += needs[number]
    skipped = sorted(set(needs) - wanted)
    route = " → ".join(sorted(wanted))
    assert f"({route}: {' and '.join(skipped)} can wait)" in readme


def _mine(notebook, kind: str) -> list[str]:
    return [i for i in PROMPTS if i.startswith(f"{notebook.number}.{kind}")]


def test_warm_up_opens_the_notebook(notebook):
    """From 02 on, `## Warm-up` follows the imports: 2 or 3 questions, each `**Warm-up NN.wk ·
    Notebook MM.**` on an earlier notebook MM, with its answer cell; it holds every warm-up of
    the notebook and nothing else. Notebook 01 has none."""
    warmups = _mine(notebook, "w")
    if notebook.number == "01":
        assert not warmups
        return
    assert 2 <= len(warmups) <= 3, warmups
    start = next(i for i, c in enumerate(notebook.cells) if c.source.startswith("## Warm-up"))
    assert [c.cell_type for c in notebook.cells[1:start]] == ["markdown", "code"]  # the imports
    cells = next(cells for name, cells in chapter_time.sections(notebook) if name == "Warm-up")
    asked = []
    for question, answer in zip(cells[::2], cells[1::2], strict=True):
        found = re.search(r"\*\*Warm-up (\d\d\.w\d) · Notebook (\d\d)\.\*\*", question.source)
        assert found and found[2] < notebook.number, question.source
        assert answer.source == (
            f'answer = ...  # your answer\nvx.exercises.check("{found[1]}", answer)'
        )
        asked.append(found[1])
    assert asked == warmups


def test_each_prediction_comes_right_before_its_reveal(notebook):
    """A prediction is a Markdown cell `**Predict NN.pk.** <question>`, the guess cell, then the
    cell whose output is the reveal, stored folded (`jupyter.outputs_hidden`); every folded cell
    is such a reveal. At least 3 per notebook."""
    predictions = _mine(notebook, "p")
    assert len(predictions) >= 3
    found, cells = [], notebook.cells
    for i, cell in enumerate(cells):
        if cell.metadata.get("jupyter", {}).get("outputs_hidden"):
            question, guess = cells[i - 2], cells[i - 1]
            match = re.match(r"\*\*Predict (\d\d\.p\d)\.\*\* \S", question.source)
            assert match and question.cell_type == "markdown", question.source
            assert guess.source == (
                f'guess = ...  # your prediction\nvx.exercises.check("{match[1]}", guess)'
            )
            assert cell.cell_type == "code" and cell.outputs, "a reveal shows something"
            found.append(match[1])
    assert found == predictions
