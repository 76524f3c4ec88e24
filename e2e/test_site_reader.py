"""The site for every reader (issue 28): a phone can navigate, a site-only reader can start
running, and the things that annoyed a reader are gone. Opened from file:// offline, as in
test_site.py (whose helpers and `page` fixture this file uses).

* the sidebar toggles work at 1280, 768 and 390 px, by mouse and by Enter, with a visible focus;
* at a phone's 390 px, one walk over every page (each opened once) checks all that the phone
  promises: no sideways scroll, wide formulas that say they scroll, readable figure text, full-size
  figures, and the reading path, the Explore sections and the exercises within the width;
  Copy buttons over no code, and our buttons at least 24 px;
* issue 38's rough edges: figure-code toggles named after their figures, worked solutions with
  Copy that run pasted alone (both checked on each notebook page as test_site.py loads it),
  Back to top legible in the header bar at 390 px.
"""

from __future__ import annotations

import contextlib
import re

import pytest
import test_site
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from test_site import NOTEBOOK_PAGES, PAGES, ROOT, SITE, _block_network, _open, _url_of

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
        expected = [_url_of(n) for n in NOTEBOOK_PAGES]
        # the theme's transition: wait until the list is shown (hidden) as it should end up
        with contextlib.suppress(PlaywrightTimeoutError):  # if not, the asserts below say how
            page.wait_for_function(
                f"n => ({VISIBLE_NOTEBOOK_LINKS})().length === n",
                arg=0 if width >= 992 else len(expected),
                timeout=5_000,
            )
        listed_after = _visible_notebook_links(page)
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


VISIBLE_NOTEBOOK_LINKS = """() => [...document.querySelectorAll('a')]
  .filter(a => a.checkVisibility({visibilityProperty: true})
     && a.closest('#pst-primary-sidebar, #pst-primary-sidebar-modal'))
  .map(a => a.href.split('#')[0])
  .filter(href => href.includes('/notebooks/'))"""


def _visible_notebook_links(tab: Page) -> list[str]:
    return tab.evaluate(VISIBLE_NOTEBOOK_LINKS)


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


# --- §2: what annoyed a reader --------------------------------------------------------------------


def test_a_notebook_link_says_how_to_save_it_from_a_file_page(page: Page):
    """Chromium opens a .ipynb link of a file:// page as text (it ignores `download` there): the
    note says how to save it, and links the page whose zip a click does save (test_site_run)."""
    _open(page, NOTEBOOK_PAGES[0])
    note = page.locator(".vx-run")
    assert "Save link as" in note.inner_text()
    hrefs = note.evaluate("n => [...n.querySelectorAll('a')].map(a => a.href)")
    assert _url_of("run.html") in hrefs


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_animation_pauses_and_respects_reduced_motion(
    browser: Browser, browser_context_args: dict, motion: str
):
    context = browser.new_context(**browser_context_args, reduced_motion=motion)
    try:
        page = context.new_page()
        _block_network(context)
        page.goto(_url_of("notebooks/05_t2t_soft_split.html"), wait_until="load")
        button = page.locator("figure.vx-figure button.vx-pause")
        assert button.count() == 1
        img = page.locator("figure.vx-figure:has(button.vx-pause) img")
        page.wait_for_function(
            "document.querySelector('button.vx-pause').hasAttribute('aria-pressed')"
        )
        src = img.evaluate("i => i.src.slice(0, 15)")
        if motion == "reduce":  # a still first, the animation on request
            assert src == "data:image/png;" and button.get_attribute("aria-pressed") == "true"
            assert button.get_attribute("aria-label") == "Play the animation"
        else:
            assert src == "data:image/gif;" and button.get_attribute("aria-pressed") == "false"
            assert button.get_attribute("aria-label") == "Pause the animation"
        button.focus()
        page.keyboard.press("Enter")
        again = img.evaluate("i => i.src.slice(0, 15)")
        assert again != src and again in ("data:image/png;", "data:image/gif;")
        assert img.get_attribute("alt") and "soft split" in img.get_attribute("alt").lower()
    finally:
        context.close()


