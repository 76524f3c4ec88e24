"""vitexplain.plotting.relative_position: the figures of notebook 04, relative position."""

import numpy as np

from vitexplain import (
    load_mountains,
)


def test_relative_distances_strip_and_index():
    from vitexplain import relative_index, show_relative_distances

    fig = show_relative_distances(relative_index(4))
    ax_table, ax_index = fig.axes
    assert [t.get_text() for t in ax_table.texts] == ["-3", "-2", "-1", "+0", "+1", "+2", "+3"]
    assert [t.get_text() for t in ax_table.get_xticklabels()] == [str(m) for m in range(7)]
    np.testing.assert_array_equal(ax_table.images[0].get_array(), [np.arange(7) - 3])
    cells = [t.get_text() for t in ax_index.texts]
    assert cells[:4] == ["m = 3\n(+0)", "m = 4\n(+1)", "m = 5\n(+2)", "m = 6\n(+3)"]  # query 0
    assert cells[12] == "m = 0\n(-3)"  # query 3, key 0
    np.testing.assert_array_equal(ax_index.images[0].get_array(), relative_index(4).numpy() - 3)
    assert ax_index.images[0].get_clim() == ax_table.images[0].get_clim() == (-3, 3)
    assert (ax_index.get_xlabel(), ax_index.get_ylabel()) == ("key j", "query i")


def test_skew_steps_figure_follows_every_cell():
    import torch

    from vitexplain import show_skew_steps, skew_steps

    codes = torch.arange(1, 16).reshape(3, 5)
    labels = [f"{i},{m - 2:+d}" for i in range(3) for m in range(5)]
    fig = show_skew_steps(skew_steps(codes), labels)
    assert len(fig.axes) == 6
    assert [ax.get_title() for ax in fig.axes][::5] == ["0. relative (L, 2L-1)", "5. slice (L, L)"]
    texts = [[t.get_text() for t in ax.texts] for ax in fig.axes]
    assert [len(t) for t in texts] == [15, 18, 18, 20, 20, 9]
    assert texts[5] == ["0,+0", "0,+1", "0,+2", "1,-1", "1,+0", "1,+1", "2,-2", "2,-1", "2,+0"]
    assert texts[3].count("0") == 3 + 2  # one zero per row, then L - 1 = 2 more
    assert texts[4][:6] == ["0,-2", "0,-1", "0,+0", "0,+1", "0,+2", "0"]  # row 1 starts with a pad
    assert len(fig.axes[4].patches) == 1  # the dashed box of the slice
    for n in (0, 1, 4, 5):  # the 2D panels have both axes labelled
        assert fig.axes[n].get_xlabel() and fig.axes[n].get_ylabel()


def test_grid_offsets_figure():
    from vitexplain import grid_offsets, show_grid_offsets

    rows, cols = grid_offsets((3, 5), 11)
    fig = show_grid_offsets(load_mountains(), 20, rows, cols, highlight=11)
    ax_image, ax_rows, ax_cols = fig.axes
    assert ax_image.get_title() == "patch 12 (index 11) is the query"
    assert [t.get_text() for t in ax_rows.texts][::5] == ["-2\nr_h[0]", "-1\nr_h[1]", "+0\nr_h[2]"]
    assert [t.get_text() for t in ax_cols.texts][:5] == [
        "-1\nr_w[3]",
        "+0\nr_w[4]",
        "+1\nr_w[5]",
        "+2\nr_w[6]",
        "+3\nr_w[7]",
    ]
    for ax in (ax_rows, ax_cols):
        (outline,) = ax.patches
        assert (outline.get_x(), outline.get_y()) == (0.5, 1.5)  # row 2, column 1
        assert ax.images[0].get_clim() == (-4, 4)


def test_logit_matrices_share_a_symmetric_scale():
    from vitexplain import show_logit_matrices

    left, right = np.arange(9.0).reshape(3, 3) - 2, np.full((3, 3), 0.5)
    fig = show_logit_matrices([left, right], ["absolute", "relative"])
    assert len(fig.axes) == 3  # two panels and a colour bar
    assert [ax.get_title() for ax in fig.axes[:2]] == ["absolute", "relative"]
    assert all(ax.images[0].get_clim() == (-6.0, 6.0) for ax in fig.axes[:2])
    assert [t.get_text() for t in fig.axes[1].texts] == ["0.50"] * 9
    fig = show_logit_matrices(
        [left, right], ["a", "b"], colorbar_label="weight", outlines=[None, (1, 1, 2)]
    )
    assert fig.axes[2].get_xlabel() == "weight"  # a horizontal colour bar ...
    top, bottom, bar = (ax.get_position() for ax in fig.axes)
    assert top.y0 > bottom.y1 and bottom.y0 > bar.y1  # ... below the panels, one above the other
    (box,) = fig.axes[1].patches
    assert (box.get_x(), box.get_y(), box.get_width(), box.get_height()) == (0.5, 0.5, 2, 2)
    assert not fig.axes[0].patches
