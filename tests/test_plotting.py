import imageio.v3 as iio
import numpy as np
import pytest
from matplotlib.figure import Figure

from vitexplain import (
    figure_to_array,
    load_mountains,
    save_figure,
    save_gif,
    show_embedding,
    show_image,
    show_matrix,
    show_patch_grid,
    sinusoid_encoding,
)


def test_patch_grid_numbers_patches_and_picks_label_colour():
    fig = show_patch_grid(load_mountains(), 20)
    texts = {t.get_text(): t.get_color() for t in fig.axes[0].texts}
    assert list(texts) == [str(n) for n in range(1, 16)]
    assert texts["3"] == "black"  # the moon patch is bright: a dark label
    assert texts["15"] == "white"  # the dark foreground: a light label


def test_show_matrix_annotates_every_cell():
    matrix = np.arange(36).reshape(4, 9)
    fig = show_matrix(matrix, annotate=True)
    assert [t.get_text() for t in fig.axes[0].texts] == [str(v) for v in range(36)]
    assert isinstance(fig, Figure)


def test_embedding_uses_limits_minus_one_to_one():
    fig = show_embedding(sinusoid_encoding(176, 768))
    assert fig.axes[0].images[0].get_clim() == (-1.0, 1.0)
    assert len(fig.axes) == 2  # with a colour bar


