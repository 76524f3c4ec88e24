"""vitexplain.plotting.interpret: notebook 08's figures, and the inputs they refuse."""

import numpy as np
import pytest
import torch

from vitexplain import (
    ViT,
    attention_maps,
    show_attention_locality,
    show_class_token_maps,
    show_digits,
    show_logit_lens,
    show_looks_and_uses,
    show_probe_comparison,
    show_vit_figure7,
)


@pytest.fixture(scope="module")
def vit_and_images():
    torch.manual_seed(0)
    vit = ViT((8, 8), 2, num_classes=10, embed_dim=8, depth=2, num_heads=2).eval()
    return vit, torch.rand(3, 1, 8, 8)


def test_show_digits_titles_each_picture_with_its_label_and_prediction():
    images = torch.rand(3, 1, 8, 8)
    fig = show_digits(images, [1, 2, 3], predictions=torch.tensor([1, 7, 3]), ncols=2)
    assert [ax.get_title() for ax in fig.axes] == ["1 → 1", "2 → 7", "3 → 3"]
    assert np.allclose(fig.axes[1].images[0].get_array(), images[1, 0].numpy())


def test_show_class_token_maps_takes_the_list_attention_maps_returns(vit_and_images):
    vit, images = vit_and_images
    maps = attention_maps(vit, images[:1])  # depth x (1, h, 17, 17)
    from_list = show_class_token_maps(images[0, 0], maps, (4, 4))
    stacked = torch.stack([m[0] for m in maps])  # (depth, h, 17, 17)
    from_array = show_class_token_maps(images[0, 0], stacked, (4, 4))
    assert len(from_list.axes) == len(from_array.axes) == 1 + 2 * 2 + 1  # picture, maps, bar
    for a, b in zip(from_list.axes[1:-1], from_array.axes[1:-1], strict=True):
        assert np.array_equal(a.images[0].get_array(), b.images[0].get_array())
    expected = maps[1][0, 0, 0, 1:].reshape(4, 4).numpy()  # block 2, head 1: class token's row
    assert np.allclose(from_list.axes[3].images[0].get_array(), expected)
    # maps of a batch: drawing the first picture's would be silently wrong for the others
    with pytest.raises(ValueError, match=r"maps\[0\] holds 3 pictures"):
        show_class_token_maps(images[0, 0], attention_maps(vit, images), (4, 4))


def test_show_logit_lens_is_one_pictures_and_label_is_a_class():
    probs = torch.full((4, 10), 0.1)
    fig = show_logit_lens(probs, 9)
    assert fig.axes[0].patches[0].get_x() == 8.5  # the outline around class 9
    assert fig.get_size_inches()[0] == 4.8  # 480 px wide at 100 dpi: it fits a phone's width
    with pytest.raises(ValueError, match=r"shape \(2, 4, 10\): for picture i pass probabilities"):
        show_logit_lens(probs.expand(2, 4, 10), 3)
    with pytest.raises(ValueError, match=r"label must be a class in \[0, 10\), got 10"):
        show_logit_lens(probs, 10)  # its outline would sit beside the table, silently


def test_show_looks_and_uses_draws_a_column_per_title():
    images, maps = torch.rand(2, 1, 8, 8), np.random.default_rng(0).random((2, 4, 4))
    fig = show_looks_and_uses(images, maps, -maps, ["a", "b"])
    assert [ax.get_title() for ax in fig.axes[:2]] == ["a", "b"]
    assert np.allclose(fig.axes[2].images[0].get_array(), maps[0])


def test_show_vit_figure7_titles_each_component_with_its_share():
    sim = np.ones((2, 2, 2, 2))
    parts = (np.zeros((2, 1, 2, 2)), np.array([0.6, 0.4]), sim, np.ones((3, 2)))
    fig = show_vit_figure7(*parts, uniform_distance=2.0)
    assert fig.axes[0].get_title() == "PC 1: 60%"


def test_attention_locality_draws_every_head_and_every_reference():
    g = torch.Generator().manual_seed(0)
    distances, entropy, share = (torch.rand(3, 2, generator=g) for _ in range(3))
    references = {"self only": (0.0, 0.0, 1.0), "uniform": (4.0, 2.77, 0.0625)}
    fig = show_attention_locality(distances, entropy, share, references)
    assert len(fig.axes) == 3
    for ax, values in zip(fig.axes, (distances, entropy, share), strict=True):
        points = [c.get_offsets() for c in ax.collections]
        assert len(points) == 2  # one scatter per head
        for head, offsets in enumerate(points):
            assert np.allclose(offsets[:, 1], values[:, head].numpy())
            assert np.allclose(np.round(offsets[:, 0]), [1, 2, 3])  # blocks 1..3, offset a bit
        assert ax.get_xlabel() == "block"
    for i, ax in enumerate(fig.axes):
        levels = sorted(line.get_ydata()[0] for line in ax.lines)
        assert levels == sorted(r[i] for r in references.values())
    labels = fig.axes[2].get_legend_handles_labels()[1]
    assert labels == ["head 1", "head 2", "self only", "uniform"]


def test_show_probe_comparison_draws_both_probes_on_one_scale():
    black = np.linspace(0, 1, 5)
    moved = np.arange(25.0).reshape(5, 5) / 24
    fig = show_probe_comparison(black, moved)
    strip, table = fig.axes[:2]
    assert np.array_equal(strip.images[0].get_array()[0], black)
    drawn = np.ma.filled(table.images[0].get_array(), np.nan)
    assert np.isnan(np.diag(drawn)).all()  # nothing moved: left blank
    off = ~np.eye(5, dtype=bool)
    assert np.array_equal(drawn[off], moved[off])
    assert strip.images[0].get_clim() == table.images[0].get_clim() == (0, 1)
    assert [t.get_text() for t in table.get_xticklabels()] == ["1", "2", "3", "4", "5"]
    assert not np.isnan(moved).any()  # the diagonal is blanked in a copy, not in the caller's
