"""The concept check page (docs/concepts.md, docs/_ext/vx_concepts.py, docs/_js/concepts.js), in
Chromium, opened from build/html/ with every request beyond the machine blocked.

* Every option's link leads to an existing section of a notebook's page.
* The page's grader prints what ``vx.exercises.check`` prints, for every option of every item.
* Before and after, by keyboard: each score is shown, kept in localStorage over a reload, and the
  gain shown once both exist; the downloaded JSON file gives the same scores and gain through
  scripts/concept_gain.py; "Forget my answers" empties the storage.
* The index links to the page; axe 0 in light and dark.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from conftest import COLOUR_RULES, axe_violations, block_network, start_axe
from playwright.sync_api import Browser, Page

from vitexplain import exercises as ex
from vitexplain.exercises import concepts

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "build" / "html"
ITEMS = concepts.items()

pytestmark = pytest.mark.usefixtures("built_site")  # conftest.py: fails without `make html`


def _gain_script():
    spec = importlib.util.spec_from_file_location("gain", ROOT / "scripts" / "concept_gain.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def page(browser: Browser, browser_context_args: dict) -> Page:
    context = browser.new_context(**browser_context_args, accept_downloads=True)
    fresh = context.new_page()
    fresh.errors = []
    fresh.on("pageerror", lambda error: fresh.errors.append(str(error)))
    fresh.attempted = block_network(context)
    fresh.goto((SITE / "concepts.html").as_uri(), wait_until="load")
    yield fresh
    assert fresh.errors == [] and fresh.attempted == []
    context.close()


def _answer(page: Page, right: int) -> None:
    """Choose the right option in the first `right` questions, a misconception in the others."""
    for k, concept in enumerate(concepts.CONCEPTS):
        letter = concept.answer if k < right else ITEMS[concept.id].wrong()
        page.locator(f"input[name='{concept.id}'][value='{letter}']").check()


def test_every_option_links_to_an_existing_section(page: Page):
    links = page.locator(".vx-cc-links a")
    hrefs = links.evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert len(hrefs) == sum(len(c.options) for c in concepts.CONCEPTS)
    for href in set(hrefs):
        path, _, fragment = href.partition("#")
        text = (SITE / path).read_text(encoding="utf-8")
        assert re.search(rf'<section id="{re.escape(fragment)}"', text), href
    index = (SITE / "index.html").read_text(encoding="utf-8")
    assert index.count('href="concepts.html"') >= 2  # before the series and after 08/09


def test_the_page_grader_equals_check_for_every_option(page: Page):
    cases = [(c.id, L) for c in concepts.CONCEPTS for L in "abcdefgh"[: len(c.options)]]
    lines = page.evaluate(
        """cases => {
          const items = JSON.parse(document.getElementById("vx-concepts-data").textContent).items;
          return cases.map(([id, l]) => window.vxConcepts.verdict(items.find(i => i.id === id), l));
        }""",
        cases,
    )
    for (concept_id, letter), line in zip(cases, lines, strict=True):
        assert line == ex.verdict(concept_id, ex.grade(concept_id, letter), ITEMS[concept_id].why)


def test_before_and_after_by_keyboard_kept_and_downloaded(page: Page, tmp_path: Path):
    summary = page.locator(".vx-cc-summary")
    assert summary.get_attribute("aria-live") == "polite"
    assert summary.inner_text() == "No answers saved yet."
    page.locator("button[type=submit]").press("Enter")  # nothing chosen: nothing saved
    assert summary.inner_text() == "No option chosen yet: choose at least one, then grade."
    assert page.evaluate("localStorage.getItem('vitexplain-concept-check')") is None
    _answer(page, 8)
    # the first question by keyboard: focus its first option, arrow to the right one
    first = concepts.CONCEPTS[0]
    page.locator(f"input[name='{first.id}'][value='a']").focus()
    page.keyboard.press("ArrowDown")
    assert page.locator(f"input[name='{first.id}']:checked").get_attribute("value") == "b"
    page.locator("button[type=submit]").focus()
    page.keyboard.press("Enter")
    assert summary.inner_text() == "Before: 8 of 20 right (40 %)."
    verdict = page.locator("#vx-cc-verdict-cc-20").inner_text()
    assert verdict == ex.verdict("cc.20", ex.grade("cc.20", ITEMS["cc.20"].wrong()))

    page.reload(wait_until="load")  # kept in this browser; "after" is offered next
    assert summary.inner_text() == "Before: 8 of 20 right (40 %)."
    assert page.locator("input[name=vx-cc-when][value=after]").is_checked()
    assert page.locator("input[name='cc.01']:checked").count() == 0
    _answer(page, 14)
    page.locator("button[type=submit]").press("Enter")
    assert summary.inner_text() == (
        "Before: 8 of 20 right (40 %). After: 14 of 20 right (70 %). "
        "Your normalised gain g = (70 − 40) / (100 − 40) = 0.50."
    )
    with page.expect_download() as download:
        page.locator("button.vx-cc-download").press("Enter")
    assert download.value.suggested_filename == "vitexplain-concept-check.json"
    download.value.save_as(tmp_path / "learner.json")
    lines = _gain_script().report(tmp_path)
    assert lines[1].split() == ["learner", "40.0", "70.0", "0.50"]
    assert "n = 1 learners" in lines[-1]

    page.locator("button.vx-cc-forget").press("Enter")
    assert summary.inner_text() == "No answers saved yet."
    assert page.evaluate("localStorage.getItem('vitexplain-concept-check')") is None


def test_every_control_has_a_name(page: Page):
    for control in page.locator("#vx-concepts input, #vx-concepts button").all():
        name = control.evaluate(
            "e => e.labels && e.labels.length ? e.labels[0].textContent : e.textContent"
        )
        assert name.strip(), control


def test_without_javascript_the_questions_and_links_are_there(
    browser: Browser, browser_context_args
):
    context = browser.new_context(**browser_context_args, java_script_enabled=False)
    try:
        page = context.new_page()
        assert block_network(context) == []
        page.goto((SITE / "concepts.html").as_uri(), wait_until="load")
        assert page.locator(".vx-cc-item fieldset:visible").count() == 20
        assert page.locator(".vx-cc-links summary:visible").count() == 20
        assert page.locator("#vx-concepts button:visible").count() == 0  # grading needs JS
    finally:
        context.close()


def test_no_axe_violation(browser: Browser, browser_context_args):
    """Answered, graded and a link list open, in light and in dark mode at once (test_site.py's
    axe run: every rule in one mode, here the light one, the colour rules in the other)."""
    pages, attempted = {}, []
    try:
        for mode in ("light", "dark"):
            context = browser.new_context(**browser_context_args, color_scheme=mode)
            page = pages[mode] = context.new_page()
            attempted += block_network(context)
            page.goto((SITE / "concepts.html").as_uri(), wait_until="load")
            _answer(page, 5)
            page.locator("button[type=submit]").click()
            page.locator(".vx-cc-links").first.locator("summary").click()
            start_axe(page, None, None if mode == "light" else COLOUR_RULES)
        for mode, page in pages.items():
            assert axe_violations(page) == [], mode
        assert attempted == []
    finally:
        for page in pages.values():
            page.context.close()
