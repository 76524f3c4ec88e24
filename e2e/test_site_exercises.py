"""The exercises on the site (docs/_ext/vx_exercises.py, docs/_js/exercises.js), in Chromium,
opened from build/html/ with every request beyond the machine blocked.

* Both graders agree: every reference answer, every wrong answer the package's grader tests use,
  the accepted number forms (a fraction typed as 1/15, a rounded decimal, a percentage where
  the spec allows one), other container forms and wrong types, and one list of typed strings
  for every value exercise (issue 38's: 94,714, 0,5, 94_714, 14*14, a 401-digit int ...) go
  through the page's grader and through ``vx.exercises`` reading the same text as Python reads
  it (``_typed.grade_text``), and the verdict lines are equal, every one.
* The forms: keyboard only (Tab to the input, type, Enter; the Check button by Space), the
  verdict in a live region, a repeated verdict said again with a count; each form says which
  forms are accepted; a worked solution for all 35 exercises in a <details> that opens without
  JavaScript (by keyboard; by a click in the axe test); no request; nothing typed is stored (in
  an exercise, a prediction or a warm-up); axe 0 in light and dark (there its colour rules) on
  notebook 07 with an exercise answered, a prediction answered by text box and one by its patch
  grid, a reveal shown and every solution open (no sideways scroll at 390 px:
  test_site_reader.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import COLOUR_RULES, VISIBLE_JS, axe_violations, block_network, start_axe
from playwright.sync_api import Browser, Page

from vitexplain import exercises as ex
from vitexplain.exercises import _typed

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "build" / "html"
PAGES = {p.stem[:2]: f"notebooks/{p.stem}.html" for p in sorted(ROOT.glob("notebooks/0*.ipynb"))}
ALL = ex.exercises()
VALUES = sorted(i for i, e in ALL.items() if e.returns is None)

# What a learner types, beyond each exercise's reference and wrong answers: the accepted number
# forms, the container forms, and the wrong answers of tests/test_exercises*.py.
TYPED = {
    "01.1": ["[196, 768]", "196, 768", "(196, 256)", "(1, 2, 3)", "abc", "(196.0, 768)"],
    "01.2": ["13.0", "[13]", "12", "14", "3", "16", "1.5", "True"],
    "01.3": ["(55, 274)", "[274, 55]", "(0, 55)"],
    "02.1": ["1/15", "0.07", "0.067", "0.0667", "6.67%", "7%", "0.1", "1/16", "0.06", "1.5", "50%"],
    "02.2": ["[0, 1]", "{0, 1}", "(0, 1)", "0, 1", "[1, 0]", "[0, 1, 2, 3]", "[0]", "[0.5]", "[]"],
    "02.4": ["2", "2.0", "2.1", "0.1", "8", "16/8"],
    "03.1": ["4080", "4080.185", "6283.185", "649.4", "100"],
    "03.2": ["False", "True", "0", "false"],
    "03.5": ["25", "24", "26", "10000000000000000000000000", "1e25", "4", "25.5"],
    "04.1": ["30", "66", "1001"],
    "04.2": ["45", "225", "29", "14", "15", "1001"],
    "04.3": ["25", "64", "5", "55", "1001"],
    "04.4": ["0", "5", "8", "1001"],
    "05.1": ["3136", "56", "55", "3025", "3136.0"],
    "05.2": ["196", "3136", "14"],
    "05.4": [
        "(20, 20, 0)",
        "[20, 20, 0]",
        "((20, 20), (20, 20), (0, 0))",
        "(20, (20, 20), 0)",
        "(20, 10, 5)",
        "(16, 20, 0)",
        "(20, 20, 1)",
        "(20, 20)",
    ],  # fmt: skip
    "06.1": ["94714", "95530", "94282", "0"],
    "06.2": ["25", "24", "6144"],
    "06.3": ["0.5", "1/2", "50%", "50", "-0.5", "150", "0.45", "0.9", "1"],
    "06.4": ["True", "False"],
    "07.1": ["443136", "442368", "151296"],
    "07.2": ["10", "16", "17", "-1"],
    "07.3": ["True", "False"],
    "08.1": ["0.10", "0.1", "0.104", "0.1037", "0.112", "0.11", "0.23", "0.99", "0.0", "2"],
    "08.2": ["34", "0", "396", "397", "-1"],
}


# Typed into every value exercise: issue 38's inputs and the grammar's corners (both graders
# must read each as Python reads it, and name the same slips).
EVERYWHERE = [
    "94,714", "4,080", "3,136", "443,136", "0,5", "1,234,567", "-94,714", "0,500", "3,05",
    "94_714", "14*14", "9*5", "24+1", "16/8", "2**10", "2**-1", "-2**2", "-(3)", "(13,)", "13,",
    "1" + "0" * 400, "1e400", "10**400", "1/0", "0.0**-1", "(-8)**(1/3)", "2**200", "1e25",
    "9007199254740993", "0x1F", "0777", "007.5", "1_000.5", "1__0", "1j", "1.2.3", "{}", "()",
    "{1, 1.0, True}", "[[[[[[[[[13]]]]]]]]]", "True + 1", "1 # note", "1//2", "50%", "None", "x",
]  # fmt: skip


def cases() -> list[tuple[str, str]]:
    found = []
    for exercise_id in VALUES:
        item = ALL[exercise_id]
        answer = item.grade.answer
        reference = repr(list(answer) if item.grade.kind == "int_set" else answer)
        found += [(exercise_id, reference), (exercise_id, repr(item.wrong()))]
        found += [(exercise_id, text) for text in TYPED.get(exercise_id, []) + EVERYWHERE]
    return found


def _open(page: Page, name: str) -> list[str]:
    attempted = block_network(page.context)
    page.goto((SITE / name).as_uri(), wait_until="load")
    return attempted


pytestmark = pytest.mark.usefixtures("built_site")  # conftest.py: fails without `make html`


@pytest.fixture
def page(site_page: Page) -> Page:
    """A page of its own, in a context the module's tests share (conftest.py)."""
    return site_page


