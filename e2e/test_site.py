"""The static site of `make html` (build/html/), read offline in Debian's Chromium.

`make e2e` builds the site first (Sphinx + myst-nb + sphinx-book-theme, docs/). Every page is
opened from its file with every request that is not a local file blocked and recorded. Checked:

* nothing from the network: no page attempts a request, no built HTML or CSS names an http(s)
  script, style sheet, font or image; no JavaScript error;
* the pages: the index from the README's notebook table (thumbnails, titles, order), previous and
  next on every notebook page, the soft-split GIF animated, alt text on every image;
* math as MathML (no raw TeX left in the prose), notebook 05's `aligned` block in rows;
* axe-core reports no violation: all its rules in dark mode, its colour rules in light mode (the
  markup is the same in both; only colours change); the contrast of code's syntax colours is
  checked once per distinct (colour, background) pair, not by axe once per token
  (conftest.CODE_SPANS);
* offline search, the in-page contents list, the skip link, the download link to each .ipynb
  with the "run it yourself" note, the footer (licence, how to cite, version);
* printing wraps code instead of cutting it (no sideways scroll at 390 px: test_site_reader.py's
  walk over every page at a phone's width);
* the build itself: from the stored outputs (their text is on the page), in at most 20 s (the
  cold build of `make html`, which times itself).

Each page is opened once per colour mode, both at once: axe-core (what costs: a notebook page
takes it seconds) runs on the light and the dark page together, each in its own renderer
process, and every other check of a page runs on the light page's loaded DOM, while axe runs all
its rules on the dark page. These tests use a
browser page of their own (the `page` fixture below), not JupyterLab's.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from conftest import COLOUR_RULES, axe_violations, start_axe
from conftest import block_network as _block_network  # also imported by test_site_reader
from PIL import Image
from playwright.sync_api import Browser, BrowserContext, Page

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "build" / "html"
NOTEBOOK_FILES = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
NOTEBOOK_PAGES = [f"notebooks/{p.stem}.html" for p in NOTEBOOK_FILES]
PAGES = ["index.html", *NOTEBOOK_PAGES, "about.html", "run.html", "search.html"]
RAW_TEX = re.compile(r"\$[^$\s][^$]*\$|\\(frac|sqrt|mathbb|mathrm|cdot|top|begin|end)\b")
# A resource that a browser would fetch from another host, as the HTML or CSS names it.
REMOTE_RESOURCE = re.compile(
    r"<(script|img|iframe|source|audio|video)\b[^>]*\bsrc=[\"']?(https?:)?//"
    r"|<link\b[^>]*\bhref=[\"']?(https?:)?//"
    r"|url\(\s*[\"']?(https?:)?//"
    r"|@import\s+[\"'](https?:)?//",
    re.I,
)
BUILD_LIMIT = 20.0  # seconds, the cold build of the whole site


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "site_page" in metafunc.fixturenames:
        metafunc.parametrize("site_page", PAGES)


pytestmark = pytest.mark.usefixtures("built_site")  # conftest.py: fails without `make html`


@pytest.fixture
def page(context: BrowserContext) -> Page:
    """A fresh page of pytest-playwright's context (1280 x 800, conftest.py), without
    JupyterLab; its JavaScript errors are collected in `page.errors`."""
    fresh = context.new_page()
    fresh.set_default_timeout(30_000)
    fresh.errors = []
    fresh.on("pageerror", lambda error: fresh.errors.append(str(error)))
    return fresh


def _open(page: Page, name: str, query: str = "") -> list[str]:
    """Open a page of the site offline; return the requests it attempted beyond the machine."""
    attempted = _block_network(page.context)
    page.goto((SITE / name).as_uri() + query, wait_until="load")
    return attempted


def _url_of(name: str) -> str:
    return (SITE / name).as_uri()


def _package_version() -> str:
    """vitexplain.__version__ read from the source, as docs/conf.py reads it."""
    text = (ROOT / "vitexplain" / "__init__.py").read_text(encoding="utf-8")
    return re.search(r"^__version__ = \"([^\"]+)\"", text, re.M)[1]


# --- nothing from the network ---------------------------------------------------------------------


def test_no_built_file_names_a_remote_script_style_font_or_image():
    files = [p for p in SITE.rglob("*") if p.suffix in (".html", ".css")]
    assert len(files) > 10, files
    found = []
    for path in files:
        for match in REMOTE_RESOURCE.finditer(path.read_text(encoding="utf-8", errors="replace")):
            found.append(f"{path.relative_to(SITE)}: {match[0]}")
    assert found == [], "\n".join(found[:10])


def test_page_reads_offline_with_no_axe_violation(
    browser: Browser, browser_context_args: dict, site_page: str
):
    """The page opened in light and in dark mode (each as a reader whose system prefers it),
    axe-core on both at once (all rules on the dark one, started first); then every check of
    the page's content on the light one."""
    pages: dict[str, Page] = {}
    try:
        for mode in ("dark", "light"):
            context = browser.new_context(**browser_context_args, color_scheme=mode)
            context.grant_permissions(["clipboard-read", "clipboard-write"])  # Copy, read back
            page = pages[mode] = context.new_page()
            page.errors = []
            page.on("pageerror", lambda error, page=page: page.errors.append(str(error)))
            query = "?q=attention" if site_page == "search.html" else ""
            attempted = _open(page, site_page, query)
            if site_page == "search.html":
                page.wait_for_selector("#search-results li", timeout=30_000)
            assert page.evaluate("document.documentElement.dataset.theme") == mode
            assert attempted == [], f"{site_page} tried to reach {attempted[:5]}"
            assert page.errors == [], f"JavaScript errors on {site_page} ({mode}): {page.errors}"
            if site_page in NOTEBOOK_PAGES:
                _check_captions_contrast(page, site_page, mode)
            start_axe(page, None, COLOUR_RULES if mode == "light" else None)
        violations = axe_violations(pages["light"])
        assert violations == [], f"axe on {site_page} (light):\n" + "\n".join(violations)
        # What does not depend on colour is checked in light mode (while axe runs on the dark).
        page = pages["light"]
        assert page.locator(".only-light, .only-dark").count() == 0, site_page
        _check_content(page, site_page)
        _check_footer(page, site_page)
        if site_page in NOTEBOOK_PAGES:
            for check in NOTEBOOK_PAGE_CHECKS:  # the last ones open details, then print
                check(page, site_page)
        violations = axe_violations(pages["dark"])
        assert violations == [], f"axe on {site_page} (dark):\n" + "\n".join(violations)
        if site_page in NOTEBOOK_PAGES:  # the code check saw the page's code, in both modes
            assert all(len(p.code_styles) >= 5 for p in pages.values()), site_page
    finally:
        for page in pages.values():
            page.context.close()