def test_search_lists_sections_with_a_snippet_and_highlights_where_it_lands(page: Page):
    attempted = _open(page, "search.html", "?q=skew")
    page.wait_for_selector("#search-results li .vx-snippet")
    results = page.evaluate(
        """[...document.querySelectorAll('#search-results ul.search > li')].map(li => [
             li.querySelector('a').href, li.querySelector('.vx-snippet')?.textContent || '',
             [...li.querySelectorAll('.vx-snippet mark')].map(m => m.textContent.toLowerCase())])"""
    )
    top = [r for r in results if "04_relative_pe_skew.html?highlight=skew#" in r[0]]
    assert top, results
    href, snippet, marks = top[0]
    assert "skew" in snippet.lower() and set(marks) == {"skew"}
    anchor = href.split("#")[1]
    page.goto(href, wait_until="load")
    page.wait_for_selector("article span.highlighted")  # Sphinx's own highlighter, offline
    highlighted = page.evaluate(
        "[...document.querySelectorAll('article span.highlighted')].map(s => s.textContent)"
    )
    assert any(h.lower() == "skew" for h in highlighted), highlighted
    assert page.locator(f"[id='{anchor}']").count() == 1
    assert attempted == []


def test_figure_code_is_behind_a_toggle_and_the_caption_is_heard_once(page: Page):
    _open(page, "notebooks/03_sinusoidal_pe_clocks.html")
    cells = page.locator("article .cell:has(figure.vx-figure)")
    assert cells.count() > 3
    for i in range(cells.count()):
        cell = cells.nth(i)
        caption = cell.locator("figcaption").first.inner_text()
        toggle = cell.locator(".cell_input summary, details.above-input summary")
        if toggle.count() == 0:
            continue
        # Collapsed: the code's caption literal is not in the accessibility tree.
        # (The figure's own name is its caption: that line is the figure, not a second reading.)
        lines = cell.aria_snapshot().splitlines()
        spoken = "\n".join(line for line in lines if not re.match(r"\s*- '?figure \"", line))
        assert spoken.count(caption[:25]) == 1, (caption, spoken[:500])
        toggle.first.focus()
        page.keyboard.press("Enter")
        assert cell.locator("pre").first.is_visible()
    hidden = page.locator("article .cell:has(figure.vx-figure) details.above-input").count()
    assert hidden >= 5


def test_every_code_block_has_a_copy_button(browser: Browser, browser_context_args: dict):
    context = browser.new_context(**browser_context_args)
    try:
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        page = context.new_page()
        _block_network(context)
        page.goto(_url_of(NOTEBOOK_PAGES[0]), wait_until="load")
        blocks = page.locator("article div.highlight:not(.cell_output div.highlight)")
        assert blocks.count() > 5
        assert page.locator("article div.highlight > button.vx-copy").count() == blocks.count()
        assert page.locator(".cell_output button.vx-copy").count() == 0  # outputs are not code
        block = page.locator("article .cell_input div.highlight").nth(2)
        expected = block.locator("pre").inner_text().rstrip("\n")
        block.locator("button.vx-copy").click()
        assert page.evaluate("navigator.clipboard.readText()") == expected
        # its own live region (a page has others: the exercises' verdicts, the Explore captions)
        assert page.locator(".vx-copy-status[role=status]").inner_text() == "Code copied"
    finally:
        context.close()


# Figures drawn for a narrow column (their panels stacked): at 390 px, text of matplotlib's
# default 10 pt (tick and axis labels; display_figure draws at 100 dpi, so 13.9 px in the PNG)
# shows at 9 px or more. The figures left wider, each with its reason, are WIDE_FIGURES below.
NARROW_FIGURES = {  # file in figures/ -> the number in its caption
    "01_mountain_patches": "Figure 1.1",
    "01_token12": "Figure 1.2",
    "01_token_matrix": "Figure 1.3",
    "02_qkv": "Figure 2.1",
    "02_swap": "Figure 2.2",
    "02_swap_output": "Figure 2.3",
    "02_scrambled": "Figure 2.4",
    "02_heads": "Figure 2.5",
    "03_pe_table": "Figure 3.2",
    "03_pe_zoom": "Figure 3.3",
    "03_tokens_plus_pe": "Figure 3.4",
    "03_bases": "Figure 3.5",
    "03_omega": "Figure 3.6",
    "03_clocks": "Figure 3.7",
    "03_similarity": "Figure 3.8",
    "03_grid_1d_vs_2d": "Figure 3.9",
    "03_resize": "Figure 3.10",
    "04_distances": "Figure 4.1",
    "04_toeplitz": "Figure 4.4",
    "04_shift": "Figure 4.5",
    "05_softsplit_last": "Figure 5.2",
    "05_padded_token": "Figure 5.3",
    "05_token_matrix": "Figure 5.4",
    "06_examples": "Figure 6.1",
    "06_training": "Figure 6.2",
    "06_cls_attention": "Figure 6.3",
    "06_swaps": "Figure 6.5",
    "06_probes": "Figure 6.6",
    "07_learned_similarity": "Figure 7.2",
    "08_digits": "Figure 8.1",
    "08_cls_maps": "Figure 8.2",
    "08_logit_lens": "Figure 8.3",
    "08_figure7": "Figure 8.4",
    "08_locality": "Figure 8.5",
    "08_looks_and_uses": "Figure 8.6",
}
# Figures left wider than 480 px (4.8 in): why a narrow drawing would lose what they show. At 390
# px each opens at full size from its "Full size" button.
WIDE_FIGURES = {
    "03_pe_columns": "four columns of the table over 400 positions: the fast wave would alias",
    "04_skew_steps": "five steps of 18 to 20 labelled cells each, at 8 pt, do not fit 4.8 in",
}


