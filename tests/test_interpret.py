"""vitexplain.interpret: rollout, attention distance, occlusion, logit lens, filter components,
each against a brute-force loop of its definition."""

import itertools
import math

import numpy as np
import pytest
import torch

from vitexplain import (
    ViT,
    attention_maps,
    attention_rollout,
    embedding_components,
    logit_lens,
    mean_attention_distance,
    occlusion_map,
    rank_correlation,
)


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    vit = ViT((8, 8), 2, num_classes=10, embed_dim=16, depth=3, num_heads=2, pos_embed="learned")
    with torch.no_grad():
        for p in vit.parameters():  # weights large enough for attention to be far from uniform
            p.add_(0.3 * torch.randn_like(p))
    return vit.eval()


def _random_maps(depth=3, b=2, h=2, n=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [
        torch.rand(b, h, n, n, generator=g, dtype=torch.float64).softmax(-1) for _ in range(depth)
    ]


def test_rollout_is_the_product_of_the_renormalised_layers():
    maps = _random_maps()
    got = attention_rollout(maps)
    for b in range(2):
        expected = np.eye(5)
        for weights in maps:  # a loop of the definition, in NumPy
            a = weights[b].numpy().mean(0) + np.eye(5)
            a = a / a.sum(1, keepdims=True)
            expected = a @ expected
        np.testing.assert_allclose(got[b].numpy(), expected, atol=1e-12)
    assert torch.allclose(got.sum(-1), torch.ones(2, 5, dtype=torch.float64))
    plain = attention_rollout(maps, residual=False)
    expected = maps[2].mean(1) @ maps[1].mean(1) @ maps[0].mean(1)
    assert torch.allclose(plain, expected)


def test_mean_attention_distance_matches_a_loop():
    maps = _random_maps(depth=2, n=1 + 6)  # class token + a 2 x 3 grid
    got = mean_attention_distance(maps, (2, 3), patch_size=4)
    assert got.shape == (2, 2)
    for layer, head in itertools.product(range(2), range(2)):
        total = 0.0
        for b, q in itertools.product(range(2), range(6)):
            w = maps[layer][b, head, 1 + q, 1:]
            w = w / w.sum()
            qr, qc = divmod(q, 3)
            for k in range(6):
                kr, kc = divmod(k, 3)
                total += float(w[k]) * 4 * math.hypot(qr - kr, qc - kc)
        assert math.isclose(float(got[layer, head]), total / 12, rel_tol=1e-9)
    uniform = [torch.full((1, 1, 7, 7), 1 / 7, dtype=torch.float64)]
    local = [torch.eye(7, dtype=torch.float64)[None, None]]  # every patch attends to itself
    assert mean_attention_distance(local, (2, 3), 4).item() == 0
    assert mean_attention_distance(uniform, (2, 3), 4).item() > 0


def test_occlusion_map_matches_hiding_one_patch_at_a_time(model):
    images = torch.rand(3, 1, 8, 8, generator=torch.Generator().manual_seed(1))
    got = occlusion_map(model, images, 2)
    assert got.shape == (3, 4, 4)
    with torch.no_grad():
        probs = model(images).softmax(-1)
        target = probs.argmax(-1)
        for b, r, c in itertools.product(range(3), range(4), range(4)):
            hidden = images[b : b + 1].clone()
            hidden[..., 2 * r : 2 * r + 2, 2 * c : 2 * c + 2] = 0.0
            drop = probs[b, target[b]] - model(hidden).softmax(-1)[0, target[b]]
            assert torch.isclose(got[b, r, c], drop, atol=1e-6)


def test_logit_lens_ends_with_the_models_prediction(model):
    images = torch.rand(4, 1, 8, 8, generator=torch.Generator().manual_seed(2))
    lens = logit_lens(model, images)
    assert lens.shape == (4, 3, 10)
    with torch.no_grad():
        assert torch.allclose(lens[:, -1], model(images).softmax(-1), atol=1e-6)
        z = torch.cat([model.cls_token.expand(4, -1, -1), model.patch_embed(images)], 1)
        z = model.blocks[0](z + model.pos_embed)
        assert torch.allclose(lens[:, 0], model.head(model.norm(z[:, 0])).softmax(-1), atol=1e-6)
    assert not model.blocks[0]._forward_hooks


def test_embedding_components_are_the_filters_principal_axes(model):
    components, explained = embedding_components(model, k=3)
    assert components.shape == (3, 1, 2, 2) and torch.all(explained[:-1] >= explained[1:])
    weight = model.patch_embed.proj.weight.detach().double().numpy()  # (16, 4)
    values, vectors = np.linalg.eigh(np.cov(weight.T))  # ascending
    for i in range(3):
        expected = vectors[:, -1 - i]
        got = components[i].flatten().double().numpy()
        assert np.isclose(abs(got @ expected), 1, atol=1e-5)  # the same axis, up to its sign
    assert math.isclose(float(explained.sum() * values.sum() / values[-3:].sum()), 1, rel_tol=1e-4)


def test_rank_correlation_matches_spearman_with_ties():
    scipy_stats = pytest.importorskip("scipy.stats")
    g = torch.Generator().manual_seed(3)
    a = torch.randint(0, 4, (5, 16), generator=g).double()  # many ties
    b = torch.rand(5, 16, generator=g, dtype=torch.float64)
    got = rank_correlation(a, b)
    for i in range(5):
        assert math.isclose(
            float(got[i]), scipy_stats.spearmanr(a[i], b[i]).statistic, rel_tol=1e-9
        )
    assert torch.allclose(rank_correlation(b, b), torch.ones(5, dtype=torch.float64))


def test_bad_inputs_are_named(model):
    with pytest.raises(TypeError, match="maps must be a non-empty list"):
        attention_rollout([])
    with pytest.raises(ValueError, match="expected num_prefix_tokens=1 \\+ grid_size 3 x 3"):
        mean_attention_distance(attention_maps(model, torch.rand(1, 1, 8, 8)), 3, 2)
    with pytest.raises(TypeError, match="images has dtype torch.float64"):
        occlusion_map(model, torch.rand(1, 1, 8, 8, dtype=torch.float64), 2)
    with pytest.raises(ValueError, match="k=5 is more than the 4 components"):
        embedding_components(model, k=5)
