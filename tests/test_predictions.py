"""Predictions ("NN.pk": the learner's guess before a cell shows the result) and warm-ups
("NN.wk": questions on earlier notebooks) are graded like the exercises, by one spec and two
graders: ``vx.exercises.check`` in the kernel and docs/_js/exercises.js in the page (run here in
Node with the page's data, as the site inlines it; e2e/test_site_predictions.py runs it in
Chromium).

Each prompt's reference answer, recomputed by its worked solution, is the spec's answer and is
graded right; its typical wrong answer gets the explanation written for it (a rule's hint, not
the default); both graders print the same line for the same typed text."""

import functools
import json
import re
import shutil
import subprocess
from pathlib import Path

import export_exercises
import pytest
from exercise_cases import grouped

from vitexplain import exercises as ex
from vitexplain.exercises import _rules

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "docs" / "_js" / "exercises.js"
PROMPTS = ex.prompts()
PREDICTIONS = sorted(i for i in PROMPTS if i[3] == "p")
WARMUPS = sorted(i for i in PROMPTS if i[3] == "w")
NUMBERS = sorted(p.name[:2] for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))

# Typed answers beyond each prompt's reference and wrong answer, through both graders.
TYPED = {
    "01.p1": ["2.5e9", "1e9", "5e9", "50176", "1e6", "abc"],
    "01.p2": ["b", "B", "(b)", " b. ", "a", "c", "d", "3", "True"],
    "01.p3": ["6", "6.0", "12", "2", "6.5"],
    "02.w1": ["24", "64", "[24]", "24.0"],
    "02.p1": ["c", "a", "b"],
    "02.p2": ["2", "4", "0", "3"],
    "02.p3": ["c", "a", "b"],
    "03.w1": ["0.125", "1/8", "8", "0.1"],
    "03.w2": ["True", "False", "1"],
    "03.p1": ["72", "100", "5", "200", "32"],
    "03.p2": ["a", "b", "c"],
    "03.p3": ["15", "11", "14"],
    "04.w1": ["6.28", "6.283", "1", "2"],
    "04.p1": ["False", "True"],
    "04.p2": ["30", "32", "64", "1024", "2"],
    "04.p3": ["0.94", "94%", "0.1", "0.5"],
    "05.w2": ["13", "7", "49", "14"],
    "05.p1": ["60", "15", "45", "50"],
    "05.p2": ["175", "100", "200", "225"],
    "05.p3": ["0.75", "75%", "0.1", "0.25"],
    "06.w1": ["768", "256", "196", "768.0"],
    "06.w2": ["False", "True", "0"],
    "06.p1": ["b", "B", "(b)", "a", "c"],
    "06.p2": ["0", "128", "64", "129", "-1", "0.0"],
    "06.p3": [
        "[10, 11, 12]",
        "{12, 11, 10}",
        "[13, 14, 15]",
        "[10, 11, 12, 13, 14, 15]",
        "[]",
        "[11]",
    ],
    "06.p4": ["1", "6", "0", "3", "7"],
    "07.p1": ["b", "a", "c"],
    "07.p2": ["[5, 6, 10, 11]", "{11, 10, 6, 5}", "[]", "[5, 6]", "[1, 5]", "5"],
    "07.p3": ["True", "False"],
    "08.w1": ["320", "256", "5120", "4096", "1088", "320.0"],
    "08.w2": ["1088", "1024", "0", "17", "1088.0"],
    "08.p1": ["b", "a", "c", "(b)"],
    "08.p2": ["0.97", "97%", "0.5", "0.65", "1", "97", "0.9"],
    "08.p3": ["3.8", "4", "1.5", "0", "3", "9"],
    "08.p4": ["d", "D", "a", "b", "c"],
    "09.w1": ["17", "16", "4", "64", "65", "17.0"],
    "09.w2": ["2", "1", "4", "5", "0"],
    "09.p1": ["c", "(c)", "a", "b", "g"],
    "09.p2": ["e", "E", "b", "c", "d", "a", "f", "g"],
    "09.p3": ["False", "True", "0"],
    "09.p4": ["c", "a", "b"],
}


@functools.cache
def reference(prompt_id):
    """The worked solution's answer, computed once (07's train a small ViT)."""
    return PROMPTS[prompt_id].solution()


def python_value(text: str, percent: bool):
    """The typed text as the same answer in Python (as e2e/test_site_exercises.py reads it)."""
    if percent and text.endswith("%"):
        return float(text[:-1]) / 100
    try:
        return eval(text, {"__builtins__": {}})  # the test's own literals, nothing else
    except (NameError, SyntaxError):
        return text


def test_ids_and_counts():
    """At least 3 predictions in every notebook, 30 in all (issue 38), 2 or 3 warm-ups in every
    notebook from 02 on, none in notebook 01; ids numbered per notebook."""
    for prompt_id in PROMPTS:
        assert re.fullmatch(r"0[1-9]\.[pw][1-9]", prompt_id), prompt_id
    assert not set(PROMPTS) & set(ex.exercises())
    for number in NUMBERS:
        predictions = [i for i in PREDICTIONS if i.startswith(number)]
        warmups = [i for i in WARMUPS if i.startswith(number)]
        assert len(predictions) >= 3, number
        assert 2 <= len(warmups) <= 3 if number != "01" else not warmups, number
        assert [i[-1] for i in predictions] == [str(k) for k in range(1, len(predictions) + 1)]
    assert len(PREDICTIONS) >= 30