def _png_size(path) -> tuple[int, int]:
    header = path.read_bytes()[16:24]  # the IHDR chunk: width, height
    return int.from_bytes(header[:4], "big"), int.from_bytes(header[4:], "big")


def test_every_wide_figure_is_drawn_narrow_or_says_why():
    """A notebook figure is at most 480 px wide (NARROW_FIGURES) or listed with its reason."""
    widths = {p.stem: _png_size(p)[0] for p in (ROOT / "figures").glob("[0-9][0-9]_*.png")}
    assert set(NARROW_FIGURES) | set(WIDE_FIGURES) <= set(widths)
    assert {name for name, width in widths.items() if width > 480} == set(WIDE_FIGURES)
    assert all(widths[name] <= 480 for name in NARROW_FIGURES)


PHONE = {"width": 390, "height": 844}


def test_every_page_at_390_px(browser: Browser, browser_context_args: dict):
    """A phone, each page opened once: no sideways scroll (a formula or table wider than the
    column scrolls in its own box, reachable by Tab, with edge shadows and a title that says
    so); the reading path, the Explore sections and the exercises with their solutions open fit
    the width; the figures drawn narrow keep their text at 9 px or more; a shrunk figure opens
    at full size from its button and gives the focus back (every fourth one: all of them would
    only repeat the same script)."""
    context = browser.new_context(**{**browser_context_args, "viewport": PHONE})
    try:
        page = context.new_page()
        attempted = _block_network(context)
        boxes = wide = narrow = shrunk = copy_buttons = 0
        text_px, sections = {}, []
        for name in PAGES:
            page.goto(_url_of(name), wait_until="load")
            # a prediction hides its reveal until "Show me": show them all, as a reader may
            page.evaluate("document.querySelectorAll('button.vx-show').forEach(b => b.click())")
            page.evaluate("document.fonts.ready")
            page.evaluate(
                "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
            )
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= PHONE["width"], f"{name} is {width} px wide at 390 px"
            scrolling = page.evaluate(
                """[...document.querySelectorAll('.vx-math, .pst-scrollable-table-container')]
                   .filter(b => b.scrollWidth > b.clientWidth + 1)
                   .map(b => [b.className, getComputedStyle(b).overflowX, b.tabIndex])"""
            )
            assert all(o in ("auto", "scroll") and t == 0 for _, o, t in scrolling), (
                name,
                scrolling,
            )
            boxes += len(scrolling)
            for section in (".vx-reading-path", ".vx-explore"):
                for box in page.locator(section).all():
                    sections.append(section)
                    left, right = box.evaluate(
                        "b => [b.getBoundingClientRect().left, b.getBoundingClientRect().right]"
                    )
                    assert left >= 0 and right <= PHONE["width"], (name, section, left, right)
            if name not in NOTEBOOK_PAGES:
                continue
            # A formula that scrolls shows that it does.
            for scrolls, marked, background, tab, title in page.evaluate(
                """[...document.querySelectorAll('.vx-math')].map(b => [
                     b.scrollWidth > b.clientWidth + 1, b.classList.contains('vx-scrolls'),
                     getComputedStyle(b).backgroundImage, b.tabIndex, b.title])"""
            ):
                assert scrolls == marked, (name, scrolls, marked)
                if scrolls:
                    wide += 1
                    assert background.count("radial-gradient") == 2, background  # edge shadows
                    assert tab == 0 and "scroll" in title
                else:
                    narrow += 1
                    assert background == "none"
            # Every figure as shown: caption number, the image's natural and shown size, and
            # whether it has a "Full size" button (one round trip for the whole page).
            shown_figures = page.evaluate(
                """[...document.querySelectorAll('article figure.vx-figure')].map(f => {
                     const img = f.querySelector('img');
                     return [f.querySelector('figcaption').textContent.trim().split(' ')
                               .slice(0, 2).join(' '),
                             img.naturalWidth, img.naturalHeight, img.clientWidth,
                             f.querySelectorAll('button.vx-zoom').length];
                   })"""
            )
            # The figures drawn for a narrow column keep their text readable.
            by_label = {label: (w, h, shown) for label, w, h, shown, _ in shown_figures}
            for figure, label in NARROW_FIGURES.items():
                if name.startswith(f"notebooks/{figure[:2]}_"):
                    *natural, shown = by_label[label]
                    assert tuple(natural) == _png_size(ROOT / "figures" / f"{figure}.png"), figure
                    text_px[figure] = round(10 / 72 * 100 * shown / natural[0], 1)
            # Every figure has a "Full size" button; a shrunk one opens at full size.
            assert all(zoom == 1 for *_, zoom in shown_figures), (name, shown_figures)
            figures = page.locator("article figure.vx-figure")
            for i, (_, natural, _, shown, _) in enumerate(shown_figures):
                if shown >= natural:
                    continue
                shrunk += 1
                if shrunk % 4:
                    continue
                figure = figures.nth(i)
                img = figure.locator("img").first
                button = figure.locator("button.vx-zoom")
                assert "full size" in button.get_attribute("aria-label")
                button.focus()
                page.keyboard.press("Enter")
                dialog = page.locator("dialog.vx-zoom-dialog[open]")
                dialog.wait_for()
                big = dialog.locator("img").evaluate("i => [i.clientWidth, i.naturalWidth, i.alt]")
                assert big[0] == big[1] == natural and big[2] == img.get_attribute("alt")
                page.keyboard.press("Escape")
                assert page.locator("dialog.vx-zoom-dialog[open]").count() == 0
                assert page.evaluate("document.activeElement.classList.contains('vx-zoom')")
            # The exercises, their worked solutions open (a click on each summary), fit too.
            opened = page.evaluate(
                """() => { const all = document.querySelectorAll('details.vx-solution > summary');
                           all.forEach(s => s.click());
                           return [all.length, document.querySelectorAll(
                             'details.vx-solution[open]').length]; }"""
            )
            assert opened[0] == opened[1], (name, opened)
            page.evaluate(
                "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
            )
            # Copy covers no code (it sits above the first line), and every button of ours is
            # at least 24 px high and wide.
            copies, covering, small = page.evaluate(
                """() => {
                  let copies = 0, covering = [];
                  for (const button of document.querySelectorAll('article button.vx-copy')) {
                    const b = button.getBoundingClientRect();
                    if (!b.height) continue;  // in a closed toggle
                    copies++;
                    const range = document.createRange();
                    range.selectNodeContents(button.parentElement.querySelector('pre'));
                    if ([...range.getClientRects()].some(t => t.width && t.left < b.right
                          && t.right > b.left && t.top < b.bottom && t.bottom > b.top))
                      covering.push(button.parentElement.textContent.slice(0, 40));
                  }
                  const small = [...document.querySelectorAll('.vx-copy, .vx-zoom, .vx-pause')]
                    .map(e => e.getBoundingClientRect())
                    .filter(r => r.height && (r.height < 24 || r.width < 24)).length;
                  return [copies, covering, small];
                }"""
            )
            assert covering == [] and small == 0, (name, covering, small)
            copy_buttons += copies
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= PHONE["width"], f"{name} with its solutions open is {width} px wide"
            assert re.search(r"\d", page.locator(".vx-exercise").first.inner_text()), name
        assert boxes > 0, "no wide formula at 390 px: the scroll boxes were not exercised"
        assert sorted(sections) == [".vx-explore"] * 3 + [".vx-reading-path"], sections
        assert wide > 0 and narrow > 0, (wide, narrow)
        assert shrunk > 10, shrunk
        assert copy_buttons > 150, copy_buttons
        assert set(text_px) == set(NARROW_FIGURES), set(NARROW_FIGURES) - set(text_px)
        assert all(px >= 9 for px in text_px.values()), text_px
        assert attempted == []
    finally:
        context.close()


