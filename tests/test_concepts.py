"""The concept check: 20 questions, each wrong option a named misconception linked to the section
of the series that addresses it; graded by vx.exercises.check, by the site's docs/_js/concepts.js
(run here in Node with the page's data) alike, and summed over a class by scripts/concept_gain.py.
e2e/test_site_concepts.py checks the built page (links, storage, download, axe)."""

import json
import re
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import concept_gain
import export_exercises
import pytest

from vitexplain import exercises as ex
from vitexplain.exercises import concepts

# Nothing here compares a float that PyTorch or NumPy computed: `make test-baseline` leaves it out.
pytestmark = pytest.mark.cpu_independent

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "docs" / "_js" / "concepts.js"
ITEMS = concepts.items()


GAIN = concept_gain


def _headings(number: str) -> set[str]:
    (path,) = (ROOT / "notebooks").glob(f"{number}_*.ipynb")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return set(re.findall(r"^#{2,3} (.+?)\s*$", text, re.M))


def test_twenty_questions_one_right_option_each_wrong_one_a_named_misconception():
    assert list(ITEMS) == [f"cc.{k:02d}" for k in range(1, 21)]
    assert not set(ITEMS) & (set(ex.exercises()) | set(ex.prompts()))
    names = []
    for concept in concepts.CONCEPTS:
        letters = "abcdefgh"[: len(concept.options)]
        right = [L for L, o in zip(letters, concept.options, strict=True) if not o.misconception]
        assert len(concept.options) >= 3 and right == [concept.answer], concept.id
        names += [o.misconception for o in concept.options if o.misconception]
        assert len(concept.why) > 40
    assert len(set(names)) >= 38  # a misconception is probed at most twice (in two questions)
    # the misconceptions the issue names are among them
    named = {
        "attention sees token order",
        "ViT patches overlap",
        "the sinusoidal table is learned",
        "more epochs make up for missing position",
    }
    assert named <= set(names)
    assert any(n.startswith("rollout is where the model looks") for n in names)
    # the right answers are spread over the letters, not all "a"
    assert len({c.answer for c in concepts.CONCEPTS}) == 3


def test_every_option_links_to_an_existing_section_of_a_notebook_of_the_series():
    numbers = {o.notebook for c in concepts.CONCEPTS for o in c.options}
    assert numbers == {f"{k:02d}" for k in range(1, 10)}  # every notebook is asked about
    for concept in concepts.CONCEPTS:
        for option in concept.options:
            assert option.section in _headings(option.notebook), (concept.id, option)


@pytest.mark.parametrize("concept", concepts.CONCEPTS, ids=lambda c: c.id)
def test_every_option_through_check(concept):
    """The right option is right (the worked solution agrees); each wrong option's hint names
    its misconception and its section; a letter outside the options is named."""
    assert ex.solution(concept.id) == concept.answer
    for letter, option in zip("abcdefgh", concept.options, strict=False):
        hint = ex.grade(concept.id, letter)
        if not option.misconception:
            assert hint is None
            assert ex.grade(concept.id, f"({letter.upper()})") is None
        else:
            assert option.misconception in hint and concepts.title(option.section) in hint
            assert option.notebook in hint
    assert ex.grade(concept.id, "z").startswith("expected one of the letters 'a', 'b', 'c'")
    assert ex.grade(concept.id, ITEMS[concept.id].wrong()) is not None


def test_check_and_concept_check_print(capsys):
    ex.check("cc.03", "c")
    ex.check("cc.03", "a")
    ex.concept_check()
    lines = capsys.readouterr().out.splitlines()
    concept = concepts.CONCEPTS[2]
    assert lines[0] == f"Question cc.03: right. {concept.why}"
    assert lines[1].startswith("Question cc.03: not quite: “cropping to fit is harmless”")
    assert sum(re.match(r"cc\.\d\d  ", line) is not None for line in lines) == 20
    assert sum(line.startswith("  (") for line in lines) == sum(
        len(c.options) for c in concepts.CONCEPTS
    )


def test_the_site_data_is_a_fresh_export():
    export = export_exercises
    tracked = (ROOT / "docs" / "_data" / "concepts.json").read_text(encoding="utf-8")
    assert tracked == export.concepts_text(), "run scripts/export_exercises.py"


_NODE = """
const fs = require("fs");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
global.window = {};
global.document = {
  getElementById: (id) => id === "vx-concepts-data" ? { textContent: input.data } : null,
};
new Function(fs.readFileSync(input.script, "utf8"))();
const c = window.vxConcepts, items = JSON.parse(input.data).items;
console.log(JSON.stringify({
  verdicts: input.cases.map(([id, letter]) => c.verdict(items.find((i) => i.id === id), letter)),
  gains: input.gains.map(([pre, post]) => c.gain(pre, post)),
  scores: input.answers.map((a) => c.score(a)),
}));
"""


