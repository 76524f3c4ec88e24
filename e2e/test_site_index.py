"""The reading path on the site's index (docs/_ext/vx_index.py), read offline in Chromium.

Checked against the notebooks themselves, not against the extension: every notebook in order,
linked to its page, with the time its "Before you start" cell states, the earlier notebooks it
names as needed and its first learning objective; the time of the whole series as the sum of the
notebooks' times; and the shortest path to the last notebook as the closure of what it needs.
(axe, offline and links are in test_site.py, the 390 px check of every page in
test_site_reader.py.)
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from conftest import block_network
from playwright.sync_api import BrowserContext, Page

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "build" / "html"
NOTEBOOK_FILES = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _before_you_start(path: Path) -> dict:
    """Title, minutes, needed notebooks and first objective, as the notebook states them."""
    cells = nbformat.read(path, as_version=4).cells
    before = cells[1].source
    objectives = before.split("### Learning objectives", 1)[1].split("### Prerequisites")[0]
    first = re.search(r"^1\. (.+?)(?=^2\. )", objectives, re.M | re.S)[1]
    needs_line = re.search(r"^\* \*\*Notebooks:\*\*(.+?)(?=^\* )", before, re.M | re.S)[1]
    return {
        "title": cells[0].source.splitlines()[0].removeprefix("# "),
        "page": (SITE / "notebooks" / f"{path.stem}.html").as_uri(),
        "minutes": int(re.search(r"^About (\d+) minutes", before, re.M)[1]),
        "needs": re.findall(r"\]\((\d\d)_", needs_line),
        "objective": " ".join(first.split()).rstrip(";"),
    }


CHAPTERS = [_before_you_start(p) for p in NOTEBOOK_FILES]


pytestmark = pytest.mark.usefixtures("built_site")  # conftest.py: fails without `make html`


@pytest.fixture
def page(context: BrowserContext) -> Page:
    """A page of pytest-playwright's context with every request beyond file:// blocked."""
    fresh = context.new_page()
    fresh.set_default_timeout(30_000)
    fresh.attempted = block_network(context)
    return fresh


def _items(page: Page) -> list[dict]:
    page.goto((SITE / "index.html").as_uri(), wait_until="load")
    return page.evaluate(
        """[...document.querySelectorAll('.vx-reading-path ol > li')].map(li => ({
             text: li.textContent.replace(/\\s+/g, ' ').replace(/\u2019/g, "'").trim(),
             href: li.querySelector('a').href,
             link: li.querySelector('a').textContent.trim(),
           }))"""
    )


def test_reading_path_lists_every_notebook_with_its_time_needs_and_first_objective(page: Page):
    items = _items(page)
    assert page.attempted == []
    assert len(items) == len(CHAPTERS) == 9
    for item, chapter in zip(items, CHAPTERS, strict=True):
        assert item["href"] == chapter["page"]
        assert item["link"] == chapter["title"]
        assert f"about {chapter['minutes']} min" in item["text"]
        needs = ", ".join(chapter["needs"]) or "no earlier notebook"
        assert f"needs {needs}" in item["text"]
        # The objective's words, as text (its math is MathML on the page: compare the prose).
        prose = re.sub(r"\$[^$]+\$", " ", chapter["objective"]).replace("`", "")
        for word in prose.split():
            assert word in item["text"], (word, item["text"])
        exercise = re.search(r"\(exercises? [^)]+\)", chapter["objective"])[0]
        assert exercise in item["text"]


def _hours(minutes: int) -> str:
    h, m = divmod(minutes, 60)
    return f"{h} h {m} min" if h and m else f"{h} h" if h else f"{m} min"


def test_reading_path_states_the_series_time_and_the_shortest_path(page: Page):
    page.goto((SITE / "index.html").as_uri(), wait_until="load")
    intro = page.locator(".vx-reading-path p").first.text_content()
    intro = " ".join(intro.split())
    total = sum(c["minutes"] for c in CHAPTERS)
    assert f"about {_hours(total)}" in intro
    # The last notebook and everything it needs, directly or not: a loop over the needs.
    by_number = {f"{k:02d}": c for k, c in enumerate(CHAPTERS, 1)}
    wanted, todo = set(), [max(by_number)]
    while todo:
        number = todo.pop()
        if number not in wanted:
            wanted.add(number)
            todo += by_number[number]["needs"]
    route = " → ".join(sorted(wanted))
    short = sum(by_number[n]["minutes"] for n in wanted)
    assert f"{route}, about {_hours(short)}" in intro
    assert 0 < short < total