def _check_content(page: Page, site_page: str) -> None:
    # Math is MathML: no TeX left in the prose (code and its outputs may print what they like).
    prose = page.evaluate(
        """() => {
          const root = document.querySelector('article') || document.querySelector('main');
          const article = root.cloneNode(true);
          article.querySelectorAll('pre, code, math, script, style').forEach(e => e.remove());
          return article.textContent;
        }"""
    )
    leftovers = [m.group(0) for m in RAW_TEX.finditer(prose)]
    assert leftovers == [], f"raw TeX on {site_page}: {leftovers[:5]}"

    # Every image is loaded, and says what it shows.
    images = page.evaluate(
        "[...document.images].map(i => [i.currentSrc.slice(0, 40), i.naturalWidth, i.alt])"
    )
    if site_page in NOTEBOOK_PAGES or site_page == "index.html":
        assert images, f"no image on {site_page}"
    assert all(width > 0 for _, width, _ in images), images
    short = [(src, alt) for src, _, alt in images if len(alt.split()) < 4]
    assert short == [], f"images without a real alt text on {site_page}: {short}"

    # Every link leads somewhere: local files exist, anchors exist on their page.
    for href in page.evaluate("[...document.querySelectorAll('a[href]')].map(a => a.href)"):
        url = urlparse(href)
        if url.scheme in ("http", "https", "mailto"):
            continue  # references to papers and code: links for the reader, never loaded
        assert url.scheme == "file", href
        target = Path(unquote(url.path))
        assert target.is_file(), f"{site_page}: broken link {href}"
        if url.fragment and target.suffix == ".html":
            assert f'id="{url.fragment}"' in target.read_text(encoding="utf-8"), href


