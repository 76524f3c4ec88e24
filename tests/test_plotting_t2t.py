"""vitexplain.plotting.t2t: the figures of notebook 05: T2T soft split."""

import numpy as np
import pytest

from vitexplain import (
    figure_to_array,
    load_mountains,
)


def _softsplit_rectangles(fig):
    """The patch outlines of a soft-split frame: the white rectangles (not the orange edge)."""
    return [p for p in fig.axes[0].patches if p.get_edgecolor()[:3] == (1.0, 1.0, 1.0)]


def test_softsplit_frame_draws_current_solid_and_earlier_dotted():
    from vitexplain import show_softsplit_frame

    fig = show_softsplit_frame(load_mountains(), 20, 10, 5, current=12)
    rects = _softsplit_rectangles(fig)
    assert len(rects) == 60
    visible = [r for r in rects if r.get_visible()]
    assert len(visible) == 13  # patches 1..13 (0-based 0..12)
    assert [r.get_linestyle() for r in visible] == [":"] * 12 + ["-"]
    assert visible[-1].get_xy() == (2 * 10 - 0.5, 1 * 10 - 0.5)  # row 1, column 2 (0-based)
    assert visible[-1].get_width() == visible[-1].get_height() == 20
    assert fig.axes[0].get_title(loc="left") == "patch 13 of 60 (row 2, column 3)"
    assert fig.axes[0].images[0].get_array().shape == (70, 110)  # the padded picture
    assert fig.axes[0].get_xlim() == (-0.5, 109.5)


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


def test_fold_reconstruction_draws_three_panels_with_colour_bars():
    import torch

    from vitexplain import overlap_count, show_fold_reconstruction

    counts = overlap_count(60, 100, 20, 10, 5)
    image = torch.tensor(load_mountains(), dtype=torch.float32)
    fig = show_fold_reconstruction(image * counts, counts, image)
    assert len(fig.axes) == 6  # three panels, three colour bars
    summed, count_map, recovered = (fig.axes[i].images[0] for i in (0, 1, 2))
    assert summed.get_clim() == (0.0, 4.0) and recovered.get_clim() == (0.0, 1.0)
    assert np.array_equal(count_map.get_array(), counts.numpy())
    assert list(fig.axes[4].get_yticks()) == [1.0, 2.0, 4.0]  # the count colour bar
    with pytest.raises(ValueError, match=r"\(60, 100\), \(60, 99\)"):
        show_fold_reconstruction(image, counts[:, :99], image)


def test_softsplit_coverage_outlines_every_patch_and_counts_overlaps():
    from matplotlib.collections import LineCollection

    from vitexplain import overlap_count, show_softsplit_coverage

    fig = show_softsplit_coverage(load_mountains(), 20, 10, 5)
    title = fig.get_suptitle()
    assert "6 x 10 = 60 tokens of length 400" in title and "every pixel" in title
    picture, counts = fig.axes[:2]  # then their two colour bars
    (outlines,) = [c for c in picture.collections if isinstance(c, LineCollection)]
    assert len(outlines.get_segments()) == 60
    assert np.array_equal(counts.images[0].get_array(), overlap_count(70, 110, 20, 10, 0).numpy())
    # s = k: no overlap; the last 5 rows and columns of the picture fall outside the 3 x 5 patches
    fig = show_softsplit_coverage(load_mountains(), 20, 20, 5)
    assert "3 x 5 = 15 tokens" in fig.get_suptitle()
    assert "775 pixels of the picture lie in no patch" in fig.get_suptitle()  # 5*100 + 5*60 - 5*5
    fig = show_softsplit_coverage(load_mountains(), 2, 1, 20)  # 99 x 139 patches: not outlined
    assert "13761 patches: too many to outline" in fig.axes[0].get_title()
    assert not [c for c in fig.axes[0].collections if isinstance(c, LineCollection)]
    assert fig.axes[1].images[0].get_array().max() == 4  # k = 2, s = 1: up to 4 patches a pixel


def test_softsplit_explorer_shows_the_error_message_for_impossible_splits():
    from vitexplain import show_softsplit_explorer

    fig = show_softsplit_explorer(load_mountains(), 80, 10, 5)
    (text,) = fig.axes[0].texts
    message = " ".join(text.get_text().split())  # the message is wrapped over lines
    assert "ValueError: kernel k=80 is larger than the padded image height 60 + 2*5 = 70" in message
    assert fig.axes[0].get_title() == "no soft split with k = 80, s = 10, p = 5"
    assert len(show_softsplit_explorer(load_mountains(), 20, 10, 5).axes) == 4  # the coverage


def test_softsplit_plots_reject_bad_input():
    from vitexplain import show_softsplit_coverage, show_softsplit_frame

    with pytest.raises(ValueError, match="current=60 is out of range for 60 patches"):
        show_softsplit_frame(load_mountains(), 20, 10, 5, current=60)
    with pytest.raises(ValueError, match=r"\(2, 3, 4\)"):
        show_softsplit_frame(np.zeros((2, 3, 4)), 2, 1, 0, current=0)
    with pytest.raises(ValueError, match="kernel k=80"):
        show_softsplit_coverage(load_mountains(), 80, 10, 5)
    with pytest.raises(TypeError, match="p must be an int"):
        show_softsplit_coverage(load_mountains(), 20, 10, 2.5)