def test_tab_reaches_the_page_contents_before_the_article(page: Page):
    """On a desktop the page contents (right sidebar) come right after the notebook list in
    Tab order, before any stop of the article (its links, buttons and scroll boxes)."""
    _open(page, "notebooks/03_sinusoidal_pe_clocks.html")
    stops = []
    for _ in range(400):
        page.keyboard.press("Tab")
        where = page.evaluate(
            """() => { const a = document.activeElement;
                       return [a.closest('#pst-secondary-sidebar') !== null,
                               a.closest('.bd-article-container') !== null,
                               a.tagName + '.' + a.className]; }"""
        )
        if where[0]:
            break
        stops.append(where)
    else:
        pytest.fail("Tab never reached the page contents")
    in_article = [s[2] for s in stops if s[1]]
    assert in_article == [], (len(stops), in_article[:10])
    assert len(stops) < 30, len(stops)
    # and a scroll box of the article gets a Tab stop only when it scrolls
    idle = page.evaluate(
        """[...document.querySelectorAll('article pre, article .vx-math, article .output')]
             .filter(b => b.tabIndex === 0
                     && b.scrollWidth <= b.clientWidth && b.scrollHeight <= b.clientHeight)
             .length"""
    )
    assert idle == 0, idle


# --- §3 -----------------------------------------------------------------------------------------