def test_dark_mode_is_dark_and_the_switch_changes_it(page: Page):
    _open(page, "index.html")
    page.locator(".theme-switch-button").first.click()
    page.locator(".theme-change-button[data-mode='dark']").first.click()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    red, green, blue = (int(c) for c in re.findall(r"\d+", background)[:3])
    assert max(red, green, blue) < 80, background  # a dark page, not only an attribute
    # The choice is remembered on the next page.
    page.goto(_url_of(NOTEBOOK_PAGES[0]), wait_until="load")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"


# --- the pages ------------------------------------------------------------------------------------


def _readme_rows() -> list[tuple[str, str, str]]:
    """(thumbnail alt, title, notebook) of each row of the README's notebook table."""
    rows = []
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        match = re.match(r"^\|\s*<img [^|]*alt=\"([^\"]+)\"[^|]*\|\s*\[([^\]]+)\]\(([^)]+)\)", line)
        if match:
            rows.append(match.groups())
    return rows


def test_index_is_the_readme_table_with_thumbnails(page: Page):
    _open(page, "index.html")
    rows = page.evaluate(
        """[...document.querySelectorAll('.vx-index tbody tr')].map(tr => {
             const img = tr.querySelector('img'), a = tr.querySelector('a');
             return [img.alt, img.naturalWidth, a.textContent.trim(), a.href];
           })"""
    )
    expected = _readme_rows()
    assert len(expected) == len(NOTEBOOK_FILES) == len(rows)
    for (alt, width, title, href), (readme_alt, readme_title, notebook) in zip(
        rows, expected, strict=True
    ):
        assert (alt, title) == (readme_alt, readme_title)
        assert width > 0
        assert href == _url_of(notebook.replace(".ipynb", ".html"))
    assert [href for *_, href in rows] == [_url_of(name) for name in NOTEBOOK_PAGES]


def _check_neighbours(page: Page, name: str) -> None:
    """Previous and next lead to the neighbouring pages, and every notebook is in the sidebar,
    in order."""
    sequence = ["index.html", *NOTEBOOK_PAGES, "concepts.html", "about.html"]
    i = sequence.index(name)
    previous = page.locator(".prev-next-area a.left-prev").get_attribute("href")
    following = page.locator(".prev-next-area a.right-next").get_attribute("href")
    base = (SITE / name).parent
    assert (base / previous).resolve() == (SITE / sequence[i - 1]).resolve(), name
    assert (base / following).resolve() == (SITE / sequence[i + 1]).resolve(), name
    sidebar = page.evaluate(
        "[...document.querySelectorAll('.bd-sidebar-primary nav a')].map(a => a.href)"
    )
    listed = [u.split("#")[0] for u in sidebar if "/notebooks/" in u]
    assert listed == [_url_of(n) for n in NOTEBOOK_PAGES]
    assert _url_of("concepts.html") in sidebar


def test_the_soft_split_gif_is_an_animated_img(page: Page):
    _open(page, "notebooks/05_t2t_soft_split.html")
    sources = page.evaluate(
        "[...document.images].filter(i => i.src.startsWith('data:image/gif'))"
        ".map(i => [i.src, i.naturalWidth, i.alt])"
    )
    assert len(sources) == 1
    src, width, alt = sources[0]
    gif = Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1])))
    assert width == gif.width > 0 and gif.n_frames == 60 and "soft split" in alt.lower()


def _check_stored_figures(page: Page, notebook_page: str) -> None:
    """Each stored figure reaches the page once, with its alt text: from metadata["image/png"]
    ["alt"] (older notebooks) or from the alt of the <img> of a text/html figure."""
    notebook = json.loads((ROOT / notebook_page.replace(".html", ".ipynb")).read_text("utf-8"))
    expected = []
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "text/html" in data:
                markup = "".join(data["text/html"])
                expected += re.findall(r"<img\b[^>]*\balt=\"([^\"]*)\"", markup)
            else:
                expected += [
                    output["metadata"][mime]["alt"]
                    for mime in ("image/png", "image/gif")
                    if mime in data
                ]
    shown = page.evaluate(
        "[...document.querySelectorAll('article img:not(.vx-explore img)')].map(i => i.alt)"
    )
    assert expected and shown == [html.unescape(alt) for alt in expected]


