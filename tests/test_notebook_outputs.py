"""What every stored notebook shows a reader who cannot see the figures: alt text and captions.

Each figure is stored as the HTML ``<figure>`` that ``vx.display_figure`` / ``vx.display_gif``
make: the image inline with its alt text (a sentence of a few words, different for every figure
of the series), and a visible caption numbered in reading order, "Figure <notebook>.<k> — ...".
No figure is stored as a bare ``image/*`` output, which JupyterLab would show without alt text.
"""

import re
from html.parser import HTMLParser
from pathlib import Path

import chapter_time
import pytest

# Nothing here compares a float that PyTorch or NumPy computed: `make test-baseline` leaves it out.
pytestmark = pytest.mark.cpu_independent

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


class _FigureParser(HTMLParser):
    """Collects (img src scheme, alt, caption) of every <figure> in an HTML output."""

    def __init__(self) -> None:
        super().__init__()
        self.figures: list[dict] = []
        self._in_caption = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "figure":
            self.figures.append({"src": None, "alt": None, "caption": ""})
        elif tag == "img" and self.figures:
            self.figures[-1]["src"] = (attrs.get("src") or "")[:22]
            self.figures[-1]["alt"] = attrs.get("alt")
        elif tag == "figcaption":
            self._in_caption = True

    def handle_endtag(self, tag):
        if tag == "figcaption":
            self._in_caption = False

    def handle_data(self, data):
        if self._in_caption and self.figures:
            self.figures[-1]["caption"] += data


def _figures(path: Path) -> list[tuple[int, dict, str]]:
    nb = chapter_time.read(path)  # as nbformat reads it, without importing nbformat
    found = []
    for number, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            bare = [mime for mime in data if mime.startswith("image/")]
            assert not bare, f"{path.name}, cell {number}: a bare {bare} output has no alt in Lab"
            if "vx-figure" in data.get("text/html", ""):
                parser = _FigureParser()
                parser.feed(data["text/html"])
                found += [(number, figure, data.get("text/plain", "")) for figure in parser.figures]
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_figure_has_alt_text_and_a_numbered_caption(path: Path):
    figures = _figures(path)
    assert figures, f"{path.name} stores no figure"
    notebook = int(path.name[:2])
    for k, (cell, figure, plain) in enumerate(figures, start=1):
        where = f"{path.name}, cell {cell}"
        assert re.fullmatch(r"data:image/(png|gif);base64,", figure["src"]), where
        alt = figure["alt"]
        assert isinstance(alt, str) and len(alt.split()) >= 6, f"{where}: alt too short: {alt!r}"
        caption = figure["caption"]
        assert caption.startswith(f"Figure {notebook}.{k} — "), f"{where}: caption {caption!r}"
        assert len(caption.split()) >= 5, f"{where}: caption too short: {caption!r}"
        assert plain == caption, f"{where}: text/plain {plain!r} is not the caption"


def test_alt_texts_and_captions_are_distinct_across_the_series():
    figures = [figure for path in NOTEBOOKS for _, figure, _ in _figures(path)]
    for key in ("alt", "caption"):
        texts = [figure[key] for figure in figures]
        repeated = {text for text in texts if texts.count(text) > 1}
        assert not repeated, repeated


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_notebook_stays_under_one_megabyte(path: Path):
    """A notebook is read in a browser and cloned by every learner: figures are 8-bit PNGs."""
    assert path.stat().st_size <= 2**20, f"{path.name}: {path.stat().st_size:,} bytes"