def test_save_figure_is_byte_for_byte_reproducible(tmp_path):
    paths = [save_figure(show_image(load_mountains()), tmp_path / f"sub/{n}.png") for n in range(2)]
    first, second = (p.read_bytes() for p in paths)
    assert first == second and first[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"Software" not in first and b"matplotlib" not in first
    with pytest.raises(ValueError, match="fig.jpg"):
        save_figure(show_image(load_mountains()), tmp_path / "fig.jpg")


def test_save_gif_writes_every_frame_with_one_palette(tmp_path):
    frames = []
    for step in range(5):
        fig = show_image(load_mountains(), title=f"frame {step}", figsize=(3, 2))
        frames.append(figure_to_array(fig))
    assert frames[0].shape == (200, 300, 3) and frames[0].dtype == np.uint8
    path = save_gif(frames, tmp_path / "anim.gif", fps=5)
    read = iio.imread(path, index=None)
    assert read.shape[0] == 5
    # colours survive the shared palette (flat figure colours, no dithering)
    assert np.abs(read[0][..., :3].astype(int) - frames[0]).mean() < 2
    save_gif(frames, tmp_path / "again.gif", fps=5)
    assert (tmp_path / "again.gif").read_bytes() == path.read_bytes()


def test_plotting_rejects_bad_input(tmp_path):
    with pytest.raises(ValueError, match=r"\(2, 3, 4\)"):
        show_image(np.zeros((2, 3, 4)))
    with pytest.raises(ValueError, match="frames is empty"):
        save_gif([], tmp_path / "x.gif")
    with pytest.raises(ValueError, match="shapes"):
        save_gif([np.zeros((4, 4, 3), np.uint8), np.zeros((5, 4, 3), np.uint8)], tmp_path / "x.gif")


# --- notebook 01: patch tokenization ---


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


def test_patch_and_token_rejects_bad_patches():
    from vitexplain import show_patch_and_token

    with pytest.raises(ValueError, match=r"\(20, 10\)"):
        show_patch_and_token(np.zeros((20, 10)))
    with pytest.raises(ValueError, match="highlight_row must be in 0..19, got 20"):
        show_patch_and_token(np.zeros((20, 20)), highlight_row=20)


def test_figure_to_png_gives_the_bytes_save_figure_writes(tmp_path):
    from vitexplain import figure_to_png

    def draw():  # a fresh figure each time: a second render of one figure may lay out anew
        return show_image(load_mountains(), figsize=(3, 2))

    png = figure_to_png(draw())
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and b"Software" not in png
    assert png == save_figure(draw(), tmp_path / "fig.png").read_bytes()
    with pytest.raises(TypeError, match="ndarray"):
        figure_to_png(np.zeros((2, 2)))


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


def test_tokenization_rejects_sizes_that_do_not_divide():
    from vitexplain import show_tokenization

    with pytest.raises(ValueError, match="patch_size 16 does not divide the image height 60"):
        show_tokenization(load_mountains(), 16)
    with pytest.raises(ValueError, match=r"\(60, 100, 3\)"):
        show_tokenization(np.zeros((60, 100, 3)), 20)

# --- notebook 02: attention ---


def _outlines(ax):
    """(x, y, width, height) of every rectangle added to the axes."""
    from matplotlib.patches import Rectangle

    return [(p.get_x(), p.get_y(), p.get_width(), p.get_height())
            for p in ax.patches if isinstance(p, Rectangle)]  # fmt: skip


def test_show_matrices_draws_every_matrix_annotated_and_outlined():
    from vitexplain import show_matrices

    q = np.arange(36).reshape(4, 9)
    s = np.arange(16).reshape(4, 4) * 100
    rows, cols = [None, [0, 2], [3]], [None, [0, 2], None]
    fig = show_matrices([q, s, q], titles=["Q", "S", None], ncols=2, highlight_rows=rows,
                        highlight_cols=cols)  # fmt: skip
    axes = fig.axes
    assert len(axes) == 3  # the unused fourth cell of the 2 x 2 grid is removed
    assert [ax.get_title() for ax in axes] == ["Q", "S", ""]
    np.testing.assert_array_equal(axes[1].images[0].get_array(), s)
    assert axes[1].images[0].get_clim() == (0.0, 1500.0)  # each panel its own range
    assert [t.get_text() for t in axes[1].texts] == [str(v) for v in s.ravel()]
    assert [t.get_text() for t in axes[0].get_xticklabels()] == [str(c) for c in range(9)]
    assert _outlines(axes[0]) == []
    # rows 0 and 2 (whole width), then columns 0 and 2 (whole height)
    assert _outlines(axes[1]) == [(-0.5, -0.5, 4, 1), (-0.5, 1.5, 4, 1),
                                  (-0.5, -0.5, 1, 4), (1.5, -0.5, 1, 4)]  # fmt: skip
    assert _outlines(axes[2]) == [(-0.5, 2.5, 9, 1)]


def test_show_matrices_rejects_bad_input():
    from vitexplain import show_matrices

    s = np.zeros((4, 4))
    with pytest.raises(ValueError, match="empty"):
        show_matrices([])
    with pytest.raises(ValueError, match=r"matrices\[1\] must have 2 dimensions, got shape \(4,\)"):
        show_matrices([s, np.zeros(4)])
    with pytest.raises(ValueError, match="titles has 1 entries for 2 matrices"):
        show_matrices([s, s], titles=["only one"])
    with pytest.raises(ValueError, match=r"highlight_cols\[0\] = \[4\] is out of range"):
        show_matrices([s], highlight_cols=[[4]])
    with pytest.raises(TypeError, match="ncols"):
        show_matrices([s], ncols=1.5)


def test_scrambled_patches_keep_their_original_numbers():
    from vitexplain import scramble_patches, show_scrambled_patches

    image = load_mountains()
    order = np.random.default_rng(21).permutation(15)
    fig = show_scrambled_patches(image, 20, order)
    left, right = fig.axes
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
    assert {ax.images[0].get_clim() for ax in maps} == {(0.0, float(weights.max()))}
    for head, ax in enumerate(maps):
        np.testing.assert_array_equal(ax.images[0].get_array(), weights[head].numpy())
    # 1-based token numbers, written on the outer panels only (left column, bottom row)
    assert [t.get_text() for t in maps[2].get_xticklabels()] == [str(n) for n in range(1, 16)]
    assert [t.get_text() for t in maps[2].get_yticklabels()] == [str(n) for n in range(1, 16)]
    assert maps[2].get_xlabel() == "key (patch)" and maps[2].get_ylabel() == "query (patch)"
    assert maps[1].get_xlabel() == "" and maps[1].get_ylabel() == ""
    assert colour_bar.get_ylabel() == "attention weight"
    with pytest.raises(ValueError, match=r"\(h, N, N\), got shape \(15, 15\)"):
        show_attention_heads(weights[0])
    with pytest.raises(ValueError, match="labels has 3 entries for 15 tokens"):
        show_attention_heads(weights, labels=[1, 2, 3])

# --- notebook 03: sinusoidal position embeddings ---


def test_tokens_plus_embedding_draws_three_matrices_with_their_limits():
    from vitexplain import show_tokens_plus_embedding

    rng = np.random.default_rng(0)
    tokens, pe = rng.random((15, 400)), sinusoid_encoding(15, 400).numpy()
    fig = show_tokens_plus_embedding(tokens, pe)
    images = [ax.images[0] for ax in fig.axes if ax.images]
    assert len(images) == 3 and len(fig.axes) == 6  # three heat maps, three colour bars
    assert [im.get_clim() for im in images] == [(0, 1), (-1, 1), (-1, 2)]
    assert images[0].get_cmap().name == "Purples_r"
    assert np.allclose(images[2].get_array(), tokens + pe)
    assert [ax.get_title() for ax in fig.axes[:3] if ax.images] == [
        "tokens", "position embedding", "tokens + embedding"]  # fmt: skip
    with pytest.raises(ValueError, match=r"\(15, 400\) and \(15, 399\)"):
        show_tokens_plus_embedding(tokens, pe[:, :-1])


def test_embedding_bases_one_panel_per_base_and_one_colour_bar():
    from vitexplain import show_embedding_bases

    bases = [1e2, 1e4, 1e8]
    tables = [sinusoid_encoding(50, 128, b) for b in bases]
    fig = show_embedding_bases(tables, bases)
    panels = [ax for ax in fig.axes if ax.images]
    assert len(panels) == 3 and len(fig.axes) == 4
    assert [ax.get_title() for ax in panels] == ["base $10^{2}$", "base $10^{4}$", "base $10^{8}$"]
    assert all(ax.images[0].get_clim() == (-1.0, 1.0) for ax in panels)
    assert np.array_equal(panels[2].images[0].get_array(), tables[2].numpy())
    with pytest.raises(ValueError, match="2 tables and 3 bases"):
        show_embedding_bases(tables[:2], bases)


def test_frequencies_plot_is_log_scaled_with_one_line_per_base():
    from vitexplain import clock_frequencies, show_frequencies

    omegas = {b: clock_frequencies(128, b) for b in (1e2, 1e4, 1e8)}
    ax = show_frequencies(omegas, title="d = 128").axes[0]
    assert ax.get_yscale() == "log" and "omega" in ax.get_ylabel() and ax.get_xlabel()
    assert len(ax.lines) == 3
    assert np.allclose(ax.lines[2].get_ydata(), omegas[1e8])
    assert [t.get_text() for t in ax.get_legend().get_texts()][1] == "base $10^{4}$"


def test_clocks_put_each_pair_on_its_unit_circle():
    from matplotlib.patches import Circle

    from vitexplain import clock_periods, show_clocks

    table = sinusoid_encoding(100, 18).numpy()
    fig = show_clocks(table)
    ax, cbar = fig.axes
    circles = [p for p in ax.patches if isinstance(p, Circle)]
    assert len(circles) == 9 and cbar.get_ylabel() == "position (token)"
    titles = [t.get_text() for t in ax.texts]
    assert titles[0] == "pair 0\nperiod 6.3" and titles[8] == "pair 8\nperiod 22,581"
    assert f"{clock_periods(18)[3]:.1f}" in titles[3]
    points = ax.collections[0].get_offsets()  # (9 * 100, 2): pair by pair, position by position
    assert points.shape == (900, 2)
    for n, circle in enumerate(circles):
        centred = points[100 * n : 100 * (n + 1)] - np.array(circle.center)
        assert np.allclose(np.hypot(*centred.T), 1, atol=1e-6)  # on the unit circle
        assert np.allclose(centred, table[:, 2 * n : 2 * n + 2])  # (sin, cos) of pair n
    assert np.array_equal(ax.collections[0].get_array(), np.tile(np.arange(100), 9))
    wide = show_clocks(sinusoid_encoding(10, 768), pairs=[0, 383])
    assert len([p for p in wide.axes[0].patches if isinstance(p, Circle)]) == 2
    with pytest.raises(ValueError, match="384"):
        show_clocks(sinusoid_encoding(10, 768), pairs=[384])


def test_similarity_figure_draws_the_matrix_and_its_rows_by_offset():
    from vitexplain import embedding_similarity, show_similarity

    sim = embedding_similarity(sinusoid_encoding(60, 32)).numpy()
    fig = show_similarity(sim, starts=(0, 30))
    matrix_ax, curve_ax = fig.axes[0], fig.axes[1]
    assert np.array_equal(matrix_ax.images[0].get_array(), sim)
    assert matrix_ax.images[0].get_clim() == (-1.0, 1.0)
    first, second = curve_ax.lines
    assert np.array_equal(first.get_xdata(), np.arange(60)) and first.get_ydata()[5] == sim[0, 5]
    assert second.get_xdata()[0] == -30 and second.get_ydata()[0] == sim[30, 0]
    with pytest.raises(ValueError, match="60"):
        show_similarity(sim, starts=(60,))


def test_grid_similarity_labels_every_patch_and_outlines_the_reference():
    from matplotlib.patches import Rectangle

    from vitexplain import show_grid_similarity

    one, two = np.linspace(0, 1, 15).reshape(3, 5), np.ones((3, 5))
    fig = show_grid_similarity([one, two], ["1D", "2D"], reference=4, image=load_mountains())
    assert len(fig.axes) == 4  # picture, two maps, one colour bar
    first_map = fig.axes[1]
    labels = [t.get_text() for t in first_map.texts]
    assert labels[0] == "1\n0.00" and labels[5] == "6\n0.36" and len(labels) == 15
    (box,) = [p for p in first_map.patches if isinstance(p, Rectangle)]
    assert box.get_xy() == (3.5, -0.5)  # patch 5: row 0, column 4
    assert [ax.get_title() for ax in fig.axes[1:3]] == ["1D", "2D"]
    assert fig.axes[1].images[0].get_clim() == (0.0, 1.0)
    with pytest.raises(ValueError, match="15"):
        show_grid_similarity([one], ["1D"], reference=15)


def test_resized_embedding_draws_both_grids_over_the_same_area():
    import torch

    from vitexplain import resize_pos_embed, show_resized_embedding, sinusoid_encoding_2d

    table = torch.cat([torch.zeros(1, 16), sinusoid_encoding_2d((3, 5), 16)])
    big = resize_pos_embed(table, (3, 5), (6, 10), num_prefix_tokens=1)
    fig = show_resized_embedding(table, big, (3, 5), (6, 10), channels=[0, 8],
                                 num_prefix_tokens=1)  # fmt: skip
    panels = [ax for ax in fig.axes if ax.images]
    assert len(panels) == 4 and len(fig.axes) == 5
    assert [im.get_extent() for ax in panels for im in ax.images] == [[0, 5, 3, 0]] * 4
    assert np.allclose(panels[1].images[0].get_array(), table[1:, 8].reshape(3, 5))
    assert np.allclose(panels[3].images[0].get_array(), big[1:, 8].reshape(6, 10))
    assert panels[3].get_title() == "dim 8, 6 x 10"
    with pytest.raises(ValueError, match="60 grid tokens, expected 3 x 5"):
        show_resized_embedding(big, big, (3, 5), (6, 10), channels=[0], num_prefix_tokens=1)


def test_clock_explorer_redraws_for_each_base_and_dim():
    from vitexplain import show_clock_explorer

    fig = show_clock_explorer(base=1e4, dim=18)
    table_ax, table_bar, clock_ax, clock_bar = fig.axes
    assert table_ax.images[0].get_array().shape == (100, 18)
    assert table_ax.images[0].get_clim() == (-1.0, 1.0)
    assert clock_bar.get_ylabel() == "position (token)" and table_bar.get_ylabel() == "value"
    assert "base $10^{4}$" in table_ax.get_title()
    other = show_clock_explorer(base=1e2, dim=40).axes
    assert other[0].images[0].get_array().shape == (100, 40)
    points = clock_ax.collections[0].get_offsets()
    assert not np.array_equal(other[2].collections[0].get_offsets(), points)
    assert len(show_clock_explorer(dim=8).axes[2].texts) == 4  # only 4 pairs to draw
    assert not np.array_equal(figure_to_array(fig), figure_to_array(show_clock_explorer(1e8, 18)))

# --- notebook 04: relative position embeddings ---


def test_relative_distances_table_and_index():
    from vitexplain import relative_index, show_relative_distances

    fig = show_relative_distances(relative_index(4))
    ax_table, ax_index = fig.axes
    table = [t.get_text() for t in ax_table.texts]  # row by row: index, offset, key
    assert table[0::3] == [str(m) for m in range(7)]
    assert table[1::3] == ["-3", "-2", "-1", "+0", "+1", "+2", "+3"]
    assert table[2::3] == ["i-3", "i-2", "i-1", "i", "i+1", "i+2", "i+3"]
    cells = [t.get_text() for t in ax_index.texts]
    assert cells[:4] == ["3\n(+0)", "4\n(+1)", "5\n(+2)", "6\n(+3)"]  # query 0
    assert cells[12] == "0\n(-3)"  # query 3, key 0
    np.testing.assert_array_equal(ax_index.images[0].get_array(), relative_index(4).numpy() - 3)
    assert ax_index.images[0].get_clim() == (-3, 3)
    with pytest.raises(ValueError, match=r"\(3, 4\)"):
        show_relative_distances(np.zeros((3, 4), dtype=int))


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
    with pytest.raises(ValueError, match="6 steps"):
        show_skew_steps(skew_steps(codes)[:3])
    with pytest.raises(ValueError, match="leading dims"):
        show_skew_steps(skew_steps(codes[None]))


def test_grid_offsets_figure():
    from vitexplain import grid_offsets, show_grid_offsets

    rows, cols = grid_offsets((3, 5), 11)
    fig = show_grid_offsets(load_mountains(), 20, rows, cols, highlight=11)
    ax_image, ax_rows, ax_cols = fig.axes
    assert ax_image.get_title() == "patch 12 (index 11) is the query"
    assert [t.get_text() for t in ax_rows.texts][::5] == ["-2\nr_h[0]", "-1\nr_h[1]", "+0\nr_h[2]"]
    assert [t.get_text() for t in ax_cols.texts][:5] == [
        "-1\nr_w[3]", "+0\nr_w[4]", "+1\nr_w[5]", "+2\nr_w[6]", "+3\nr_w[7]"]  # fmt: skip
    for ax in (ax_rows, ax_cols):
        (outline,) = ax.patches
        assert (outline.get_x(), outline.get_y()) == (0.5, 1.5)  # row 2, column 1
        assert ax.images[0].get_clim() == (-4, 4)
    with pytest.raises(ValueError, match=r"\(3, 5\)"):
        show_grid_offsets(load_mountains(), 20, rows[:2], cols, highlight=11)
    with pytest.raises(ValueError, match="15"):
        show_grid_offsets(load_mountains(), 20, rows, cols, highlight=15)


def test_logit_matrices_share_a_symmetric_scale():
    from vitexplain import show_logit_matrices

    left, right = np.arange(9.0).reshape(3, 3) - 2, np.full((3, 3), 0.5)
    fig = show_logit_matrices([left, right], ["absolute", "relative"])
    assert len(fig.axes) == 3  # two panels and a colour bar
    assert [ax.get_title() for ax in fig.axes[:2]] == ["absolute", "relative"]
    assert all(ax.images[0].get_clim() == (-6.0, 6.0) for ax in fig.axes[:2])
    assert [t.get_text() for t in fig.axes[1].texts] == ["0.50"] * 9
    with pytest.raises(ValueError, match="2 titles for 1 matrices"):
        show_logit_matrices([left], ["a", "b"])

# --- notebook 05: T2T soft split ---


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

    counts = overlap_count((60, 100), 20, 10, 5)
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
    assert np.array_equal(counts.images[0].get_array(), overlap_count((70, 110), 20, 10, 0).numpy())
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

# --- notebook 06: the full ViT ---


def test_scramble_examples_label_each_patch_with_its_origin():
    from vitexplain import make_scramble_dataset, show_scramble_examples

    images, labels, orders = make_scramble_dataset(4, seed=0, return_orders=True)
    fig = show_scramble_examples(images, labels, orders, ncols=2)
    assert len(fig.axes) == 4
    assert [ax.get_title() for ax in fig.axes] == [
        "example 1: intact (label 0)", "example 2: intact (label 0)",
        "example 3: scrambled (label 1)", "example 4: scrambled (label 1)",
    ]  # fmt: skip
    for ax, image, order in zip(fig.axes, images, orders, strict=True):
        assert np.array_equal(ax.images[0].get_array(), image[0].numpy())
        assert [t.get_text() for t in ax.texts] == [str(int(o) + 1) for o in order]
    assert [t.get_text() for t in fig.axes[0].texts] == [str(n) for n in range(1, 16)]
    with pytest.raises(ValueError, match="4 images need 4 labels and orders, got 3 and 4"):
        show_scramble_examples(images, labels[:3], orders)


def test_training_curves_two_panels_with_chance_lines():
    from vitexplain import show_training_curves

    history = {"epoch": [1, 2, 3], "loss": [0.7, 0.4, 0.1], "train_accuracy": [0.5, 0.8, 1.0],
               "test_accuracy": [0.5, 0.75, 0.95]}  # fmt: skip
    blind = {**history, "test_accuracy": [0.5, 0.5, 0.5]}
    fig = show_training_curves({"with PE": history, "without PE": blind})
    loss_ax, acc_ax = fig.axes
    assert loss_ax.get_title() == "loss" and acc_ax.get_xlabel() == "epoch"
    assert list(loss_ax.lines[0].get_ydata()) == [0.7, 0.4, 0.1]
    chance = [line for line in acc_ax.lines if line.get_linestyle() == "--"]
    assert len(chance) == 1 and list(chance[0].get_ydata()) == [0.5, 0.5]
    ln2 = [line for line in loss_ax.lines if line.get_linestyle() == "--"]
    assert np.allclose(ln2[0].get_ydata(), np.log(2))
    tests = [line for line in acc_ax.lines if line.get_label().endswith(": test")]
    assert [list(line.get_ydata()) for line in tests] == [[0.5, 0.75, 0.95], [0.5, 0.5, 0.5]]
    legend = [t.get_text() for t in acc_ax.get_legend().get_texts()]
    assert "with PE: test" in legend and "chance (50%)" in legend
    with pytest.raises(ValueError, match=r"'x' lacks \['test_accuracy'\]"):
        show_training_curves({"x": {k: v for k, v in history.items() if k != "test_accuracy"}})


def test_class_token_attention_draws_the_weights_on_the_patch_grid():
    from vitexplain import show_class_token_attention

    weights = np.random.default_rng(0).dirichlet(np.ones(15), size=2) * 0.9  # (2 heads, 15)
    fig = show_class_token_attention(load_mountains(), weights)
    # picture, mean, head 1, head 2, colour bar
    assert len(fig.axes) == 5
    assert [ax.get_title() for ax in fig.axes[:4]] == [
        "the picture, patches 1-15", "mean over heads", "head 1", "head 2"]  # fmt: skip
    mean_ax, head2_ax = fig.axes[1], fig.axes[3]
    assert np.allclose(mean_ax.images[0].get_array(), weights.mean(0).reshape(3, 5))
    assert np.allclose(head2_ax.images[0].get_array(), weights[1].reshape(3, 5))
    assert mean_ax.images[0].get_clim() == (0.0, weights.max())
    texts = [t.get_text() for t in head2_ax.texts]
    assert texts[11] == f"#12\n{weights[1, 11]:.2f}"  # row 3, column 2: patch 12
    single = show_class_token_attention(load_mountains(), weights[0])
    assert len(single.axes) == 3 and single.axes[1].get_title() == "class token"
    with pytest.raises(ValueError, match="weights hold 14 patches"):
        show_class_token_attention(load_mountains(), weights[:, :14])