CONTRAST_JS = """(selector) => {
  const rgb = c => c.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map(v => v / 255)
    .map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  return [...document.querySelectorAll(selector)].map(e => {
    let b = e;
    while (b && (rgb(getComputedStyle(b).backgroundColor)[3] ?? 1) === 0) b = b.parentElement;
    const bg = b ? rgb(getComputedStyle(b).backgroundColor) : [255, 255, 255];
    const [hi, lo] = [lum(rgb(getComputedStyle(e).color)), lum(bg)].sort((x, y) => y - x);
    return [e.textContent.slice(0, 50), (hi + 0.05) / (lo + 0.05)];
  });
}"""


def _check_captions_contrast(page: Page, name: str, mode: str) -> None:
    """A caption's contrast with the box it sits on, computed here: axe leaves text next to an
    image as "needs review", so its pass alone does not show that a caption reads."""
    ratios = page.evaluate(CONTRAST_JS, "article figcaption, article .vx-run p")
    assert ratios, f"no caption or note on {name}"
    low = [(text, round(ratio, 2)) for text, ratio in ratios if ratio < 4.5]
    assert low == [], f"captions below 4.5:1 on {name} in {mode} mode: {low[:5]}"


# --- math -----------------------------------------------------------------------------------------


def test_aligned_math_is_rendered_in_rows(page: Page):
    _open(page, "notebooks/05_t2t_soft_split.html")
    rows = page.evaluate(
        """[...document.querySelectorAll('.vx-math math mtable')].map(t =>
             [...t.querySelectorAll(':scope > mtr')].map(r => r.getBoundingClientRect().top))"""
    )
    assert rows, "no aligned block (mtable) on notebook 05's page"
    tops = max(rows, key=len)
    assert len(tops) == 3 and tops == sorted(tops) and len(set(tops)) == 3, tops
    text = page.locator(".vx-math mtable").first.text_content()
    assert "&" not in text and "\\" not in text


def _check_mathml(page: Page, notebook_page: str) -> None:
    counts = page.evaluate(
        """[document.querySelectorAll('article math').length,
            document.querySelectorAll('.vx-math').length,
            document.querySelectorAll('.vx-math > math[display="block"]').length]"""
    )
    source = (ROOT / notebook_page.replace(".html", ".ipynb")).read_text(encoding="utf-8")
    if "$" in source:
        assert counts[0] > 0, notebook_page
    assert counts[1] == counts[2], counts  # every display block converted, none left as TeX


# --- search, contents, skip link, download, footer ------------------------------------------------


def test_search_works_offline(page: Page):
    attempted = _open(page, "index.html")
    page.keyboard.press("Control+k")
    field = page.locator("#pst-search-dialog input[name='q']")
    field.wait_for(state="visible")
    field.fill("skew")
    field.press("Enter")
    page.wait_for_url("**/search.html?q=skew*")
    results = page.locator("#search-results li a")
    results.first.wait_for()
    hrefs = results.evaluate_all("links => links.map(a => a.href)")
    pages = [h.split("#")[0].split("?")[0] for h in hrefs]  # ?highlight= marks the words there
    assert _url_of("notebooks/04_relative_pe_skew.html") in pages
    assert attempted == []


def _check_contents_list(page: Page, notebook_page: str) -> None:
    headings = page.evaluate(
        "[...document.querySelectorAll('article section > h2')].map(h => h.parentElement.id)"
    )
    toc = page.locator("#pst-page-toc-nav")
    assert toc.is_visible()
    links = toc.evaluate("nav => [...nav.querySelectorAll('a')].map(a => a.hash.slice(1))")
    assert len(headings) >= 3 and set(headings) <= set(links), (headings, links)


def test_the_skip_link_is_the_first_tab_stop_and_skips_to_the_content(page: Page):
    _open(page, NOTEBOOK_PAGES[1])
    page.keyboard.press("Tab")
    focused = page.evaluate("[document.activeElement.textContent, document.activeElement.href]")
    assert focused[0].strip() == "Skip to main content"
    assert focused[1].endswith("#main-content")
    assert page.locator(".skip-link a").is_visible()  # shown when focused
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    inside = page.evaluate("!!document.activeElement.closest('#main-content')")
    assert inside, page.evaluate("document.activeElement.outerHTML")


