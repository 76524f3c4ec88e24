"""The static site of `make html` (build/html/), read offline in Debian's Chromium.

Every page is opened from its file with every request that is not a local file blocked (and
recorded), and must show: no attempt to reach the network, no raw TeX, the animated GIF as an
<img>, links that all lead somewhere, and 0 violations from axe-core (all its rules, the WCAG AA
set and best practices). The site is built by `make html` before this test runs (`make e2e`).
"""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from axe_playwright_python.sync_playwright import Axe
from PIL import Image
from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "build" / "html"
NOTEBOOK_PAGES = sorted(p.with_suffix(".html").name for p in (ROOT / "notebooks").glob("*.ipynb"))
RAW_TEX = re.compile(r"\$[^$\s][^$]*\$|\\(frac|sqrt|mathbb|mathrm|cdot|top|begin)\b")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "site_page" in metafunc.fixturenames:
        metafunc.parametrize("site_page", ["index.html", *NOTEBOOK_PAGES])


@pytest.fixture(scope="module", autouse=True)
def built_site() -> Path:
    if not (SITE / "index.html").is_file():
        pytest.fail("build/html/index.html is missing: run `make html` first (make e2e does)")
    return SITE


def _open_offline(page: Page, name: str) -> list[str]:
    """Open a page of the site with every non-file request blocked; return those requests."""
    attempted: list[str] = []

    def guard(route):
        url = route.request.url
        if url.startswith(("file://", "data:")):
            route.continue_()
        else:
            attempted.append(url)
            route.abort()

    page.context.route("**/*", guard)
    page.goto((SITE / name).as_uri(), wait_until="load")
    return attempted


def test_site_page_reads_offline_with_no_violation(page: Page, site_page: str):
    attempted = _open_offline(page, site_page)
    assert attempted == [], f"{site_page} tried to reach {attempted[:5]}"

    # Math is MathML: no TeX left in the prose (code cells may print what they like).
    prose = page.locator(".markdown, .index").all_inner_texts()
    leftovers = [m.group(0) for text in prose for m in RAW_TEX.finditer(text)]
    assert leftovers == [], f"raw TeX on {site_page}: {leftovers[:5]}"

    # Every image is loaded, and says what it shows.
    images = page.evaluate(
        "[...document.images].map(i => [i.currentSrc.slice(0, 30), i.naturalWidth, i.alt])"
    )
    assert images and all(width > 0 for _, width, _ in images), images
    assert all(len(alt.split()) >= 4 for _, _, alt in images)

    # Every link leads somewhere: local files exist, anchors exist on their page.
    for href in page.evaluate("[...document.querySelectorAll('a[href]')].map(a => a.href)"):
        url = urlparse(href)
        if url.scheme in ("http", "https"):
            continue  # references to papers and code: links for the reader, never loaded
        assert url.scheme == "file", href
        target = Path(unquote(url.path))
        assert target.is_file(), f"{site_page}: broken link {href}"
        if url.fragment and target.suffix == ".html":
            assert f'id="{url.fragment}"' in target.read_text(encoding="utf-8"), href

    results = Axe().run(page)
    violations = [
        f"{v['id']}: {v['help']} ({len(v['nodes'])} nodes, e.g. {v['nodes'][0]['html'][:120]})"
        for v in results.response["violations"]
    ]
    assert violations == [], f"axe on {site_page}:\n" + "\n".join(violations)


def test_every_notebook_page_links_to_the_index_and_its_neighbours(page: Page):
    for i, name in enumerate(NOTEBOOK_PAGES):
        _open_offline(page, name)
        links = set(page.evaluate("[...document.querySelectorAll('nav a')].map(a => a.href)"))
        expected = {(SITE / "index.html").as_uri()}
        expected |= {(SITE / NOTEBOOK_PAGES[i - 1]).as_uri()} if i > 0 else set()
        expected |= (
            {(SITE / NOTEBOOK_PAGES[i + 1]).as_uri()} if i + 1 < len(NOTEBOOK_PAGES) else set()
        )
        assert links == expected, name
    _open_offline(page, "index.html")
    listed = page.evaluate("[...document.querySelectorAll('main a')].map(a => a.href)")
    assert listed == [(SITE / name).as_uri() for name in NOTEBOOK_PAGES]


def test_the_soft_split_gif_is_an_animated_img(page: Page):
    _open_offline(page, "05_t2t_soft_split.html")
    sources = page.evaluate(
        "[...document.images].filter(i => i.src.startsWith('data:image/gif'))"
        ".map(i => [i.src, i.naturalWidth, i.alt])"
    )
    assert len(sources) == 1
    src, width, alt = sources[0]
    gif = Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1])))
    assert width == gif.width > 0 and gif.n_frames == 60 and "soft split" in alt.lower()
