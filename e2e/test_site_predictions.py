"""Predictions and warm-ups on the site (docs/_ext/vx_exercises.py, docs/_js/exercises.js), in
Chromium, opened from build/html/ with every request beyond the machine blocked.

* A prediction hides its reveal (the output of the next notebook cell) until a guess is checked
  or "Show me" is pressed, by keyboard alone; the verdict, in a live region, is the line
  ``vx.exercises.check`` prints, with the explanation of the common wrong guess.
* Both graders agree on every reference and wrong answer of every prediction and warm-up, in
  the browser (tests/test_predictions.py also runs the page's grader in Node).
* Without JavaScript nothing is hidden: the forms stay hidden, the reveals are shown.
* A prediction answered by patch numbers (07.p2) has a grid of toggle buttons, named and
  pressed by keyboard, that writes the sorted list into the text box, and typing in the box
  presses the patches it names; Check grades the box's text, as check() grades that list. At
  390 px the grid fits without sideways scroll, its targets at least 44 px.
* That nothing is stored, and axe on a page with predictions answered (by text box and by
  the patch grid) and a reveal shown: test_site_exercises.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import VISIBLE_JS, block_network
from playwright.sync_api import Browser, Page

from vitexplain import exercises as ex

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "build" / "html"
PAGES = {p.stem[:2]: f"notebooks/{p.stem}.html" for p in sorted(ROOT.glob("notebooks/0*.ipynb"))}
PROMPTS = ex.prompts()

pytestmark = pytest.mark.usefixtures("built_site")  # conftest.py: fails without `make html`


def _open(page: Page, name: str) -> list[str]:
    attempted = block_network(page.context)
    page.goto((SITE / name).as_uri(), wait_until="load")
    return attempted


@pytest.fixture
def page(site_page: Page) -> Page:
    """A page of its own, in a context the module's tests share (conftest.py)."""
    return site_page


def _reveal(page: Page, slug: str):
    """The output of the notebook cell right after a prediction's box."""
    return page.locator(f"#vx-prompt-{slug} + .cell .cell_output")


def _tab_to(page: Page, selector: str, limit: int = 600, key: str = "Tab") -> None:
    """Press Tab (or `key`) until the element matching `selector` has the focus."""
    for _ in range(limit):
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            return
        page.keyboard.press(key)
    raise AssertionError(f"{selector} not reached in {limit} {key} presses")


# Per prompt id: its form shown (one), the reveals after its box, the first shown, "Show me"
# shown, the reveal note's text, its worked solutions (a warm-up's).
PROMPT_BOXES = (
    "(ids) => { "
    + VISIBLE_JS
    + """
  return ids.map(id => {
    const slug = id.replace(".", "-"), box = document.getElementById("vx-prompt-" + slug);
    const forms = box.querySelectorAll("form.vx-prompt");
    const reveals = document.querySelectorAll(`#vx-prompt-${slug} + .cell .cell_output`);
    const note = box.querySelector(".vx-reveal-note");
    return [forms.length === 1 && visible(forms[0]), reveals.length, visible(reveals[0]),
            visible(box.querySelector("button.vx-show")), note ? note.innerText : "",
            box.querySelectorAll("details.vx-solution").length];
  });
}"""
)


def test_every_prediction_hides_its_reveal_and_every_prompt_has_its_form(reading):
    for number in sorted({i[:2] for i in PROMPTS}):
        ids = [i for i in PROMPTS if i.startswith(number)]
        boxes = reading(PAGES[number]).evaluate(PROMPT_BOXES, ids)
        for prompt_id, box in zip(ids, boxes, strict=True):
            form, reveals, shown, show, note, solutions = box
            assert form, prompt_id
            if prompt_id[3] == "p":
                assert reveals == 1 and not shown, prompt_id
                assert show and "folded" in note, prompt_id
            else:
                assert solutions == 1, prompt_id