def _answers(right: int) -> dict[str, str]:
    """Answers with the first ``right`` questions right and the others wrong."""
    return {
        c.id: c.answer if k < right else ITEMS[c.id].wrong()
        for k, c in enumerate(concepts.CONCEPTS)
    }


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js runs the page's grader")
def test_the_page_grader_prints_what_check_prints_for_every_option():
    data = (ROOT / "docs" / "_data" / "concepts.json").read_text(encoding="utf-8")
    cases = [(c.id, L) for c in concepts.CONCEPTS for L in "abcdefgh"[: len(c.options)]]
    cases += [(c.id, "") for c in concepts.CONCEPTS]
    gains = [(40, 70), (100, 100), (0, 5), (95, 90)]
    answers = [_answers(k) for k in (0, 7, 20)]
    payload = json.dumps(
        {"data": data, "script": str(SCRIPT), "cases": cases, "gains": gains, "answers": answers}
    )
    run = subprocess.run(
        ["node", "-e", _NODE], input=payload, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    page = json.loads(run.stdout)
    for (concept_id, letter), line in zip(cases, page["verdicts"], strict=True):
        if letter:
            assert line == ex.verdict(
                concept_id, ex.grade(concept_id, letter), ITEMS[concept_id].why
            )
        else:
            assert line == f"Question {concept_id}: no answer yet."
    assert page["gains"] == [GAIN.gain(p, q) for p, q in gains] == [0.5, None, 0.05, -1.0]
    assert page["scores"] == [GAIN.score(a) for a in answers] == [0, 35, 100]


# --- scripts/concept_gain.py ------------------------------------------------------------------


def _file(folder: Path, name: str, before: int | None, after: int | None) -> Path:
    def attempt(right):
        if right is None:
            return None
        return {"answers": _answers(right), "right": right, "score": 100 * right / 20}

    record = {"format": "vitexplain-concept-check", "version": 1, "items": list(ITEMS)}
    record |= {"before": attempt(before), "after": attempt(after)}
    path = folder / f"{name}.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


def test_gain_formula_against_a_hand_computation():
    assert GAIN.gain(40, 70) == pytest.approx(30 / 60)  # (70 - 40) / (100 - 40) = 0.5
    assert GAIN.gain(50, 95) == pytest.approx(0.9)
    assert GAIN.gain(60, 50) == pytest.approx(-0.25)  # a loss is a negative gain
    assert GAIN.gain(100, 100) is None


def test_the_class_gain_over_a_folder(tmp_path):
    _file(tmp_path, "ana", 8, 14)  # 40 % -> 70 %: g = 30/60 = 0.50
    _file(tmp_path, "ben", 10, 19)  # 50 % -> 95 %: g = 45/50 = 0.90
    _file(tmp_path, "cem", 20, 20)  # 100 % -> 100 %: no gain defined
    _file(tmp_path, "dan", 6, None)  # only before
    lines = GAIN.report(tmp_path)
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:-1]}
    assert rows == {
        "ana": ["40.0", "70.0", "0.50"],
        "ben": ["50.0", "95.0", "0.90"],
        "cem": ["100.0", "100.0", "-"],
        "dan": ["30.0", "-", "-"],
    }
    # mean of (0.5, 0.9) = 0.70, sample sd = sqrt(((0.2)^2 + (0.2)^2) / 1) = 0.28; the class
    # averages over the 3 learners with both: before 63.3, after 88.3, (25/36.7) = 0.68
    assert lines[-1] == (
        "class: n = 3 learners with both scores; g = 0.70 ± 0.28 (mean ± sd of 2 learners' "
        "gains); before 63.3 %, after 88.3 %, gain of the averages 0.68"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not JSON"),
        ('{"format": "other", "version": 1}', "not a vitexplain-concept-check file of version 1"),
        ("tampered", "'after' says score 100.0, its answers give 70.0"),
        ("short", "'before' must answer cc.01 to cc.20 with a letter or ''"),
    ],
)
def test_a_malformed_file_is_refused_in_one_line(tmp_path, content, message, capsys):
    _file(tmp_path, "good", 8, 14)
    bad = _file(tmp_path, "bad", 8, 14)
    record = json.loads(bad.read_text(encoding="utf-8"))
    if content == "tampered":
        record["after"]["score"] = 100.0
        bad.write_text(json.dumps(record), encoding="utf-8")
    elif content == "short":
        del record["before"]["answers"]["cc.20"]
        bad.write_text(json.dumps(record), encoding="utf-8")
    else:
        bad.write_text(content, encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        GAIN.main([str(tmp_path)])
    text = str(stop.value.code)
    assert text.startswith(f"concept_gain: bad.json: {message}") and "\n" not in text
    assert capsys.readouterr().out == ""


def test_the_script_runs_from_the_command_line(tmp_path, monkeypatch, capsys):
    """Run as `python scripts/concept_gain.py FOLDER` runs it (its ``__main__`` block and
    argument parsing), in this process: a new one would only import torch again."""
    _file(tmp_path, "ana", 8, 14)
    monkeypatch.setattr(sys, "argv", [str(ROOT / "scripts" / "concept_gain.py"), str(tmp_path)])
    runpy.run_path(sys.argv[0], run_name="__main__")
    out = capsys.readouterr().out
    assert out.splitlines()[1].split() == ["ana", "40.0", "70.0", "0.50"]
    assert "n = 1 learners" in out