def _check_run_note(page: Page, notebook_page: str) -> None:
    """The download link to the page's notebook, with the "Run it yourself" note."""
    note = page.locator(".vx-run")
    assert note.count() == 1 and note.is_visible()
    text = note.inner_text()
    assert "Run it yourself" in text and "make lab" in text
    name = Path(notebook_page).with_suffix(".ipynb").name
    link = note.locator(f"a[href$='{name}']")
    assert link.count() == 1
    downloaded = Path(unquote(urlparse(link.evaluate("a => a.href")).path))
    assert downloaded.read_bytes() == (ROOT / "notebooks" / name).read_bytes()
    # The note sits near the top: before the first code cell.
    order = page.evaluate(
        """() => { const note = document.querySelector('.vx-run');
                   const code = document.querySelector('.cell');
                   const after = Node.DOCUMENT_POSITION_FOLLOWING;
                   return note.compareDocumentPosition(code) & after; }"""
    )
    assert order


def _check_footer(page: Page, site_page: str) -> None:
    """The footer: licence, how to cite, version."""
    footer = page.locator("footer.bd-footer-content .vx-footer")
    assert footer.count() == 1 and footer.is_visible()
    text = " ".join(footer.inner_text().split())
    assert f"vitexplain {_package_version()}" in text
    assert "MIT licence" in text and "how to cite" in text
    title = re.search(r'^title: "([^"]+)"', (ROOT / "CITATION.cff").read_text("utf-8"), re.M)[1]
    assert title in text
    hrefs = footer.evaluate("p => [...p.querySelectorAll('a')].map(a => a.href)")
    assert {h.split("/")[-1] for h in hrefs} == {"about.html#licence", "about.html#how-to-cite"}
    about = (SITE / "about.html").read_text(encoding="utf-8")
    assert "Permission is hereby granted" in about and 'id="how-to-cite"' in about


# --- layout: phone and print ----------------------------------------------------------------------


def _check_print_wraps_code(page: Page, notebook_page: str) -> None:
    """Printed (at about an A4 page's text width), no code block is cut."""
    page.set_viewport_size({"width": 700, "height": 1000})
    page.emulate_media(media="print")
    cut = page.evaluate(
        """[...document.querySelectorAll('article pre')]
           .filter(p => p.offsetParent !== null && p.scrollWidth > p.clientWidth + 1)
           .map(p => p.textContent.slice(0, 60))"""
    )
    total = page.locator("article pre").count()
    assert total > 0 and cut == [], f"{len(cut)} of {total} code blocks cut in print: {cut[:3]}"


def _check_code_fits_desktop(page: Page, name: str) -> None:
    """At 1280 px notebook code (formatted to 100 columns, the package's width) may be wider than
    the column: every code box that scrolls sideways is a Tab stop, so a keyboard scrolls it too
    (opens every <details>)."""
    page.evaluate("document.querySelectorAll('details').forEach(d => (d.open = true))")
    boxes = page.evaluate(
        """[...document.querySelectorAll('article pre')]
             .filter(p => !p.closest('.cell_output') && p.scrollWidth > p.clientWidth)
             .map(p => [p.textContent.slice(0, 60),
                        p.tabIndex >= 0 || p.closest('[tabindex="0"]') !== null])"""
    )
    assert page.locator("article .cell_input pre").count() > 5, name
    unreachable = [text for text, reachable in boxes if not reachable]
    assert unreachable == [], (name, unreachable)


# --- the build ------------------------------------------------------------------------------------


def _check_stored_outputs(page: Page, notebook_page: str) -> None:
    """Built from the stored outputs: every stored stream output of the notebook is on its page,
    as the notebook has it."""
    notebook = json.loads((ROOT / notebook_page.replace(".html", ".ipynb")).read_text("utf-8"))
    streams = [
        "".join(output["text"]).strip()
        for cell in notebook["cells"]
        for output in cell.get("outputs", [])
        if output["output_type"] == "stream" and "".join(output["text"]).strip()
    ]
    shown = page.evaluate(
        "[...document.querySelectorAll('.cell_output pre')].map(p => p.textContent)"
    )
    page_text = "\n".join(" ".join(t.split()) for t in shown)
    missing = [s[:80] for s in streams if " ".join(s.split()) not in page_text]
    assert streams and missing == [], missing