def test_one_viewport_meta_per_page():
    for path in sorted(SITE.glob("*.html")) + sorted(SITE.glob("notebooks/*.html")):
        assert path.read_text(encoding="utf-8").count('name="viewport"') == 1, path


def test_no_icon_script_and_the_icons_still_draw(page: Page):
    """The theme's 1.56 MB Font Awesome script is gone from every page and from the build; its
    style sheet draws the icons with the local web font."""
    scripts = SITE / "_static" / "scripts"
    assert not (scripts / "fontawesome.js").exists() and not list(scripts.glob("*.map"))
    for path in sorted(SITE.glob("*.html")) + sorted(SITE.glob("notebooks/*.html")):
        assert "fontawesome.js" not in path.read_text(encoding="utf-8"), path
    attempted = _open(page, NOTEBOOK_PAGES[0])
    page.evaluate("document.fonts.ready")
    icon = page.locator(".primary-toggle:visible .fa-bars, .primary-toggle:visible .fa-solid").first
    drawn = icon.evaluate(
        """i => [getComputedStyle(i, '::before').content, getComputedStyle(i).fontFamily,
                 i.getBoundingClientRect().width]"""
    )
    assert drawn[0] not in ("none", "normal", "") and "Font Awesome" in drawn[1] and drawn[2] > 0
    assert page.evaluate("document.fonts.check('900 16px \"Font Awesome 7 Free\"')")
    assert attempted == []


# --- §4 -----------------------------------------------------------------------------------------


def test_about_has_a_bibtex_entry_with_year_and_version(page: Page):
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    title = re.search(r'^title: "([^"]+)"', citation, re.M)[1]
    version = re.search(r'^version: "([^"]+)"', citation, re.M)[1]
    year = re.search(r'^date-released: "(\d{4})-', citation, re.M)[1]
    _open(page, "about.html")
    entry = page.locator(".vx-bibtex pre, div.vx-bibtex pre").first.inner_text()
    assert entry.startswith("@software{vitexplain,")
    fields = dict(re.findall(r"^\s*(\w+) = \{(.*)\},?$", entry, re.M))
    assert fields["title"] == "{" + title + "}"
    assert (fields["year"], fields["version"]) == (year, version)
    assert page.locator(".vx-bibtex button.vx-copy").count() == 1
    assert f"({year})" in page.locator("#how-to-cite").inner_text()


def test_the_index_says_which_reader_each_feature_serves(page: Page):
    _open(page, "index.html")
    note = page.locator(".vx-readers")
    text = note.inner_text()
    for reader in (
        "phone",
        "keyboard",
        "screen reader",
        "run",
        "Search",
        "Copy",
        "Citing",
        "paper",
    ):
        assert reader in text, reader
    hrefs = note.evaluate("n => [...n.querySelectorAll('a')].map(a => a.href)")
    assert _url_of("run.html") in hrefs and _url_of("about.html") in hrefs