def test_a_guess_typed_by_keyboard_reveals_the_result(page: Page):
    assert _open(page, PAGES["02"]) == []
    reveal = _reveal(page, "02-p2")
    assert not reveal.is_visible()
    _tab_to(page, "#vx-answer-02-p2")
    page.keyboard.type("4")
    page.keyboard.press("Enter")
    verdict = page.locator("#vx-prompt-02-p2 .vx-verdict")
    assert verdict.get_attribute("role") == "status"
    assert verdict.get_attribute("aria-live") == "polite"
    python = ex.verdict("02.p2", ex.grade("02.p2", 4), PROMPTS["02.p2"].why)
    assert verdict.inner_text() == python
    assert "a sum ignores the order" in python  # the common wrong guess, explained
    assert reveal.is_visible()
    assert page.evaluate("document.activeElement.id") == "vx-answer-02-p2"
    page.keyboard.press("Control+A")
    page.keyboard.type("2")
    page.keyboard.press("Enter")
    assert verdict.inner_text() == f"Prediction 02.p2: right. {PROMPTS['02.p2'].why}"
    assert page.errors == []


def test_a_choice_is_made_by_keyboard_and_show_me_reveals_without_a_guess(page: Page):
    assert _open(page, PAGES["01"]) == []
    reveal = _reveal(page, "01-p2")
    assert not reveal.is_visible()
    _tab_to(page, 'input[name="vx-guess-01-p2"]')
    page.keyboard.press("ArrowDown")  # (a) -> (b), the radio group's own keys
    assert page.evaluate("document.activeElement.value") == "b"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Check"
    page.keyboard.press("Space")
    verdict = page.locator("#vx-prompt-01-p2 .vx-verdict")
    assert verdict.inner_text() == f"Prediction 01.p2: right. {PROMPTS['01.p2'].why}"
    assert reveal.is_visible()

    other = _reveal(page, "01-p3")
    assert not other.is_visible()
    _tab_to(page, "#vx-prompt-01-p3 button.vx-show")
    assert page.locator("#vx-prompt-01-p3 button.vx-show").inner_text() == "Show me"
    page.keyboard.press("Enter")
    assert other.is_visible()
    shown = page.locator("#vx-prompt-01-p3 .vx-verdict").inner_text()
    assert shown == f"Prediction 01.p3: {PROMPTS['01.p3'].why}"
    assert page.errors == []


def _pressed(page: Page, slug: str) -> list[int]:
    cells = page.locator(f"#vx-prompt-{slug} .vx-grid button[aria-pressed=true]")
    return [int(n) for n in cells.all_inner_texts()]


