"""vitexplain.plotting.t2t_animation: the soft-split animation of notebook 05."""

import numpy as np
import pytest

from vitexplain import figure_to_array, load_mountains


def test_softsplit_frame_tints_earlier_patches_and_shades_the_overlap():
    from matplotlib.patches import PathPatch

    from vitexplain import overlap_count, show_softsplit_frame

    fig = show_softsplit_frame(load_mountains(), 20, 10, 5, current=12)
    ax = fig.axes[0]
    tints = [p for p in ax.patches if p.get_zorder() == 0.6]  # one per patch
    assert len(tints) == 60 and [t.get_visible() for t in tints] == [True] * 12 + [False] * 48
    outlines = [p for p in ax.patches if p.get_zorder() in (2.7, 2.8)]  # black halo, yellow line
    assert [o.get_edgecolor()[:3] for o in outlines] == [(0.0, 0.0, 0.0), (1.0, 212 / 255, 0.0)]
    assert all(o.get_xy() == (2 * 10 - 0.5, 1 * 10 - 0.5) for o in outlines)  # row 1, column 2
    assert all(o.get_width() == o.get_height() == 20 for o in outlines)
    # the shaded overlap: the pixels of patch 13 that patches 1..12 already cover (brute force)
    (overlap,) = [p for p in ax.patches if isinstance(p, PathPatch)]
    covered = np.zeros((70, 110), bool)
    for r, c in [(0, c) for c in range(10)] + [(1, 0), (1, 1)]:
        covered[10 * r : 10 * r + 20, 10 * c : 10 * c + 20] = True
    centres = [(x, y) for y in range(10, 30) for x in range(20, 40)]  # pixel centres of patch 13
    inside = overlap.get_path().contains_points(centres).reshape(20, 20)
    assert np.array_equal(inside, covered[10:30, 20:40])
    assert inside.sum() == 300  # the top half (from row 1) and the left half (from patch 12)
    before = overlap_count(70, 110, 20, 10, 0, num_patches=12).numpy()
    assert np.array_equal(before > 0, covered)
    assert ax.get_title(loc="left") == "patch 13 of 60"
    assert ax.images[0].get_array().shape == (70, 110)  # the padded picture
    assert ax.get_xlim() == (-0.5, 109.5)


def test_softsplit_frames_reuse_one_figure_and_equal_single_frames():
    from vitexplain import show_softsplit_frame, softsplit_frames

    image, size = load_mountains(), (5, 3.3)  # smaller frames (titles still apart): faster
    frames = softsplit_frames(image, 20, 10, 5, figsize=size)
    assert len(frames) == 60 and {f.shape for f in frames} == {(330, 500, 3)}
    assert frames[0].dtype == np.uint8
    for n in (0, 1, 59):  # the blitted frame is pixel for pixel the full drawing
        single = show_softsplit_frame(image, 20, 10, 5, n, figsize=size)
        assert np.array_equal(frames[n], figure_to_array(single))
    assert all(not np.array_equal(a, b) for a, b in zip(frames, frames[1:], strict=False))


def test_softsplit_gif_keeps_the_colours_of_every_frame(tmp_path):
    import imageio.v3 as iio

    from vitexplain import save_gif, softsplit_frames

    frames = softsplit_frames(load_mountains(), 20, 10, 5, figsize=(5, 3.3))
    read = iio.imread(save_gif(frames, tmp_path / "split.gif", fps=4), index=None)
    assert read.shape == (60, 330, 500, 3)
    # one palette for all frames, taken from a sample: the tints of the last frames survive too
    errors = [np.abs(r.astype(int) - f).sum(-1).mean() for r, f in zip(read, frames, strict=True)]
    assert max(errors) < 8


def test_softsplit_frame_refuses_a_patch_outside_the_split():
    from vitexplain import show_softsplit_frame

    with pytest.raises(ValueError, match=r"current must be a patch index in \[0, 60\), got -1"):
        show_softsplit_frame(load_mountains(), 20, 10, 5, current=-1)  # else the last, silently


# Machado, Oliveira & Fernandes (2009), severity 1: dichromat vision, a 3 x 3 matrix on linear RGB.
CVD = {
    "protanopia": [
        [0.152286, 1.052583, -0.204868],
        [0.114503, 0.786281, 0.099216],
        [-0.003882, -0.048116, 1.051998],
    ],
    "deuteranopia": [
        [0.367322, 0.860646, -0.227968],
        [0.280085, 0.672501, 0.047413],
        [-0.011820, 0.042940, 0.968881],
    ],
}


def _simulate(rgb: np.ndarray, matrix: list[list[float]]) -> np.ndarray:
    """sRGB in [0, 1] -> how a dichromat sees it, in sRGB."""
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    seen = np.clip(linear @ np.asarray(matrix).T, 0, 1)
    return np.where(seen <= 0.0031308, 12.92 * seen, 1.055 * seen ** (1 / 2.4) - 0.055)


@pytest.mark.parametrize("kind", sorted(CVD))
def test_overlap_and_earlier_patches_differ_by_more_than_hue(kind):
    """On a flat grey picture the marks are all there is: under a simulated colour-vision
    deficiency the overlap must still stand out from the earlier-patch tint by its hatching."""
    from vitexplain import figure_to_array, show_softsplit_frame

    fig = show_softsplit_frame(np.full((60, 100), 0.5), 20, 10, 5, current=17)  # row 1, column 7
    seen = _simulate(figure_to_array(fig) / 255.0, CVD[kind])
    ax, height = fig.axes[0], seen.shape[0]

    def window(x0: float, x1: float, y0: float, y1: float) -> np.ndarray:
        (ax0, ay0), (ax1, ay1) = ax.transData.transform([(x0, y0), (x1, y1)])
        rows = slice(int(height - max(ay0, ay1)), int(height - min(ay0, ay1)))
        return seen[rows, int(min(ax0, ax1)) : int(max(ax0, ax1))]

    overlap = window(72, 78, 22, 28)  # the current patch's left half: cut by patch 17 before
    earlier = window(55, 65, 22, 28)  # covered by earlier patches only
    assert overlap.size and earlier.size

    def spread(region: np.ndarray) -> float:  # over the pixels, per channel
        return float(region.reshape(-1, 3).std(axis=0).max())

    assert spread(earlier) < 0.02  # a flat tint
    assert spread(overlap) > 0.1  # hatched: a texture that needs no colour vision


def test_too_many_frames_are_refused_at_once():
    from vitexplain import load_mountains, softsplit_frames

    with pytest.raises(ValueError, match="5684 patches: an animation of 5684 frames"):
        softsplit_frames(load_mountains(), 3, 1, 0)
