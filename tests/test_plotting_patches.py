"""vitexplain.plotting.patches: the figures of notebook 01: patch tokenization."""

import numpy as np
import pytest

from vitexplain import (
    load_mountains,
    show_patch_grid,
)


def test_patch_grid_numbers_patches_and_picks_label_colour():
    fig = show_patch_grid(load_mountains(), 20)
    texts = {t.get_text(): t.get_color() for t in fig.axes[0].texts}
    assert list(texts) == [str(n) for n in range(1, 16)]
    assert texts["3"] == "black"  # the moon patch is bright: a dark label
    assert texts["15"] == "white"  # the dark foreground: a light label


def test_patch_and_token_shows_the_patch_rows_one_after_another():
    from vitexplain import show_patch_and_token

    patch = load_mountains()[40:60, 20:40]
    fig = show_patch_and_token(patch, number=12, highlight_row=10)
    ax_patch, ax_strip = fig.axes[:2]
    assert np.array_equal(ax_patch.images[0].get_array(), patch)
    strip = ax_strip.images[0].get_array()
    assert strip.shape == (1, 400)
    assert np.array_equal(strip[0, 20 * 10 : 20 * 11], patch[10])  # row 10 = positions 200-219
    assert np.array_equal(strip[0], patch.reshape(-1))
    assert ax_patch.images[0].get_clim() == ax_strip.images[0].get_clim() == (0.0, 1.0)
    # 19 separators between the 20 row segments, at the segment edges
    separators = sorted(line.get_xdata()[0] for line in ax_strip.lines)
    assert separators == [20 * k - 0.5 for k in range(1, 20)]
    assert "12" in ax_patch.get_title() and "12" in ax_strip.get_title()
    # the highlighted row is outlined in the patch (one pixel high) and in the strip (20 wide)
    (patch_box,), (strip_box,) = ax_patch.patches, ax_strip.patches
    assert (patch_box.get_y(), patch_box.get_height()) == (9.5, 1)
    assert (strip_box.get_x(), strip_box.get_width()) == (199.5, 20)
    # readable ticks: positions at the starts of patch rows 0, 5, 10, 15; all 20 rows on top
    assert list(ax_strip.get_xticks()) == [0, 100, 200, 300]
    top = ax_strip.child_axes[0]
    assert [t.get_text() for t in top.get_xticklabels()] == [str(r) for r in range(20)]
    assert min(t.get_fontsize() for t in top.get_xticklabels()) >= 9
    # side by side by default, the patch above the strip with ncols=1
    for ncols, beside in ((2, True), (1, False)):
        fig = show_patch_and_token(patch, ncols=ncols)
        fig.draw_without_rendering()
        a, b = (ax.get_position() for ax in fig.axes[:2])
        assert (a.x1 < b.x0) == beside and (a.y0 > b.y1) != beside


def test_patch_and_token_rejects_bad_patches():
    from vitexplain import show_patch_and_token

    with pytest.raises(ValueError, match=r"\(20, 10\)"):
        show_patch_and_token(np.zeros((20, 10)))
    with pytest.raises(ValueError, match="highlight_row must be in 0..19, got 20"):
        show_patch_and_token(np.zeros((20, 20)), highlight_row=20)


def test_token_matrix_numbers_tokens_from_one_with_a_colour_bar():
    import torch

    from vitexplain import patchify, show_token_matrix

    tokens = patchify(torch.tensor(load_mountains())[None, None], 20)[0]
    fig = show_token_matrix(tokens)
    ax = fig.axes[0]
    assert len(fig.axes) == 2  # the colour bar
    assert np.array_equal(ax.images[0].get_array(), tokens.numpy())
    assert ax.images[0].get_clim() == (0.0, 1.0)
    assert [t.get_text() for t in ax.get_yticklabels()] == [str(n) for n in range(1, 16)]
    assert list(ax.get_yticks()) == list(range(15))
    assert ax.get_xlabel() and ax.get_ylabel()
    # the colour bar below the matrix by default (a narrow figure), or to its right
    fig.draw_without_rendering()
    assert fig.axes[1].get_position().y1 < ax.get_position().y0
    right = show_token_matrix(tokens, colorbar_location="right")
    right.draw_without_rendering()
    assert right.axes[1].get_position().x0 > right.axes[0].get_position().x1
    # many tokens: a few round 1-based labels, starting at token 1 (row 0)
    many = show_token_matrix(np.zeros((6000, 1))).axes[0]
    labels = [t.get_text() for t in many.get_yticklabels()]
    assert labels[0] == "1" and labels[-1] == "6000" and len(labels) <= 16
    low, high = many.get_xlim()
    # one integer position for tokens of length 1
    assert [x for x in many.get_xticks() if low <= x <= high] == [0]


@pytest.mark.parametrize("p, texts", [(20, 15), (10, 60), (5, 0), (1, 0)])
def test_tokenization_draws_grid_and_token_matrix(p, texts):
    import torch

    from vitexplain import patchify, show_tokenization

    image = load_mountains()
    fig = show_tokenization(image, p)
    ax_grid, ax_tokens = fig.axes[:2]
    n = (60 // p) * (100 // p)
    assert len(ax_grid.texts) == texts  # numbers only when there are at most 60 patches
    if texts:
        assert [t.get_text() for t in ax_grid.texts] == [str(k) for k in range(1, n + 1)]
    assert np.array_equal(ax_grid.images[0].get_array(), image)
    drawn = ax_tokens.images[0].get_array()
    assert drawn.shape == (n, p * p)
    assert np.array_equal(drawn, patchify(torch.tensor(image)[None, None], p)[0].numpy())
    assert str(n) in ax_grid.get_title() and f"length {p * p}" in ax_tokens.get_title()
    # grid lines: numbered grids outline every patch, large grids only the inner edges (if P >= 4)
    rows, cols = 60 // p, 100 // p
    lines = rows + cols + 2 if texts else (rows + cols - 2 if p >= 4 else 0)
    assert len(ax_grid.lines) == lines


def test_patch_grid_refuses_sizes_and_highlights_outside_the_image():
    from vitexplain import load_mountains, show_patch_grid

    image = load_mountains()
    with pytest.raises(ValueError, match="patch_size 7 does not divide the image height 60"):
        show_patch_grid(image, 7)
    with pytest.raises(ValueError, match=r"highlight must be a patch index in \[0, 15\), got 15"):
        show_patch_grid(image, 20, highlight=15)