def test_patches_pressed_by_keyboard_on_the_grid_are_graded_as_typed(page: Page):
    assert _open(page, PAGES["07"]) == []
    reveal, box = _reveal(page, "07-p2"), page.locator("#vx-answer-07-p2")
    cells = page.locator("#vx-prompt-07-p2 .vx-grid button")
    assert not reveal.is_visible() and cells.count() == 3 * 5
    assert page.locator("#vx-prompt-07-p2 .vx-grid").get_attribute("role") == "group"
    for number, row, column in ((1, 1, 1), (5, 1, 5), (6, 2, 1), (12, 3, 2), (15, 3, 5)):
        name = f"patch {number}, row {row}, column {column}"
        assert page.get_by_role("button", name=name, exact=True).inner_text() == str(number)
    assert _pressed(page, "07-p2") == [] and box.input_value() == ""

    _tab_to(page, "#vx-prompt-07-p2 .vx-grid button")  # patch 1
    focus = "getComputedStyle(document.activeElement).outlineStyle"
    assert page.evaluate(focus) == "solid"
    for step, key in ((4, "Space"), (1, "Enter"), (4, "Space"), (1, "Space")):  # 5, 6, 10, 11
        for _ in range(step):
            page.keyboard.press("Tab")
        page.keyboard.press(key)
    assert box.input_value() == "[5, 6, 10, 11]"
    assert _pressed(page, "07-p2") == [5, 6, 10, 11]
    assert cells.nth(10).get_attribute("aria-pressed") == "true"
    page.keyboard.press("Space")  # 11 again: out of the list, and back
    assert box.input_value() == "[5, 6, 10]" and _pressed(page, "07-p2") == [5, 6, 10]
    page.keyboard.press("Space")
    _tab_to(page, "#vx-prompt-07-p2 button[type=submit]", limit=6)  # past patches 12 to 15
    assert page.evaluate("document.activeElement.textContent") == "Check"
    page.keyboard.press("Enter")
    verdict = page.locator("#vx-prompt-07-p2 .vx-verdict")
    why = PROMPTS["07.p2"].why
    assert verdict.inner_text() == ex.verdict("07.p2", ex.grade("07.p2", [5, 6, 10, 11]), why)
    assert verdict.inner_text() == f"Prediction 07.p2: right. {why}"
    assert reveal.is_visible()

    _tab_to(page, "#vx-answer-07-p2", key="Shift+Tab")  # typing presses the patches
    page.keyboard.press("Control+A")
    page.keyboard.type("{15, 1, 99}")
    assert _pressed(page, "07-p2") == [1, 15]
    page.keyboard.press("Enter")
    python = ex.verdict("07.p2", ex.grade("07.p2", {15, 1, 99}), why)
    assert verdict.inner_text() == python and "not quite" in python
    page.keyboard.press("Control+A")
    page.keyboard.type("abc")
    assert _pressed(page, "07-p2") == []
    _tab_to(page, "#vx-prompt-07-p2 .vx-grid button", limit=2)  # patch 1; arrows move along
    for key, number in (("ArrowRight", 2), ("ArrowDown", 7), ("ArrowLeft", 6), ("ArrowUp", 1)):
        page.keyboard.press(key)
        assert page.evaluate("document.activeElement.dataset.patch") == str(number)
    page.keyboard.press("ArrowLeft")  # at the edge: stays
    assert page.evaluate("document.activeElement.dataset.patch") == "1"
    assert page.errors == []


def test_the_grid_fits_a_phone(browser: Browser, browser_context_args):
    phone = {**browser_context_args, "viewport": {"width": 390, "height": 844}}
    context = browser.new_context(**phone)
    try:
        page = context.new_page()
        assert _open(page, PAGES["07"]) == []
        grid = page.locator("#vx-prompt-07-p2 .vx-grid")
        grid.scroll_into_view_if_needed()
        sizes = [c.bounding_box() for c in grid.locator("button").all()]
        assert len(sizes) == 15
        assert min(min(b["width"], b["height"]) for b in sizes) >= 44
        assert max(b["x"] + b["width"] for b in sizes) <= 390
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()


def test_both_graders_agree_on_every_prompt_in_the_browser(reading):
    compared = 0
    for number in sorted({i[:2] for i in PROMPTS}):
        page = reading(PAGES[number])
        for prompt_id in (i for i in PROMPTS if i.startswith(number)):
            item = PROMPTS[prompt_id]
            for value in (item.grade.answer, item.wrong()):
                if isinstance(value, tuple | list):
                    text = repr(list(value))
                else:
                    text = value if isinstance(value, str) else repr(value)
                site = page.evaluate(
                    "([id, t]) => window.vxExercises.promptVerdict(id, t)", [prompt_id, text]
                )
                assert site == ex.verdict(prompt_id, ex.grade(prompt_id, value), item.why)
                compared += 1
    assert compared == 2 * len(PROMPTS)


def test_without_javascript_every_reveal_is_shown(browser: Browser):
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        for number in ("03", "07"):  # 07.p2: its grid hidden with its form
            page.goto((SITE / PAGES[number]).as_uri(), wait_until="load")
            for prompt_id in (i for i in PROMPTS if i.startswith(f"{number}.p")):
                slug = prompt_id.replace(".", "-")
                assert not page.locator(f"#vx-prompt-{slug} form").is_visible()
                assert _reveal(page, slug).is_visible(), prompt_id
    finally:
        context.close()