def test_every_typed_answer_gets_the_same_verdict_from_both_graders(reading):
    by_notebook: dict[str, list[tuple[str, str]]] = {}
    for exercise_id, text in cases():
        by_notebook.setdefault(exercise_id[:2], []).append((exercise_id, text))
    compared, disagree = 0, []
    for notebook, items in by_notebook.items():
        page = reading(PAGES[notebook])
        typed = [text for _, text in items]
        ids = [exercise_id for exercise_id, _ in items]
        on_page = page.evaluate(
            "([ids, typed]) => ids.map((id, i) => window.vxExercises.verdict(id, typed[i]))",
            [ids, typed],
        )
        for (exercise_id, text), site in zip(items, on_page, strict=True):
            python = ex.verdict(exercise_id, _typed.grade_text(ALL[exercise_id].grade, text))
            compared += 1
            if site != python:
                disagree.append((exercise_id, text, python, site))
    assert disagree == [], "\n".join(map(str, disagree))
    assert compared >= 180 + 25 * len(EVERYWHERE), compared


def test_the_accepted_forms_are_right_and_the_wrong_ones_are_not(reading):
    page = reading(PAGES["02"])
    verdict = lambda text: page.evaluate("t => window.vxExercises.verdict('02.1', t)", text)  # noqa: E731
    for text in ("1/15", "0.07", "0.067", "6.67%", "7%"):
        assert verdict(text) == "Exercise 02.1: right.", text
    for text in ("1/16", "0.06", "0.1"):
        assert verdict(text).startswith("Exercise 02.1: not yet. Hint: "), text


def test_an_answer_is_checked_by_keyboard_and_announced(page: Page):
    assert _open(page, PAGES["01"]) == []
    field = page.locator("#vx-answer-01-2")
    field.focus()
    page.keyboard.type("3")
    page.keyboard.press("Enter")
    verdict = page.locator("#vx-exercise-01-2 .vx-verdict")
    assert (
        verdict.get_attribute("aria-live") == "polite" and verdict.get_attribute("role") == "status"
    )
    assert verdict.inner_text() == ex.verdict("01.2", ex.grade("01.2", 3))
    field.fill("")
    page.keyboard.type("13")
    page.keyboard.press("Tab")  # to the Check button
    assert page.evaluate("document.activeElement.textContent") == "Check"
    page.keyboard.press("Space")
    assert verdict.inner_text() == "Exercise 01.2: right."
    assert page.errors == []


def test_the_same_verdict_again_is_said_again(page: Page):
    """A second wrong answer with the same verdict changes the line (and so is announced)."""
    assert _open(page, PAGES["06"]) == []
    field, verdict = page.locator("#vx-answer-06-1"), page.locator("#vx-exercise-06-1 .vx-verdict")
    wrong = ex.verdict("06.1", ex.grade("06.1", 0))
    shown = []
    for text in ("0", "0", "-0", "1.5"):
        field.fill(text)
        field.press("Enter")
        shown.append(verdict.inner_text())
    assert shown[:3] == [wrong, "Again (2nd time): " + wrong, "Again (3rd time): " + wrong]
    assert shown[3] == ex.verdict("06.1", ex.grade("06.1", 1.5))  # another verdict: no count
    assert verdict.get_attribute("aria-live") == "polite"


def test_each_form_says_what_it_accepts(reading):
    for notebook in ("01", "06"):
        page = reading(PAGES[notebook])
        # every text box says it (a prediction's note on its folded reveal is another matter)
        for note in page.locator(".vx-forms:not(.vx-reveal-note)").all():
            text = note.inner_text()
            assert "94_714" in text and "14*14" in text and "a comma makes a tuple" in text


# Every exercise box of the page: [its id, its solution's summary, the solution's first
# paragraph shown, its text, its form shown]
SOLUTIONS = (
    "() => { "
    + VISIBLE_JS
    + """
  return [...document.querySelectorAll(".vx-exercise")].map(box => {
    const details = box.querySelector("details.vx-solution");
    return [box.id, details.querySelector("summary").innerText,
            visible(details.querySelector("p")), details.innerText,
            visible(box.querySelector("form"))];
  });
}"""
)


