"""scripts/compare_figures.py: the check `make test` runs on the figures nbval does not compare."""

from pathlib import Path

import compare_figures
import imageio.v3 as iio
import numpy as np
import pytest


@pytest.fixture
def folders(tmp_path):
    """A committed folder and a fresh copy of it: one PNG, one GIF, one e2e screenshot."""
    rng = np.random.default_rng(0)
    committed, fresh = tmp_path / "figures", tmp_path / "fresh"
    committed.mkdir()
    fresh.mkdir()
    image = rng.integers(0, 256, (120, 200, 3), dtype=np.uint8)
    frames = rng.integers(0, 256, (3, 40, 60, 3), dtype=np.uint8) // 64 * 64  # few colours
    for folder in (committed, fresh):
        iio.imwrite(folder / "01_a.png", image)
        iio.imwrite(folder / "05_b.gif", frames, extension=".gif", loop=0)
    iio.imwrite(committed / "lab_01.png", image)  # written by the browser test only
    return committed, fresh, image, frames


def test_identical_figures_pass(folders):
    committed, fresh, *_ = folders
    assert compare_figures.compare(fresh, committed, tol=1.0) == []


def test_a_few_noisy_pixels_pass_but_a_changed_region_fails(folders):
    committed, fresh, image, _ = folders
    noisy = image.copy()
    noisy[np.arange(10), np.arange(10)] ^= 1  # ten pixels off by one level: CPU noise
    iio.imwrite(fresh / "01_a.png", noisy)
    assert compare_figures.compare(fresh, committed, tol=1.0) == []
    changed = image.copy()
    changed[20:60, 30:90] = 255  # a block redrawn: a real change
    iio.imwrite(fresh / "01_a.png", changed)
    [problem] = compare_figures.compare(fresh, committed, tol=1.0)
    assert problem.startswith("01_a.png: RMS ") and "diff image" in problem
    assert Path(problem.split("diff image: ")[1].rstrip(")")).is_file()


def test_a_changed_gif_frame_fails(folders):
    committed, fresh, _, frames = folders
    changed = frames.copy()
    changed[2, :20] = 255
    iio.imwrite(fresh / "05_b.gif", changed, extension=".gif", loop=0)
    [problem] = compare_figures.compare(fresh, committed, tol=1.0)
    assert problem.startswith("05_b.gif: frame 2: RMS ")


def test_missing_and_extra_figures_fail(folders):
    committed, fresh, image, _ = folders
    (fresh / "01_a.png").unlink()
    iio.imwrite(fresh / "07_new.png", image)
    problems = compare_figures.compare(fresh, committed, tol=1.0)
    assert problems == [
        f"01_a.png: in {committed}/ but not written",
        f"07_new.png: written but not in {committed}/",
    ]
