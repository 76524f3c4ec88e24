"""The site for every reader (issue 28): a phone can navigate, a site-only reader can start
running, and the things that annoyed a reader are gone. Opened from file:// offline, as in
test_site.py (whose helpers and `page` fixture this file uses).

* the sidebar toggles work at 1280, 768 and 390 px, by mouse and by Enter, with a visible focus;
"""

from __future__ import annotations

import pytest
import test_site
from playwright.sync_api import Browser, Page
from test_site import NOTEBOOK_PAGES, _block_network, _url_of

page = test_site.page  # the site's own browser page (not JupyterLab's)

WIDTHS = {"desktop": 1280, "tablet": 768, "phone": 390}


def _outline(tab: Page) -> str:
    return tab.evaluate(
        """() => { const s = getComputedStyle(document.activeElement);
                   return s.outlineStyle + ' ' + s.outlineWidth; }"""
    )


@pytest.mark.parametrize("how", ["mouse", "Enter"])
@pytest.mark.parametrize("width", WIDTHS.values(), ids=WIDTHS.keys())
def test_the_sidebar_toggle_opens_the_notebook_list(
    browser: Browser, browser_context_args: dict, width: int, how: str
):
    context = browser.new_context(
        **{**browser_context_args, "viewport": {"width": width, "height": 800}}
    )
    try:
        page = context.new_page()
        attempted = _block_network(context)
        page.goto(_url_of(NOTEBOOK_PAGES[2]), wait_until="load")
        toggle = page.locator(".primary-toggle:visible")
        assert toggle.count() == 1, f"{toggle.count()} visible primary toggles at {width} px"
        listed_before = _visible_notebook_links(page)
        if how == "mouse":
            toggle.click()
        else:
            toggle.focus()
            # Reached by keyboard, the toggle shows where the focus is.
            page.keyboard.press("Shift+Tab")
            page.keyboard.press("Tab")
            assert page.evaluate("document.activeElement.matches('.primary-toggle')")
            style = _outline(page)
            assert not style.startswith("none") and not style.endswith(" 0px"), style
            page.keyboard.press("Enter")
        page.wait_for_timeout(400)  # the theme's transition
        listed_after = _visible_notebook_links(page)
        expected = [_url_of(n) for n in NOTEBOOK_PAGES]
        if width >= 992:
            # A desktop shows the list at first; the toggle hides it (and would show it again).
            assert listed_before == expected and listed_after == [], (listed_before, listed_after)
        else:
            assert listed_before == [], listed_before
            assert page.locator("#pst-primary-sidebar-modal[open]").count() == 1
            assert listed_after == expected, listed_after
            page.keyboard.press("Escape")
            assert page.locator("#pst-primary-sidebar-modal[open]").count() == 0
        assert attempted == []
    finally:
        context.close()


def _visible_notebook_links(tab: Page) -> list[str]:
    hrefs = tab.evaluate(
        """[...document.querySelectorAll('a')]
           .filter(a => a.checkVisibility({visibilityProperty: true})
              && a.closest('#pst-primary-sidebar, #pst-primary-sidebar-modal'))
           .map(a => a.href.split('#')[0])"""
    )
    return [h for h in hrefs if "/notebooks/" in h]


@pytest.mark.parametrize("width", [768, 390])
def test_the_contents_toggle_opens_the_page_contents(
    browser: Browser, browser_context_args: dict, width: int
):
    context = browser.new_context(
        **{**browser_context_args, "viewport": {"width": width, "height": 800}}
    )
    try:
        page = context.new_page()
        _block_network(context)
        page.goto(_url_of(NOTEBOOK_PAGES[3]), wait_until="load")
        toggle = page.locator(".secondary-toggle:visible")
        assert toggle.count() == 1
        toggle.focus()
        page.keyboard.press("Enter")
        dialog = page.locator("#pst-secondary-sidebar-modal[open]")
        dialog.wait_for()
        headings = page.evaluate(
            "[...document.querySelectorAll('article section > h2')].map(h => h.parentElement.id)"
        )
        shown = dialog.evaluate(
            """d => [...d.querySelectorAll('a')]
                 .filter(a => a.checkVisibility({visibilityProperty: true}))
                 .map(a => a.hash.slice(1))"""
        )
        assert headings and set(headings) <= set(shown), (headings, shown)
    finally:
        context.close()
