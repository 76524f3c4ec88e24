"""vitexplain.plotting.position: the figures of notebook 03: sinusoidal position embeddings."""

import numpy as np
import pytest

from vitexplain import (
    SIMILARITY_CMAP,
    figure_to_array,
    load_mountains,
    sinusoid_encoding,
)


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
    assert [ax.get_title() for ax in fig.axes if ax.images] == [
        "tokens", "position embedding", "tokens + embedding"]  # fmt: skip
    # every one of the 400 columns gets 2 pixels: no column is dropped (no moire)
    pixels = [ax.get_window_extent().width for ax in fig.axes[:3]]
    assert np.allclose(pixels, 800, atol=1)
    with pytest.raises(ValueError, match=r"\(15, 400\) and \(15, 399\)"):
        show_tokens_plus_embedding(tokens, pe[:, :-1])


def test_table_bands_give_every_column_its_pixels():
    from vitexplain import show_table_bands

    table = sinusoid_encoding(176, 768).numpy()
    fig = show_table_bands(table, parts=2, title="PE")
    bands = [ax for ax in fig.axes if ax.images]
    assert len(bands) == 2 and len(fig.axes) == 3  # two bands, one colour bar
    assert np.array_equal(bands[1].images[0].get_array(), table[:, 384:])
    assert bands[1].images[0].get_extent() == [383.5, 767.5, 175.5, -0.5]  # true column indices
    assert all(ax.images[0].get_clim() == (-1.0, 1.0) for ax in bands)
    assert [ax.get_title() for ax in bands] == ["PE: columns 0-383", "columns 384-767"]
    assert all(ax.get_window_extent().width >= 384 for ax in bands)  # >= 1 pixel per column
    assert figure_to_array(fig).shape[1] >= 768
    with pytest.raises(ValueError, match="parts"):
        show_table_bands(table, parts=0)


def test_columns_are_drawn_against_the_position():
    from vitexplain import show_columns

    table = sinusoid_encoding(176, 768).numpy()
    ax = show_columns(table, [0, 51, 400]).axes[0]
    assert len(ax.lines) == 3 and np.array_equal(ax.lines[1].get_ydata(), table[:, 51])
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0] == "column 0 (sin, period 6.3)" and labels[1].startswith("column 51 (cos")
    with pytest.raises(ValueError, match="768"):
        show_columns(table, [768])


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
    assert matrix_ax.images[0].get_clim() == (sim.min(), sim.max())
    assert matrix_ax.images[0].get_cmap().name == SIMILARITY_CMAP
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
    assert fig.axes[1].images[0].get_cmap().name == SIMILARITY_CMAP
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