SUMMARIES = ".vx-exercise details.vx-solution summary"


def test_every_exercise_has_a_worked_solution_that_opens_without_javascript(browser: Browser):
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        seen = set()
        for name in PAGES.values():
            page.goto((SITE / name).as_uri(), wait_until="load")
            closed = page.evaluate(SOLUTIONS)  # the page's scripts do not run: DevTools' do
            for i in range(len(closed)):  # each opened by keyboard, with no script (a click on
                # one opens it in the axe test below): the focus put on it, then Enter
                page.evaluate(f"(i) => document.querySelectorAll({SUMMARIES!r})[i].focus()", i)
                page.keyboard.press("Enter")
            opened = page.evaluate(SOLUTIONS)
            for (box, summary, shown, _, _), (_, _, now, text, form) in zip(
                closed, opened, strict=True
            ):
                exercise_id = box.removeprefix("vx-exercise-").replace("-", ".")
                assert "try it first" in summary
                assert not shown and now, exercise_id  # closed until asked
                assert ALL[exercise_id].why in text
                if ALL[exercise_id].returns is not None:
                    assert repr(ex.solution(exercise_id)) in text
                    assert f'vx.exercises.check("{exercise_id}"' in text and "JupyterLab" in text
                else:
                    assert not form  # the form needs JavaScript
                seen.add(exercise_id)
        assert seen == set(ALL)
    finally:
        context.close()


def test_the_page_says_what_is_stored_and_stores_nothing(page: Page):
    # One page with an exercise, predictions and a warm-up: nothing typed in any of them is kept.
    _open(page, PAGES["06"])
    note = page.locator("#vx-forms-06-3").inner_text()
    assert "nothing you type is sent anywhere or stored" in note
    stored = "JSON.stringify([{...localStorage}, {...sessionStorage}, document.cookie])"
    before = page.evaluate(stored)  # the theme keeps its light/dark choice there
    page.locator("#vx-answer-06-3").fill("0.5")
    page.locator("#vx-answer-06-3").press("Enter")
    assert page.locator("#vx-exercise-06-3 .vx-verdict").inner_text() == "Exercise 06.3: right."
    assert page.evaluate(stored) == before
    _open(page, PAGES["05"])
    before = page.evaluate(stored)
    page.locator("#vx-answer-05-p1").fill("15")
    page.locator("#vx-answer-05-p1").press("Enter")
    page.locator("#vx-prompt-05-p2 button.vx-show").click()
    page.locator("#vx-answer-05-w1").fill("15")
    page.locator("#vx-answer-05-w1").press("Enter")
    assert page.locator("#vx-prompt-05-w1 .vx-verdict").inner_text() == "Warm-up 05.w1: right."
    assert page.evaluate(stored) == before


def test_exercises_predictions_and_a_patch_grid_answered_have_no_axe_violation(
    browser: Browser, browser_context_args
):
    """axe on notebook 07 once an exercise, a prediction by text box and one by its patch grid
    are answered, a reveal shown by "Show me" and every worked solution opened: on what
    answering changes, every exercise and prompt box and the notebook cell after each box (its
    reveal); test_site.py runs axe on every whole page as loaded. In light and dark mode at
    once: all of axe's rules in light, its colour rules in dark (conftest.py: only colours
    change with the mode)."""
    pages = {}
    try:
        for mode in ("light", "dark"):
            context = browser.new_context(**browser_context_args, color_scheme=mode)
            page = pages[mode] = context.new_page()
            assert _open(page, PAGES["07"]) == []
            page.locator("#vx-answer-07-1").fill("442368")  # a wrong answer: its verdict explains
            page.locator("#vx-answer-07-1").press("Enter")
            page.locator("#vx-answer-07-p3").fill("True")
            page.locator("#vx-answer-07-p3").press("Enter")
            grid = page.locator("#vx-prompt-07-p2 .vx-grid")
            grid.get_by_role("button", name="patch 5, row 1, column 5").click()
            grid.get_by_role("button", name="patch 6, row 2, column 1").click()
            assert page.locator("#vx-answer-07-p2").input_value() == "[5, 6]"
            page.locator("#vx-prompt-07-p1 button.vx-show").click()
            for details in page.locator("details.vx-solution").all():
                details.locator("summary").click()
            for slug in ("07-p1", "07-p3"):
                assert page.locator(f"#vx-prompt-{slug} + .cell .cell_output").is_visible()
            assert "not yet" in page.locator("#vx-exercise-07-1 .vx-verdict").inner_text()
            changed = {
                "include": [[".vx-exercise"], [".vx-prompt-box"], [".vx-prompt-box + .cell"]]
            }
            start_axe(page, changed, None if mode == "light" else COLOUR_RULES)
        for mode, page in pages.items():
            violations = axe_violations(page)
            assert violations == [], f"{mode}:\n" + "\n".join(violations)
    finally:
        for page in pages.values():
            page.context.close()
