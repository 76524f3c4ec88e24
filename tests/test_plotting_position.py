"""vitexplain.plotting.position: the figures of notebook 03: sinusoidal position embeddings."""

import numpy as np

from vitexplain import (
    figure_to_array,
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
        "tokens",
        "position embedding",
        "tokens + embedding",
    ]
    # every one of the 400 columns gets 2 pixels: no column is dropped (no moire)
    pixels = [ax.get_window_extent().width for ax in fig.axes[:3]]
    assert np.allclose(pixels, 800, atol=1)


def test_tokens_plus_embedding_in_two_parts_fits_a_narrow_column():
    from vitexplain import show_tokens_plus_embedding

    rng = np.random.default_rng(0)
    tokens, pe = rng.random((15, 400)), sinusoid_encoding(15, 400).numpy()
    fig = show_tokens_plus_embedding(tokens, pe, column_px=1, parts=2)  # notebook 03's Fig. 3.4
    heat_maps = [ax for ax in fig.axes if ax.images]
    assert len(heat_maps) == 6 and len(fig.axes) == 9  # two bands a matrix, three colour bars
    assert [ax.get_title() for ax in heat_maps[2:4]] == [
        "position embedding, 0-199",
        "position embedding, 200-399",
    ]
    halves = [ax.images[0].get_array() for ax in heat_maps[4:]]
    assert np.allclose(np.concatenate(halves, axis=1), tokens + pe)  # the sum, cut in two
    assert heat_maps[5].images[0].get_extent() == [199.5, 399.5, 14.5, -0.5]
    assert all(np.isclose(ax.get_window_extent().width, 200) for ax in heat_maps)  # 1 px a column
    assert figure_to_array(fig).shape[:2] == (1072, 374)  # 374 px wide instead of 974


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


def test_table_bands_in_six_parts_fit_a_narrow_column():
    from vitexplain import show_table_bands

    table = sinusoid_encoding(176, 768).numpy()
    fig = show_table_bands(table, parts=6, row_px=1)  # notebook 03's Figure 3.2
    bands = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in bands][3] == "columns 384-511"
    assert all(np.isclose(ax.get_window_extent().width, 256) for ax in bands)  # 2 px a column
    assert all(np.isclose(ax.get_window_extent().height, 176) for ax in bands)  # 1 px a row
    assert figure_to_array(fig).shape[:2] == (1408, 430)  # 430 px wide instead of 942
    zoom = show_table_bands(table[:40, :64], parts=2, column_px=8, row_px=6)  # Figure 3.3
    assert [ax.get_title() for ax in zoom.axes if ax.images] == ["columns 0-31", "columns 32-63"]
    assert figure_to_array(zoom).shape[:2] == (608, 430)  # 430 px wide instead of 686


def test_columns_are_drawn_against_the_position():
    from vitexplain import show_columns

    table = sinusoid_encoding(176, 768).numpy()
    ax = show_columns(table, [0, 51, 400]).axes[0]
    assert len(ax.lines) == 3 and np.array_equal(ax.lines[1].get_ydata(), table[:, 51])
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0] == "column 0 (sin, period 6.3)" and labels[1].startswith("column 51 (cos")


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


def test_frequencies_plot_is_log_scaled_with_one_line_per_base():
    from vitexplain import clock_frequencies, show_frequencies

    omegas = {b: clock_frequencies(128, b) for b in (1e2, 1e4, 1e8)}
    ax = show_frequencies(omegas, title="d = 128").axes[0]
    assert ax.get_yscale() == "log" and "omega" in ax.get_ylabel() and ax.get_xlabel()
    assert len(ax.lines) == 3
    assert np.allclose(ax.lines[2].get_ydata(), omegas[1e8])
    assert [t.get_text() for t in ax.get_legend().get_texts()][1] == "base $10^{4}$"
    assert figure_to_array(ax.figure).shape[1] == 480  # fits a phone's width