def test_printed_code_wraps_under_its_own_indentation(page: Page):
    """In print a long code line wraps; its continuation starts 4 columns right of the line's
    own indentation (not at column 0), so the block structure stays readable."""
    page.set_viewport_size({"width": 700, "height": 1000})
    _open(page, "notebooks/03_sinusoidal_pe_clocks.html")
    page.evaluate("document.querySelectorAll('details').forEach(d => (d.open = true))")
    page.emulate_media(media="print")
    rows = page.evaluate(
        """() => {
          const probe = document.createElement('span');
          probe.textContent = '0'.repeat(10);
          document.querySelector('article .cell_input pre').append(probe);
          const ch = probe.getBoundingClientRect().width / 10;
          probe.remove();
          const out = [];
          for (const line of document.querySelectorAll('article .cell_input .vx-line')) {
            const range = document.createRange();
            range.selectNodeContents(line);
            const left = new Map();
            for (const r of range.getClientRects()) {
              if (r.width === 0) continue;
              const top = Math.round(r.top);
              left.set(top, Math.min(left.get(top) ?? Infinity, r.left));
            }
            const tops = [...left.keys()].sort((a, b) => a - b);
            if (tops.length < 2) continue;
            const indent = Number(line.style.getPropertyValue('--vx-indent'));
            const first = left.get(tops[0]);  // column 0: its leading spaces are text too
            out.push([indent, tops.slice(1).map(t => (left.get(t) - first) / ch)]);
          }
          return out;
        }"""
    )
    assert len(rows) >= 3, rows  # some lines of notebook 03 are wider than a printed page
    for indent, columns in rows:
        assert all(abs(c - (indent + 4)) < 0.6 for c in columns), (indent, columns)


# --- issue 38: the rough edges ----------------------------------------------------------------


def test_every_figure_code_toggle_and_code_solution_is_checked():
    """Every figure-code toggle is named after its figures, and every worked solution's code
    has Copy and runs pasted alone: checked on each notebook page where test_site.py loads it
    (`_check_code_toggles_named`, `_check_code_solutions`, on that page's loaded DOM). Here what
    spans the pages: more than 40 toggles and 10 code solutions to check, and the theme's
    "Toggle hidden content" on none."""
    pages = "".join(p.read_text(encoding="utf-8") for p in (SITE / "notebooks").glob("*.html"))
    assert len(re.findall(r"<details class=\"[^\"]*\bhide\b", pages)) >= 40
    assert len(re.findall(r"class=\"[^\"]*\bvx-code-box\b", pages)) >= 10
    assert "Toggle hidden content" not in pages


_CONTRAST = """([fg, bg]) => {
  const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = (c) => { const [r, g, b] = rgb(c).map(v => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_back_to_top_at_390_px_is_legible_and_covers_no_text(
    browser: Browser, browser_context_args: dict, mode: str
):
    """The theme's Back to top (white on orange, 2.45:1, floating over the text) sits in the
    article header's bar beside the sidebar toggle, at 4.5:1 or more, overlapping no other
    control of the bar, at least 24 px high; scrolling up shows it and it works."""
    context = browser.new_context(**{**browser_context_args, "viewport": PHONE}, color_scheme=mode)
    try:
        page = context.new_page()
        _block_network(context)
        page.goto(_url_of("notebooks/03_sinusoidal_pe_clocks.html"), wait_until="load")
        page.mouse.wheel(0, 4000)
        page.wait_for_function("window.scrollY >= 3600")  # wheel() does not wait for the scroll
        page.mouse.wheel(0, -400)
        button = page.locator("#pst-back-to-top")
        button.wait_for(state="visible")
        assert page.locator("#pst-back-to-top").count() == 1
        style = button.evaluate(
            """b => { const s = getComputedStyle(b); const r = b.getBoundingClientRect();
                      const bar = document.querySelector('.bd-header-article')
                        .getBoundingClientRect();
                      const others = [...document.querySelectorAll(
                          '.bd-header-article button, .bd-header-article a')]
                        .filter(o => o !== b && o.offsetParent && !b.contains(o))
                        .map(o => o.getBoundingClientRect())
                        .filter(o => o.left < r.right && o.right > r.left
                                     && o.top < r.bottom && o.bottom > r.top);
                      return [s.color, s.backgroundColor, r.top >= bar.top,
                              r.bottom <= bar.bottom, r.height, others.length]; }"""
        )
        ratio = page.evaluate(_CONTRAST, style[:2])
        assert ratio >= 4.5, (mode, style, ratio)
        assert style[2] and style[3], ("outside the header bar", style)
        assert style[4] >= 24 and style[5] == 0, style
        button.click()
        page.wait_for_function("window.scrollY === 0")
    finally:
        context.close()
