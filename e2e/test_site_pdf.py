"""Print: notebook pages printed to PDF, and `make pdf`'s whole series.

* Notebooks 03 and 08 (the tallest figures) printed from the site in A4 and in Letter, as a
  reader's browser prints them and with every code toggle open as `make pdf` prints: no blank or
  near-empty page, and every figure on one page with its caption (read from the PDF itself: the
  text and the images each page draws, by the small reader below; no PDF library).
* `make pdf`'s printable whole series (build/vitexplain.pdf), checked when it exists. Building it
  takes a minute or two (the singlehtml build, then Chromium prints about 200 pages), so `make
  e2e` does not build it: run `make pdf` first, and this test reads what it wrote. Checked: every
  chapter is in it (the outline), and every image of the one-page build is in it with its alt
  text (a tagged PDF: one /Alt per image, the same texts).
"""

from __future__ import annotations

import codecs
import html
import re
import zlib
from pathlib import Path

import pytest
import test_site
from conftest import block_network
from playwright.sync_api import Page
from site_pdf import MARGIN, OPEN_ALL  # scripts/ (conftest.py puts it on the path)

ROOT = Path(__file__).resolve().parents[1]
PDF = ROOT / "build" / "vitexplain.pdf"
SINGLE = ROOT / "build" / "singlehtml" / "index.html"
SITE = ROOT / "build" / "html"
page = test_site.page  # the site's own browser page (not JupyterLab's)
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _pdf_string(token: bytes) -> str:
    """A PDF string object's text: (literal) with escapes, or <hex> (UTF-16 with a BOM)."""
    if token.startswith(b"<"):
        raw = bytes.fromhex(token[1:-1].decode("ascii"))
        return raw[2:].decode("utf-16-be") if raw.startswith(codecs.BOM_UTF16_BE) else raw.decode()
    body = token[1:-1]
    body = re.sub(rb"\\([()\\])", rb"\1", body)
    return body.decode("latin-1")


def _strings(key: bytes, data: bytes) -> list[str]:
    """The text of every /Key (string) entry of the PDF."""
    tokens = re.findall(rb"/" + key + rb"\s*(\((?:\\.|[^\\)])*\)|<[0-9A-Fa-f]+>)", data)
    return [_pdf_string(t) for t in tokens]


@pytest.mark.skipif(not PDF.is_file(), reason="run `make pdf` first (not part of make e2e)")
def test_the_pdf_holds_every_chapter_and_every_figure_with_its_alt_text():
    data = PDF.read_bytes()
    assert data.startswith(b"%PDF-") and b"/StructTreeRoot" in data and b"/Outlines" in data
    pages = len(re.findall(rb"/Type\s*/Page\b", data))
    assert pages > 50, pages
    page = SINGLE.read_text(encoding="utf-8")
    expected = [html.unescape(a) for a in re.findall(r"<img\b[^>]*\balt=\"([^\"]*)\"", page)]
    assert len(expected) >= 40  # the index's thumbnails and every notebook's figures
    found = _strings(b"Alt", data)
    assert sorted(found) == sorted(expected)
    # The outline names every notebook's title.
    titles = [html.unescape(t) for t in re.findall(r"<h2>(\d\d · [^<]+)", page)]
    assert len(titles) == len(NOTEBOOKS), titles
    # Chromium's outline entries lose the spaces where a heading wraps: compare without them.
    outline = ["".join(entry.split()) for entry in _strings(b"Title", data)]
    missing = [t for t in titles if not any("".join(t.split()) in entry for entry in outline)]
    assert missing == [], missing


# --- a page-by-page reading of a PDF that Chromium (Skia) writes ------------------------------

_OBJECT = re.compile(rb"(\d+) 0 obj\s*(.*?)\bendobj", re.S)
_REF = rb"(\d+) 0 R"
# a font (/F4 12 Tf), a string shown (<hex> or (literal)), an XObject painted (/X7 Do)
_CONTENT = re.compile(
    rb"/([\w.]+)\s+[\d.]+\s+Tf|<([0-9A-Fa-f]*)>|\(((?:\\.|[^\\)])*)\)|/([\w.]+)\s+Do\b"
)
IMAGE = "\x00"  # where a page paints an image, in its text below


def _stream(body: bytes) -> bytes:
    head, _, rest = body.partition(b"stream")
    data = rest.lstrip(b"\r\n").rsplit(b"endstream", 1)[0]
    return zlib.decompress(data) if b"/FlateDecode" in head else data


def _names(body: bytes, key: bytes) -> dict[str, int]:
    """The object number of each name of a `/Key <</Name n 0 R ...>>` entry."""
    found = re.search(rb"/" + key + rb"\s*<<(.*?)>>", body, re.S)
    pairs = re.findall(rb"/([\w.]+)\s+" + _REF, found[1]) if found else []
    return {name.decode(): int(n) for name, n in pairs}


def _to_unicode(cmap: bytes) -> dict[int, str]:
    """A font's ToUnicode CMap: glyph code -> text."""
    table = {}
    for block in re.findall(rb"beginbfchar(.*?)endbfchar", cmap, re.S):
        for code, text in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
            table[int(code, 16)] = bytes.fromhex(text.decode()).decode("utf-16-be")
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", cmap, re.S):
        for low, high, text in re.findall(
            rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block
        ):
            first = bytes.fromhex(text.decode()).decode("utf-16-be")
            for code in range(int(low, 16), int(high, 16) + 1):
                table[code] = first[:-1] + chr(ord(first[-1]) + code - int(low, 16))
    return table


