"""vitexplain.plotting.attribution: notebook 09's figures draw the data they are given."""

import numpy as np
import torch

from vitexplain.plotting.attribution import (
    show_deletion_curves,
    show_explanation_maps,
    show_lens_accuracy,
    show_marker_hits,
    show_sanity_check,
)


def test_explanation_maps_scale_each_map_to_its_largest_score_and_outline_the_marker():
    images = torch.rand(2, 1, 8, 8, generator=torch.Generator().manual_seed(0))
    a = torch.arange(32, dtype=torch.float64).view(2, 16) - 4  # negatives drawn as 0
    maps = {"a": a, "b": torch.zeros(2, 16)}
    fig = show_explanation_maps(images, maps, (4, 4), outline=0)
    axes = np.array(fig.axes).reshape(2, 3)
    np.testing.assert_allclose(axes[0, 0].images[0].get_array(), images[0, 0].numpy())
    expected = np.clip(a[1].numpy() / a[1].max().item(), 0, 1).reshape(4, 4)
    np.testing.assert_allclose(axes[1, 1].images[0].get_array(), expected)
    assert np.all(axes[1, 2].images[0].get_array() == 0)  # a flat map stays dark
    box = axes[0, 1].patches[0]
    assert (box.get_x(), box.get_y(), box.get_width()) == (-0.5, -0.5, 1)
    assert [ax.get_title() for ax in axes[0]] == ["picture", "a", "b"]


def test_marker_hits_draw_the_seed_means_and_the_chance_lines():
    top1 = np.array([[0.1, 0.9], [0.3, 1.0]])
    top3 = np.array([[0.5, 1.0], [0.7, 1.0]])
    fig = show_marker_hits(["x", "y"], top1, top3)
    ax = fig.axes[0]
    heights = [p.get_height() for p in ax.patches]
    np.testing.assert_allclose(heights, [0.2, 0.95, 0.6, 1.0])
    dots = [line.get_ydata() for line in ax.lines if line.get_linestyle() == "None"]
    np.testing.assert_allclose(dots, [[0.1, 0.9], [0.3, 1.0], [0.5, 1.0], [0.7, 1.0]])  # seeds
    levels = sorted(line.get_ydata()[0] for line in ax.lines if line.get_linestyle() != "None")
    np.testing.assert_allclose(levels, [1 / 16, 3 / 16])
    assert ax.get_ylim() == (0, 1.05)


def test_deletion_curves_one_panel_per_fill_and_kind_axes_fixed():
    curve = np.linspace(1, 0, 17)
    curves = {f: {k: {"m": curve, "random": curve[::-1]} for k in ("deletion", "insertion")}
              for f in ("black", "mean")}  # fmt: skip
    fig = show_deletion_curves(curves)
    assert len(fig.axes) == 4
    assert [ax.get_title() for ax in fig.axes] == [
        "deletion, black fill", "insertion, black fill", "deletion, mean fill",
        "insertion, mean fill",
    ]  # fmt: skip
    for ax in fig.axes:
        assert ax.get_xlim() == (0, 1) and ax.get_ylim() == (0, 1)
        np.testing.assert_allclose(ax.lines[0].get_ydata(), curve)
        np.testing.assert_allclose(ax.lines[0].get_xdata(), np.arange(17) / 16)


def test_sanity_check_and_lens_draw_their_values():
    fig = show_sanity_check(["none", "head"], {"m": [1.0, 0.25]})
    np.testing.assert_allclose(fig.axes[0].lines[0].get_ydata(), [1.0, 0.25])
    assert fig.axes[0].get_ylim() == (-0.5, 1.05)
    fig = show_lens_accuracy([0.9, 0.95], [0.6, 0.95])
    ax = fig.axes[0]
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [0.9, 0.95])
    np.testing.assert_allclose(ax.lines[1].get_ydata(), [0.6, 0.95])
    assert ax.get_ylim() == (0, 1.05)
