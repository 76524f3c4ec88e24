"""Tests of vitexplain.data: the painted picture, the saved file and the loader."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vitexplain import data
from vitexplain.data import load_mountains, mountain_at_dusk, save_mountains

PATCH = 20
SAVED = Path(__file__).resolve().parent.parent / "data" / "mountains.npy"


def patch(image: np.ndarray, number: int) -> np.ndarray:
    """Patch ``number`` (1..15, row-major) of the 3 x 5 grid of 20 x 20 patches."""
    row, col = divmod(number - 1, 5)
    return image[row * PATCH : (row + 1) * PATCH, col * PATCH : (col + 1) * PATCH]


@pytest.fixture(scope="module")
def picture() -> np.ndarray:
    return mountain_at_dusk()


def test_saved_file_is_the_painters_output(picture: np.ndarray) -> None:
    saved = np.load(SAVED, allow_pickle=False)
    assert saved.dtype == np.float64
    assert saved.shape == (60, 100)
    assert np.array_equal(saved, picture)


def test_load_equals_painting(picture: np.ndarray) -> None:
    loaded = load_mountains()
    assert loaded.dtype == np.float64
    assert loaded.shape == (60, 100)
    assert np.array_equal(loaded, picture)


def test_load_paints_when_file_is_missing(
    picture: np.ndarray, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "data" / "mountains.npy"
    monkeypatch.setattr(data, "MOUNTAINS_PATH", missing)

    def no_load(*args: object, **kwargs: object) -> None:
        raise AssertionError("load_mountains read a file although none exists")

    monkeypatch.setattr(np, "load", no_load)
    loaded = load_mountains()
    assert not missing.exists()
    assert np.array_equal(loaded, picture)


def test_save_is_deterministic(picture: np.ndarray, tmp_path: Path) -> None:
    first = save_mountains(tmp_path / "a.npy")
    second = save_mountains(tmp_path / "sub" / "b.npy")
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes() == SAVED.read_bytes()
    assert np.array_equal(np.load(first, allow_pickle=False), picture)


def test_save_writes_the_path_as_given(tmp_path: Path) -> None:
    target = tmp_path / "mountains.bin"
    assert save_mountains(target) == target
    assert target.read_bytes() == SAVED.read_bytes()


def test_values_on_the_eight_level_grid(picture: np.ndarray) -> None:
    assert picture.dtype == np.float64
    assert picture.min() >= 0.0 and picture.max() <= 1.0
    levels = np.round(picture * 7)
    assert np.array_equal(picture, levels / 7)
    assert len(np.unique(picture)) >= 6


def test_moon_is_in_patch_3(picture: np.ndarray) -> None:
    means = [patch(picture, n).mean() for n in range(1, 16)]
    assert int(np.argmax(means)) + 1 == 3
    assert (patch(picture, 3) == 1.0).any()
    # The moon sits on the top edge, centred.
    assert picture[0, 49] == 1.0 and picture[0, 50] == 1.0


def test_bottom_row_is_dark(picture: np.ndarray) -> None:
    bottom = picture[40:60]
    assert bottom.mean() < 0.75 * picture.mean()
    assert picture[-1].max() == 0.0  # the foreground runs along the whole bottom edge


def test_patch_12_shows_several_shades(picture: np.ndarray) -> None:
    assert len(np.unique(patch(picture, 12))) >= 3


def test_painting_is_deterministic() -> None:
    assert np.array_equal(mountain_at_dusk(), mountain_at_dusk())
    assert np.array_equal(mountain_at_dusk(60, 100), mountain_at_dusk(height=60, width=100))


@pytest.mark.parametrize("size", [(120, 200), (8, 8), (61, 99), (200, 50)])
def test_other_sizes(size: tuple[int, int]) -> None:
    image = mountain_at_dusk(*size)
    assert image.shape == size
    assert image.dtype == np.float64
    assert image.min() >= 0.0 and image.max() <= 1.0
    assert np.array_equal(image, np.round(image * 7) / 7)


def test_numpy_ints_are_accepted() -> None:
    assert np.array_equal(mountain_at_dusk(np.int64(60), np.int32(100)), mountain_at_dusk())


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"height": 7}, r"at least 8, got 7 x 100$"), ({"width": -3}, "got 60 x -3$")],
)
def test_too_small_raises_value_error(kwargs: dict[str, int], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        mountain_at_dusk(**kwargs)