def test_a_cold_build_takes_at_most_20_s():
    """`make html` builds the site from scratch (it first removes build/html and build/doctrees)
    and writes how long its sphinx-build took to build/html-build-ms: the build these tests
    read is the one timed (building it a second time here would only repeat it)."""
    timing = ROOT / "build" / "html-build-ms"
    if not timing.is_file():
        pytest.fail("build/html-build-ms missing: run `make html` first (it times its build)")
    # written after the build it times, not left over from an earlier one
    assert timing.stat().st_mtime >= (SITE / "index.html").stat().st_mtime
    seconds = int(timing.read_text(encoding="utf-8")) / 1000
    assert 0 < seconds <= BUILD_LIMIT, f"the build took {seconds:.1f} s"


def _check_code_toggles_named(page: Page, notebook_page: str) -> None:
    """A screen reader hears "Show the code of Figure 3.2" (its name in Chromium's accessibility
    tree), not the same "Toggle hidden content" 41 times: every toggle of the page is named after
    the figures its cell draws (this notebook's: no two toggles of the site alike), and says
    "Hide" once open."""
    cdp = page.context.new_cdp_session(page)
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    selector = "article .cell details.hide > summary"
    nodes = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})
    drawn = page.evaluate(
        """[...document.querySelectorAll('article .cell details.hide')].map(d =>
             [...d.closest('.cell').querySelectorAll('figure.vx-figure figcaption')]
               .map(c => c.textContent.trim().match(/^Figure [\\d.]+/)[0]))"""
    )
    assert len(nodes["nodeIds"]) == len(drawn)
    names = []
    for node, figures in zip(nodes["nodeIds"], drawn, strict=True):
        tree = cdp.send("Accessibility.getPartialAXTree", {"nodeId": node, "fetchRelatives": False})
        spoken = tree["nodes"][0]["name"]["value"]
        assert figures, (notebook_page, spoken)
        shown = (
            figures[0]
            if len(figures) == 1
            else "Figures " + " and ".join(f.removeprefix("Figure ") for f in figures)
        )
        assert spoken == f"Show the code of {shown}", (notebook_page, spoken, figures)
        names.append(spoken)
    cdp.detach()
    number = int(Path(notebook_page).name[:2])
    assert all(f.startswith(f"Figure {number}.") for fs in drawn for f in fs), drawn
    assert len(set(names)) == len(names), names
    summary = page.locator(selector).first
    summary.click()
    assert summary.inner_text().strip().startswith("Hide the code of Figure")


def _check_code_solutions(page: Page, notebook_page: str) -> None:
    """A worked solution's code has a Copy button and starts with the imports it needs: what Copy
    puts on the clipboard, run in an empty namespace (a fresh notebook, nothing imported), defines
    a function the exercise's own grader accepts. Its note links to the Run it yourself page."""
    from vitexplain import exercises

    boxes = page.locator(".vx-exercise:has(.vx-code-box)").all()
    assert boxes, f"no worked solution with code on {notebook_page}"
    for box in boxes:
        exercise_id = box.get_attribute("id").removeprefix("vx-exercise-").replace("-", ".")
        box.locator("summary").click()
        button = box.locator(".vx-code-box > button.vx-copy")
        assert button.is_visible() and button.get_attribute("aria-label") == "Copy the code"
        button.click()
        code = page.evaluate("navigator.clipboard.readText()")
        assert code.startswith(("def ", "import ", "from ")), code[:80]
        namespace: dict = {}
        exec(compile(code, f"<solution {exercise_id}>", "exec"), namespace)  # noqa: S102
        function = namespace[exercises.exercises()[exercise_id].asks.partition("(")[0]]
        assert exercises.grade(exercise_id, function) is None, exercise_id
        link = box.locator("a", has_text="Run it yourself")
        assert link.get_attribute("href").endswith("run.html")
        assert "make lab" not in box.inner_text()


# Checked on each notebook page after its axe run (light mode), on the DOM already loaded (while
# axe runs on the dark page); the
# last ones open <details>, the very last switches to print.
NOTEBOOK_PAGE_CHECKS = [
    _check_neighbours,
    _check_stored_figures,
    _check_mathml,
    _check_contents_list,
    _check_run_note,
    _check_stored_outputs,
    _check_code_toggles_named,  # before the next ones open every <details>
    _check_code_solutions,
    _check_code_fits_desktop,
    _check_print_wraps_code,
]