@pytest.mark.parametrize("prompt_id", grouped(sorted(PROMPTS)))
def test_the_spec_answer_is_the_worked_solution_and_is_right(prompt_id, one_thread):
    spec, computed = PROMPTS[prompt_id].grade, reference(prompt_id)
    if isinstance(spec, ex.ChoiceSpec):
        assert computed == spec.answer and spec.answer in spec.letters
    elif spec.kind == "number":
        assert abs(computed - spec.answer) <= 1e-9 * max(1.0, abs(spec.answer))
    elif spec.kind == "int_set":
        assert set(computed) == set(spec.answer)
    else:
        assert computed == spec.answer and type(computed) is type(spec.answer)
    assert ex.grade(prompt_id, computed) is None


@pytest.mark.parametrize("prompt_id", sorted(PROMPTS))
def test_the_typical_wrong_answer_gets_its_explanation(prompt_id):
    """The wrong answer a prompt names is refused with a rule's own hint (a prediction's: why
    that guess is wrong), never the default or a type error."""
    item = PROMPTS[prompt_id]
    hint = ex.grade(prompt_id, item.wrong())
    rules = [r.hint for r in item.grade.rules]
    if prompt_id in WARMUPS and not rules:  # a True/False warm-up has only its default
        assert hint == item.grade.default
    else:
        assert hint in rules, (prompt_id, hint)
    assert len(item.why) > 40


def test_check_prints_the_verdict_and_the_explanation(capsys):
    ex.check("02.p2", ...)
    ex.check("02.p2", 4)
    ex.check("02.p2", 2)
    ex.check("02.w1", 64)
    ex.check("02.w1", 24)
    ex.check("02.w1", ...)
    lines = capsys.readouterr().out.splitlines()
    item = PROMPTS["02.p2"]
    assert lines == [
        "Prediction 02.p2: no guess yet: replace ... with yours and run the cell, then the next.",
        f"Prediction 02.p2: not quite: {item.grade.rules[0].hint}",
        f"Prediction 02.p2: right. {item.why}",
        f"Warm-up 02.w1: not yet. Hint: {PROMPTS['02.w1'].grade.rules[0].hint}",
        "Warm-up 02.w1: right.",
        "Warm-up 02.w1: no answer yet: replace ... with yours and run the cell again.",
    ]


def test_a_choice_reads_a_letter_as_a_learner_writes_it():
    spec = PROMPTS["01.p2"].grade
    for right in ("b", "B", "(b)", " b. ", "b)"):
        assert _rules.grade_choice(spec, right) is None, right
    assert _rules.grade_choice(spec, "a") == spec.rules[0].hint
    assert _rules.grade_choice(spec, "c") == spec.default
    for wrong, got in (("d", "a str ('d')"), (2, "an int (2)"), (None, "None"), ("bc", "a str")):
        hint = _rules.grade_choice(spec, wrong)
        assert hint.startswith("expected one of the letters 'a', 'b', 'c', got " + got), hint
    assert ex.solution("01.p2") == "b"


def _page_data() -> dict:
    """What the site inlines on a page (docs/_ext/vx_exercises.py, _script) for its prompts."""
    data = export_exercises.export()
    return {
        "verdict": data["verdict"],
        "typed": data["typed"],
        "specs": {i: e["spec"] for i, e in data["prompts"].items()},
        "prompt_verdict": data["prompt_verdict"],
        "prompts": data["prompts"],
    }


_NODE = """
const fs = require("fs");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
global.window = {};
global.document = {
  getElementById: () => ({ textContent: JSON.stringify(input.data) }),
  querySelectorAll: () => [],
};
new Function(fs.readFileSync(input.script, "utf8"))();
const verdict = window.vxExercises.promptVerdict;
console.log(JSON.stringify(input.cases.map(([id, text]) => verdict(id, text))));
"""


def _cases() -> list[tuple[str, str]]:
    found = []
    for prompt_id, item in PROMPTS.items():
        spec = item.grade
        wrong = item.wrong()
        for value in (spec.answer, wrong):
            if isinstance(value, str):
                found.append((prompt_id, value))
            else:
                found.append((prompt_id, repr(list(value) if isinstance(value, tuple) else value)))
        found += [(prompt_id, text) for text in TYPED.get(prompt_id, [])]
    return found


@pytest.mark.cpu_independent  # no float of PyTorch or NumPy compared: not in make test-baseline
@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js runs the page's grader")
def test_the_page_grader_prints_what_check_prints():
    """Every reference, wrong and typed answer: the page's line equals check()'s line."""
    cases = _cases()
    payload = json.dumps({"data": _page_data(), "script": str(SCRIPT), "cases": cases})
    run = subprocess.run(
        ["node", "-e", _NODE], input=payload, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    on_page = json.loads(run.stdout)
    for (prompt_id, text), line in zip(cases, on_page, strict=True):
        item = PROMPTS[prompt_id]
        value = python_value(text, getattr(item.grade, "percent", False))
        if isinstance(item.grade, ex.ChoiceSpec) and text in item.grade.letters:
            value = text
        python = ex.verdict(prompt_id, ex.grade(prompt_id, value), item.why)
        assert line == python, (prompt_id, text)
    rights = sum(line.endswith(PROMPTS[i].why) for (i, _), line in zip(cases, on_page, strict=True))
    assert rights >= len(PREDICTIONS)  # every prediction's reference at least
