"""vitexplain.plotting.attention: the figures of notebook 02: attention."""

import numpy as np
import pytest

from vitexplain import (
    load_mountains,
)


def _outlines(ax):
    """(x, y, width, height) of every rectangle added to the axes."""
    from matplotlib.patches import Rectangle

    return [
        (p.get_x(), p.get_y(), p.get_width(), p.get_height())
        for p in ax.patches
        if isinstance(p, Rectangle)
    ]


def test_show_matrices_draws_every_matrix_annotated_and_outlined():
    from vitexplain import show_matrices

    q = np.arange(36).reshape(4, 9)
    s = np.arange(16).reshape(4, 4) * 100
    rows, cols = [None, [0, 2], [3]], [None, [0, 2], None]
    fig = show_matrices(
        [q, s, q], titles=["Q", "S", None], ncols=2, highlight_rows=rows, highlight_cols=cols
    )
    axes = fig.axes
    assert len(axes) == 3  # the unused fourth cell of the 2 x 2 grid is removed
    assert [ax.get_title() for ax in axes] == ["Q", "S", ""]
    np.testing.assert_array_equal(axes[1].images[0].get_array(), s)
    assert axes[1].images[0].get_clim() == (0.0, 1500.0)  # each panel its own range
    assert [t.get_text() for t in axes[1].texts] == [str(v) for v in s.ravel()]
    assert [t.get_text() for t in axes[0].get_xticklabels()] == [str(c) for c in range(9)]
    assert _outlines(axes[0]) == []
    # rows 0 and 2 (whole width), then columns 0 and 2 (whole height)
    assert _outlines(axes[1]) == [
        (-0.5, -0.5, 4, 1),
        (-0.5, 1.5, 4, 1),
        (-0.5, -0.5, 1, 4),
        (1.5, -0.5, 1, 4),
    ]
    assert _outlines(axes[2]) == [(-0.5, 2.5, 9, 1)]


def test_show_matrices_outlines_single_cells():
    from vitexplain import show_matrices

    s = np.arange(16).reshape(4, 4)
    fig = show_matrices([s, s], highlight_cells=[[(0, 1)], [(2, 1), (3, 3)]])
    assert _outlines(fig.axes[0]) == [(0.5, -0.5, 1, 1)]  # row 0, column 1: one cell
    assert _outlines(fig.axes[1]) == [(0.5, 1.5, 1, 1), (2.5, 2.5, 1, 1)]
    # an outline outside the matrix would be drawn off the panel, silently
    with pytest.raises(ValueError, match=r"highlights of matrices\[1\] must lie in its \(4, 4\)"):
        show_matrices([s, s], highlight_cells=[None, [(4, 0)]])
    with pytest.raises(ValueError, match="titles has 1 entries for 2 matrices"):
        show_matrices([s, s], titles=["only one"])


def test_scrambled_patches_keep_their_original_numbers():
    from vitexplain import scramble_patches, show_scrambled_patches

    image = load_mountains()
    order = np.random.default_rng(21).permutation(15)
    fig = show_scrambled_patches(image, 20, order)
    left, right = fig.axes
    assert left.get_position().y0 > right.get_position().y1  # the original above the copy
    assert [t.get_text() for t in left.texts] == [str(n) for n in range(1, 16)]
    assert [t.get_text() for t in right.texts] == [str(o + 1) for o in order]
    np.testing.assert_array_equal(left.images[0].get_array(), image)
    drawn = np.asarray(right.images[0].get_array())
    np.testing.assert_array_equal(drawn, scramble_patches(image, 20, order))
    for i, o in enumerate(order):  # position i shows original patch o, cut by hand
        (r, c), (ro, co) = divmod(i, 5), divmod(int(o), 5)
        here = drawn[20 * r : 20 * r + 20, 20 * c : 20 * c + 20]
        np.testing.assert_array_equal(here, image[20 * ro : 20 * ro + 20, 20 * co : 20 * co + 20])
    moon = [t for t in right.texts if t.get_text() == "3"][0]
    assert moon.get_color() == "black"  # the bright moon keeps its dark label where it lands
    with pytest.raises(ValueError, match="permutation of range"):
        show_scrambled_patches(image, 20, [0] * 15)


def test_attention_heads_share_one_colour_scale():
    import torch

    from vitexplain import show_attention_heads

    weights = torch.softmax(torch.randn(4, 15, 15), dim=-1)
    fig = show_attention_heads(weights)
    assert len(fig.axes) == 5  # four maps and one shared colour bar
    maps, colour_bar = fig.axes[:4], fig.axes[4]
    assert [ax.get_title() for ax in maps] == ["head 1", "head 2", "head 3", "head 4"]
    # one scale for all heads, from the smallest to the largest weight, the picture's colour map
    assert {ax.images[0].get_clim() for ax in maps} == {
        (float(weights.min()), float(weights.max()))
    }
    assert {ax.images[0].get_cmap().name for ax in maps} == {"magma"}
    norm = maps[0].images[0].norm  # a square-root scale, shared by all heads
    assert all(ax.images[0].norm is norm for ax in maps) and norm.gamma == 0.5
    assert min(t.get_fontsize() for t in maps[2].get_xticklabels()) >= 8
    for head, ax in enumerate(maps):
        np.testing.assert_array_equal(ax.images[0].get_array(), weights[head].numpy())
    # 1-based token numbers, written on the outer panels only (left column, bottom row); a tick
    # on every key, a number on every other one (15 two-digit labels would touch)
    keys = [t.get_text() for t in maps[2].get_xticklabels()]
    assert keys == [str(n) if n % 2 else "" for n in range(1, 16)]
    assert list(maps[2].get_xticks()) == list(range(15))
    assert [t.get_text() for t in maps[2].get_yticklabels()] == [str(n) for n in range(1, 16)]
    assert maps[2].get_xlabel() == "key (patch)" and maps[2].get_ylabel() == "query (patch)"
    assert maps[1].get_xlabel() == "" and maps[1].get_ylabel() == ""
    # the colour bar lies below the maps, horizontal
    assert colour_bar.get_xlabel() == "attention weight"
    fig.canvas.draw()
    assert colour_bar.get_position().y1 < min(ax.get_position().y0 for ax in maps)
    few = show_attention_heads(weights[:, :9, :9])  # nine keys: every one numbered
    assert [t.get_text() for t in few.axes[2].get_xticklabels()] == [str(n) for n in range(1, 10)]
