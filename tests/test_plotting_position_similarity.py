"""vitexplain.plotting.position_similarity: similarity maps and resized embeddings."""

import numpy as np
import pytest

from vitexplain import figure_to_array, load_mountains, sinusoid_encoding
from vitexplain.plotting import SIMILARITY_CMAP


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
    with pytest.raises(ValueError, match=r"starts must be positions in \[0, 60\), got \[-1\]"):
        show_similarity(sim, starts=(-1,))  # row -1 would be drawn as the last row, silently


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
    with pytest.raises(ValueError, match=r"reference must be a patch index in \[0, 15\)"):
        show_grid_similarity([one], ["1D"], reference=15)


def test_resized_embedding_draws_both_grids_over_the_same_area():
    import torch

    from vitexplain import resize_pos_embed, show_resized_embedding, sinusoid_encoding_2d

    table = torch.cat([torch.zeros(1, 16), sinusoid_encoding_2d((3, 5), 16)])
    big = resize_pos_embed(table, (3, 5), (6, 10), num_prefix_tokens=1)
    fig = show_resized_embedding(table, big, (3, 5), (6, 10), channels=[0, 8], num_prefix_tokens=1)
    panels = [ax for ax in fig.axes if ax.images]
    assert len(panels) == 4 and len(fig.axes) == 5
    assert [im.get_extent() for ax in panels for im in ax.images] == [[0, 5, 3, 0]] * 4
    # one row per channel: (before, after) of dim 0, then of dim 8
    assert np.allclose(panels[1].images[0].get_array(), big[1:, 0].reshape(6, 10))
    assert np.allclose(panels[2].images[0].get_array(), table[1:, 8].reshape(3, 5))
    assert np.allclose(panels[3].images[0].get_array(), big[1:, 8].reshape(6, 10))
    assert [ax.get_title() for ax in panels][2:] == ["dim 8, 3 x 5", "dim 8, 6 x 10"]
    assert fig.axes[4].get_xlabel() == "value"  # the colour bar lies below
    assert figure_to_array(fig).shape[1] == 480  # fits a phone's width
