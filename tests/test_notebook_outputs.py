"""What every stored notebook shows a reader who cannot see the figures: alt text.

Each image output (PNG or GIF) carries, in its output metadata, the alt text
``vx.display_figure`` / ``vx.display_gif`` gave it (nbconvert writes it into the static site's
``<img alt>``): a sentence of a few words, different for every figure of the series.
"""

from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def _images(path: Path) -> list[tuple[int, str, str | None]]:
    nb = nbformat.read(path, as_version=4)
    found = []
    for number, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            for mime in output.get("data", {}):
                if mime.startswith("image/"):
                    alt = output.get("metadata", {}).get(mime, {}).get("alt")
                    found.append((number, mime, alt))
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_image_output_has_alt_text(path: Path):
    images = _images(path)
    assert images, f"{path.name} stores no figure"
    for number, mime, alt in images:
        assert isinstance(alt, str), f"{path.name}, cell {number}: {mime} without alt text"
        assert len(alt.split()) >= 6, f"{path.name}, cell {number}: alt text too short: {alt!r}"


def test_alt_texts_are_distinct_across_the_series():
    alts = [alt for path in NOTEBOOKS for _, _, alt in _images(path)]
    repeated = {alt for alt in alts if alts.count(alt) > 1}
    assert not repeated, repeated