def pdf_pages(data: bytes) -> list[tuple[str, list[int]]]:
    """Each page's text in painting order, with IMAGE where it paints an image, and the object
    numbers of the images it paints (a figure split over two pages is painted on both)."""
    objects = {int(m[1]): m[2] for m in _OBJECT.finditer(data)}
    kinds = {n: re.search(rb"/Type\s*/(Pages|Page)\b", body) for n, body in objects.items()}
    root = next(
        n for n, k in kinds.items() if k and k[1] == b"Pages" and b"/Parent" not in objects[n]
    )
    order, stack = [], [root]
    while stack:  # the page tree, depth first, in order
        n = stack.pop()
        if kinds[n][1] == b"Page":
            order.append(objects[n])
        else:
            kids = re.search(rb"/Kids\s*\[(.*?)\]", objects[n], re.S)[1]
            stack.extend(int(k) for k in reversed(re.findall(_REF, kids)))
    fonts: dict[int, tuple[dict[int, str], int]] = {}
    pages = []
    for page in order:
        used = {}
        for name, n in _names(page, b"Font").items():
            if n not in fonts:
                cmap = re.search(rb"/ToUnicode\s+" + _REF, objects[n])
                table = _to_unicode(_stream(objects[int(cmap[1])])) if cmap else {}
                fonts[n] = (table, 2 if b"/Type0" in objects[n] else 1)  # bytes per glyph
            used[name] = fonts[n]
        images = {
            name: n
            for name, n in _names(page, b"XObject").items()
            if b"/Subtype /Image" in objects[n].partition(b"stream")[0]
        }
        contents = re.search(rb"/Contents\s*(\[.*?\]|\d+ 0 R)", page, re.S)[1]
        stream = b"".join(_stream(objects[int(n)]) for n in re.findall(_REF, contents))
        text, painted, (table, width) = [], [], ({}, 1)
        for token in _CONTENT.finditer(stream):
            font, hexa, literal, xobject = token.groups()
            if font:
                table, width = used.get(font.decode(), ({}, 1))
            elif hexa is not None:
                raw = bytes.fromhex(hexa.decode())
                codes = (
                    int.from_bytes(raw[i : i + width], "big") for i in range(0, len(raw), width)
                )
                text.append("".join(table.get(code, "") for code in codes))
            elif literal is not None:
                text.append(literal.decode("latin-1"))
            elif xobject and xobject.decode() in images:
                text.append(IMAGE)
                painted.append(images[xobject.decode()])
        pages.append(("".join(text), painted))
    return pages


# --- notebooks 03 and 08 printed -------------------------------------------------------------

NEAR_EMPTY = 150  # characters: a page with less text and no image (but the last) is near-empty


@pytest.mark.parametrize("notebook", ["03_sinusoidal_pe_clocks", "08_vit_on_digits"])
def test_a_printed_notebook_has_no_empty_page_and_every_figure_with_its_caption(
    page: Page, notebook: str, tmp_path: Path
):
    """The page loaded once, printed in A4 and Letter with its code toggles closed, then again
    with every toggle open."""
    attempted = block_network(page.context)
    page.goto((SITE / "notebooks" / f"{notebook}.html").as_uri(), wait_until="load")
    page.emulate_media(media="print")
    for toggles in ("closed", "open"):
        if toggles == "open":  # as `make pdf` prints (scripts/site_pdf.py)
            page.evaluate(OPEN_ALL)
        page.evaluate("document.fonts.ready")
        numbers = page.evaluate(
            """[...document.querySelectorAll('article figure.vx-figure figcaption')]
                 .filter(c => c.getClientRects().length)
                 .map(c => c.textContent.trim().match(/^Figure [\\d.]+/)[0])"""
        )
        assert len(numbers) >= 6, numbers
        for paper in ("A4", "Letter"):
            target = tmp_path / f"{notebook}_{paper}_{toggles}.pdf"
            page.pdf(path=str(target), format=paper, margin=MARGIN)
            _check_printed(pdf_pages(target.read_bytes()), numbers, f"{paper}, toggles {toggles}")
    assert attempted == []


def _check_printed(pages: list[tuple[str, list[int]]], numbers: list[str], how: str) -> None:
    """No blank or near-empty page; each figure on one page, its caption right after it."""
    assert len(pages) > 10, (how, len(pages))
    empty = [
        i + 1
        for i, (text, painted) in enumerate(pages[:-1])
        if not painted and len(text.strip()) < NEAR_EMPTY
    ]
    assert empty == [], f"{how}: pages {empty} of {len(pages)} are blank or near-empty"
    for number in numbers:
        # The image, then the first words of its caption ("Figure 3.2 —"; Chromium's text has no
        # spaces between words) on one page, and no other page paints that image. (With its
        # code open, the caption is in the code too, as a string: not after an image.)
        marker = IMAGE + "".join(number.split()) + "—"
        found = [(i, "".join(t.split())) for i, (t, _) in enumerate(pages)]
        found = [(i, text) for i, text in found if marker in text]
        assert len(found) == 1, f"{how}: {number} is not on one page right after its image"
        i, text = found[0]
        image = pages[i][1][text[: text.index(marker)].count(IMAGE)]
        elsewhere = [j + 1 for j, (_, painted) in enumerate(pages) if j != i and image in painted]
        assert elsewhere == [], f"{how}: {number} runs over pages {i + 1} and {elsewhere}"
