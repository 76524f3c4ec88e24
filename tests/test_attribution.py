"""vitexplain.attribution: each map, curve and lens against an independent reference (networkx's
max-flow, the paper's formula by autograd, finite differences, loops of the definitions)."""

import importlib
import math

import networkx as nx
import numpy as np
import pytest
import torch

from vitexplain import attention_maps, attention_rollout, class_token_attention, logit_lens
from vitexplain import attribution as at

attention_module = importlib.import_module("vitexplain.attention")  # the module, not the function


@pytest.fixture(scope="module")
def images():
    return torch.rand(3, 1, 8, 8, generator=torch.Generator().manual_seed(1))


def _random_maps(depth=3, b=2, h=2, n=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [
        (3 * torch.rand(b, h, n, n, generator=g, dtype=torch.float64)).softmax(-1)
        for _ in range(depth)
    ]


def _networkx_flow(maps, b):
    """Abnar & Zuidema's flow graph, float capacities, solved by networkx (Edmonds-Karp)."""
    depth, n = len(maps), maps[0].shape[-1]
    graph = nx.DiGraph()
    for layer, weights in enumerate(maps):
        a = weights[b].numpy().mean(0) + np.eye(n)
        a = a / a.sum(1, keepdims=True)
        for i in range(n):
            for j in range(n):
                graph.add_edge((layer, j), (layer + 1, i), capacity=float(a[i, j]))
    return [
        nx.maximum_flow_value(
            graph, (0, patch), (depth, 0), flow_func=nx.algorithms.flow.edmonds_karp
        )
        for patch in range(1, n)
    ]


@pytest.mark.parametrize("scale", [at.FLOW_SCALE, 2**10])
def test_attention_flow_equals_networkx_within_the_rounding_bound(scale):
    maps = _random_maps()
    got = at.attention_flow(maps, scale=scale)
    edges = len(maps) * 5 * 5
    bound = edges / (2 * scale)  # each capacity moves by at most 0.5 / scale
    for b in range(2):
        expected = np.array(_networkx_flow(maps, b))
        error = np.abs(got[b].numpy() - expected).max()
        assert error <= bound
        if scale == 2**10:  # coarse capacities: the error is there, and inside the bound
            assert error > 1e-8
        else:
            assert error < 2e-6


def test_attention_flow_is_not_rollout_and_is_at_most_one():
    maps = _random_maps(depth=4, n=7, seed=3)
    flow = at.attention_flow(maps)
    assert (flow <= 1 + 1e-6).all() and (flow > 0).all()
    rollout = attention_rollout(maps)[:, 0, 1:]
    assert not torch.allclose(flow, rollout, atol=1e-2)


def _paper_gradient_rollout(model, images, target):
    """Chefer et al. 2021, eq. (5)-(6): autograd on the explicit attention path, then a loop."""
    recorded = []
    original = attention_module.attention

    def recording(q, k, v, scale=None):
        out, weights = original(q, k, v, scale=scale)
        weights.retain_grad()
        recorded.append(weights)
        return out, weights

    for block in model.blocks:
        block.attn.fused = False
    attention_module.attention = recording
    try:
        logits = model(images)
        logits[torch.arange(len(images)), target].sum().backward()
    finally:
        attention_module.attention = original
        for block in model.blocks:
            block.attn.fused = True
        model.zero_grad()
    out = []
    for b in range(len(images)):
        n = recorded[0].shape[-1]
        r = np.eye(n)
        for weights in recorded:
            a = weights[b].detach().double().numpy()
            g = weights.grad[b].double().numpy()
            abar = np.maximum(g * a, 0).mean(0)
            r = r + abar @ r
        out.append(r[0, 1:])
    return np.array(out)


@pytest.mark.parametrize("target", [[0, 3, 9], [7, 7, 7]])
def test_gradient_rollout_equals_the_papers_formula_by_autograd(model, images, target):
    target = torch.tensor(target)
    maps, grads = at.attention_and_gradients(model, images, target)
    for got, expected in zip(maps, attention_maps(model, images), strict=True):
        assert torch.allclose(got, expected, atol=1e-6)  # the model's own weights
    got = at.gradient_rollout(maps, grads).numpy()
    np.testing.assert_allclose(got, _paper_gradient_rollout(model, images, target), atol=1e-6)
    assert np.abs(got).max() > 1e-3  # not a map of zeros


def test_gradient_rollout_depends_on_the_class(model, images):
    a = at.explanation_maps(model, images, torch.tensor([0, 0, 0]))["gradient rollout"]
    b = at.explanation_maps(model, images, torch.tensor([1, 1, 1]))["gradient rollout"]
    assert not torch.allclose(a, b, atol=1e-4)


def test_input_x_gradient_equals_finite_differences(model, images):
    double = model.double()
    try:
        x = images.double()
        target = torch.tensor([2, 5, 8])
        got = at.input_x_gradient(double, x, target, 2)
        h = 1e-6
        for b in range(3):
            for patch in (0, 5, 15):
                r, c = divmod(patch, 4)
                scale = torch.zeros_like(x[b : b + 1])
                scale[..., 2 * r : 2 * r + 2, 2 * c : 2 * c + 2] = 1.0  # d/dt y(x + t x_patch)
                with torch.no_grad():
                    up = double(x[b : b + 1] * (1 + h * scale))[0, target[b]]
                    down = double(x[b : b + 1] * (1 - h * scale))[0, target[b]]
                assert float(got[b, patch]) == pytest.approx(float(up - down) / (2 * h), abs=1e-7)
    finally:
        model.float()


def test_explanation_maps_agree_with_the_package_and_brute_force(model, images):
    maps = at.explanation_maps(model, images)
    assert list(maps) == list(at.MAP_NAMES)
    expected = class_token_attention(model, images).mean(1).double()
    assert torch.allclose(maps["last-block attention"], expected, atol=1e-6)
    raw = [m.double() for m in attention_maps(model, images)]
    for b in range(3):
        product = np.eye(17)
        for weights in raw:  # the rollout product, written out
            a = weights[b].numpy().mean(0) + np.eye(17)
            product = (a / a.sum(1, keepdims=True)) @ product
        np.testing.assert_allclose(maps["rollout"][b].numpy(), product[0, 1:], atol=1e-6)


def test_perturbation_curves_equal_a_loop(model, images):
    target = torch.tensor([1, 4, 6])
    order = at.random_orders(3, 16, seed=5)
    mean = torch.rand(1, 8, 8, generator=torch.Generator().manual_seed(2))
    for fill in (0.0, mean):
        background = torch.as_tensor(fill).expand(1, 8, 8)
        for kind in ("deletion", "insertion"):
            got = at.perturbation_curves(model, images, order, fill, kind, target)
            for b in range(2):
                for k in (0, 1, 7, 15, 16):  # the ends and steps between
                    picture = images[b].clone() if kind == "deletion" else background.clone()
                    source = background if kind == "deletion" else images[b]
                    for patch in order[b, :k].tolist():
                        r, c = divmod(patch, 4)
                        rows, cols = slice(2 * r, 2 * r + 2), slice(2 * c, 2 * c + 2)
                        picture[:, rows, cols] = source[:, rows, cols]
                    with torch.no_grad():
                        p = model(picture[None]).softmax(-1)[0, target[b]]
                    assert float(got[b, k]) == pytest.approx(float(p), abs=1e-6)
    with pytest.raises(ValueError, match="kind must be 'deletion' or 'insertion', got 'both'"):
        at.perturbation_curves(model, images, order, 0.0, "both", target)


def test_area_under_curve_is_the_trapezoid_rule():
    curves = torch.rand(4, 17, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    expected = [np.trapezoid(c, dx=1 / 16) for c in curves.numpy()]
    np.testing.assert_allclose(at.area_under_curve(curves).numpy(), expected, atol=1e-12)


def test_orders_sort_high_first_and_random_orders_are_seeded_permutations():
    scores = torch.tensor([[0.1, 0.5, 0.5, -1.0]])
    assert at.order_by(scores).tolist() == [[1, 2, 0, 3]]  # ties: the lower index first
    a, b = at.random_orders(5, 16, seed=3), at.random_orders(5, 16, seed=3)
    assert torch.equal(a, b) and not torch.equal(a, at.random_orders(5, 16, seed=4))
    assert torch.equal(a.sort(1).values, torch.arange(16).expand(5, 16))


def test_marker_ranks_count_ties_against_the_marker():
    maps = torch.tensor([[5.0, 1, 2, 3], [1.0, 1, 1, 1], [2.0, 3, 1, 2], [0.0, 1, 2, 3]])
    assert at.marker_ranks(maps).tolist() == [1, 4, 3, 4]
    assert at.marker_ranks(maps, patch=3).tolist() == [2, 4, 3, 1]


def test_add_marker_marks_only_the_chosen_pictures():
    images = torch.zeros(3, 1, 8, 8)
    out = at.add_marker(images, torch.tensor([True, False, True]))
    assert out.sum() == 2 and out[0, 0, 0, 0] == 1 and out[2, 0, 0, 0] == 1
    assert images.sum() == 0  # a copy
    assert at.MARKER_PATCH == (at.MARKER_PIXEL[0] // 2) * 4 + at.MARKER_PIXEL[1] // 2


def test_randomisation_cascades_from_the_top(model):
    steps = at.randomized_from_top(model, seed=0)
    assert [label for label, _ in steps] == ["none", "head", "+ block 3", "+ block 2", "+ block 1"]
    original = dict(model.named_parameters())
    for step, (_, copy) in enumerate(steps):
        redrawn = ("head.", "norm.", *(f"blocks.{i}." for i in range(4 - step, 3)))
        for name, p in copy.named_parameters():
            changed = step >= 1 and name.startswith(redrawn)
            assert torch.equal(p, original[name]) != changed, (step, name)
    again = at.randomized_from_top(model, seed=0)
    for (_, a), (_, b) in zip(steps, again, strict=True):
        for pa, pb in zip(a.parameters(), b.parameters(), strict=True):
            assert torch.equal(pa, pb)


def test_tuned_lens_is_least_squares_and_its_last_block_is_the_model(model, images):
    pictures = torch.rand(60, 1, 8, 8, generator=torch.Generator().manual_seed(3))
    translators = at.fit_tuned_lens(model, pictures)
    states = at._class_token_states(model, pictures).numpy()  # (60, depth, D)
    design = np.concatenate([states[:, 0], np.ones((60, 1))], 1)
    expected, *_ = np.linalg.lstsq(design, states[:, -1], rcond=None)
    np.testing.assert_allclose(translators[0].numpy(), expected, atol=1e-8)
    lens = at.tuned_lens(model, images, translators)
    with torch.no_grad():
        final = model(images).softmax(-1)
    assert torch.allclose(lens[:, -1], final, atol=1e-5)  # the last translator: the identity
    assert torch.allclose(logit_lens(model, images)[:, -1], final, atol=1e-5)
    assert math.isfinite(float(lens.sum()))
