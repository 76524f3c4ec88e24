"""`make pdf`'s printable whole series (build/vitexplain.pdf), checked when it exists.

Building it takes a minute or two (the singlehtml build, then Chromium prints about 200 pages),
so `make e2e` does not build it: run `make pdf` first, and this test reads what it wrote. Checked:
every chapter is in it (the outline), and every image of the one-page build is in it with its
alt text (a tagged PDF: one /Alt per image, the same texts).
"""

from __future__ import annotations

import codecs
import html
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PDF = ROOT / "build" / "vitexplain.pdf"
SINGLE = ROOT / "build" / "singlehtml" / "index.html"
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
