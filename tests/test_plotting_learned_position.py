"""vitexplain.plotting.learned_position: the figure of notebook 07, drawn as ViT's Figure 7."""

import numpy as np
import torch

from vitexplain import grid_similarity, sinusoid_encoding


def test_mosaic_places_each_patch_map_in_its_tile():
    from vitexplain.plotting import position_similarity_mosaic

    sim = np.arange(3 * 5 * 3 * 5, dtype=float).reshape(3, 5, 3, 5)
    mosaic = position_similarity_mosaic(sim)
    assert mosaic.shape == (3 * 4 - 1, 5 * 6 - 1)
    for r in range(3):
        for c in range(5):
            assert np.array_equal(mosaic[4 * r : 4 * r + 3, 6 * c : 6 * c + 5], sim[r, c])
    assert np.isnan(mosaic[3]).all() and np.isnan(mosaic[:, 5]).all()  # the gaps
    assert position_similarity_mosaic(sim, gap=0).shape == (9, 25)


def test_show_position_similarity_one_panel_per_table_and_one_colour_bar():
    from vitexplain import show_position_similarity

    sims = [
        grid_similarity(sinusoid_encoding(15, 32), (3, 5)),
        grid_similarity(torch.randn(15, 8), (3, 5)),
    ]
    fig = show_position_similarity(sims, ["fixed", "random"])
    panels = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in panels] == ["fixed", "random"]
    assert len(fig.axes) == 3  # two panels and the colour bar
    assert all(ax.images[0].get_clim() == (-1, 1) for ax in panels)
    assert [t.get_text() for t in panels[0].get_xticklabels()] == ["1", "2", "3", "4", "5"]
    assert [ax.get_ylabel() for ax in panels] == ["input patch row"] * 2  # stacked
    assert [ax.get_xlabel() for ax in panels] == ["", "input patch column"]
