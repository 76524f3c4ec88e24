import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from vitexplain import (
    ViT,
    attention_by_origin,
    class_token_attention,
    count_parameters,
    evaluate,
    load_mountains,
    make_scramble_dataset,
    patchify,
    print_now,
    train_classifier,
)


def test_scramble_dataset_is_deterministic_and_balanced():
    images, labels, orders = make_scramble_dataset(20, seed=3, return_orders=True)
    again, labels_again = make_scramble_dataset(20, seed=3)
    other, _ = make_scramble_dataset(20, seed=4)
    assert images.shape == (20, 1, 60, 100) and images.dtype == torch.float32
    assert torch.equal(images, again) and torch.equal(labels, labels_again)
    assert not torch.equal(images, other)
    assert labels.dtype == torch.int64 and labels.tolist() == [0] * 10 + [1] * 10
    assert images.min() >= 0 and images.max() <= 1
    assert orders.shape == (20, 15)
    assert (orders[:10] == torch.arange(15)).all()  # intact examples keep their order


def test_scrambled_twin_is_a_real_permutation_of_the_noisy_patches():
    images, labels, orders = make_scramble_dataset(16, seed=0, return_orders=True)
    patches = patchify(images, 20)  # (16, 15, 400)
    for k in range(8):
        order = orders[8 + k]
        assert sorted(order.tolist()) == list(range(15)) and order.tolist() != list(range(15))
        assert torch.equal(patches[8 + k], patches[k][order])  # exactly the twin's patches, moved
        # and the same multiset: sorting the patches by their bytes gives the same list
        ours = sorted(p.numpy().tobytes() for p in patches[8 + k])
        assert ours == sorted(p.numpy().tobytes() for p in patches[k])
    assert not torch.equal(images[8], images[0])


def test_intact_examples_are_the_picture_shifted_and_noised():
    picture = load_mountains()
    images, _ = make_scramble_dataset(4, seed=1, max_shift=0, noise=0.0)
    assert torch.equal(images[0, 0], torch.tensor(picture, dtype=torch.float32))
    shifted, _ = make_scramble_dataset(12, seed=2, max_shift=3, noise=0.0)
    rolls = {(dy, dx): np.roll(picture, (dy, dx), axis=(0, 1))
             for dy in range(-3, 4) for dx in range(-3, 4)}  # fmt: skip
    seen = set()
    for k in range(6):
        image = shifted[k, 0].numpy()
        matches = [s for s, r in rolls.items() if np.array_equal(image, r.astype(np.float32))]
        assert matches, f"example {k} is not a roll of the picture by at most 3 pixels"
        seen.add(matches[0])
    assert len(seen) > 1  # the jitter does move the picture
    noisy, _ = make_scramble_dataset(200, seed=5, max_shift=0, noise=0.05)
    residual = noisy[:100, 0].numpy() - picture  # clipping only at 0 and 1
    inside = (picture > 0.2) & (picture < 0.8)
    assert abs(residual[:, inside].std() - 0.05) < 0.002 and abs(residual[:, inside].mean()) < 0.002


def _separable_problem(n: int = 64, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 1, 2, 3, generator=g)
    y = (x.flatten(1) @ torch.tensor([1.0, -2.0, 0.5, 0.0, 1.0, -1.0]) > 0).long()
    return x, y


def _linear(outputs: int) -> nn.Module:
    return nn.Sequential(nn.Flatten(), nn.Linear(6, outputs))


def test_training_reduces_the_loss_and_logs_every_epoch():
    train, test = _separable_problem(64, 0), _separable_problem(32, 1)
    lines = []
    model = _linear(2)
    history = train_classifier(model, train, test, epochs=6, batch_size=16, lr=0.05,
                               log=lines.append)  # fmt: skip
    assert history["epoch"] == [1, 2, 3, 4, 5, 6] and len(lines) == 6
    assert lines[0].startswith("epoch  1/6  loss ")
    assert "  train acc " in lines[0] and "  test acc " in lines[0]
    assert history["loss"][-1] < 0.6 * history["loss"][0]
    assert history["test_accuracy"][-1] >= 0.9
    assert f"{history['test_accuracy'][-1]:.3f}" in lines[-1]
    assert not model.training  # left in eval mode


def test_training_is_deterministic_for_a_seed():
    runs = []
    for seed in (0, 0, 1):
        torch.manual_seed(0)
        model = _linear(1)  # one output: binary cross-entropy
        runs.append(train_classifier(model, _separable_problem(), epochs=2, batch_size=8, seed=seed,
                                     log=None))  # fmt: skip
    assert runs[0] == runs[1] and runs[0]["loss"] != runs[2]["loss"]
    assert "test_accuracy" not in runs[0]


@pytest.mark.parametrize("outputs", [1, 2])
def test_evaluate_matches_a_manual_computation(outputs):
    x, y = _separable_problem(50, 2)
    model = _linear(outputs)
    loss, accuracy = evaluate(model, x, y, batch_size=7)  # batches of 7, 7, ..., 1
    with torch.no_grad():
        logits = model(x)
    if outputs == 1:
        predictions = (torch.sigmoid(logits[:, 0]) > 0.5).long()
        expected = F.binary_cross_entropy(torch.sigmoid(logits[:, 0]), y.float())
    else:
        predictions = logits.argmax(1)
        expected = -torch.log_softmax(logits, 1)[torch.arange(50), y].mean()
    assert accuracy == sum(int(p == t) for p, t in zip(predictions, y, strict=True)) / 50
    assert math.isclose(loss, expected.item(), rel_tol=1e-5)


def test_class_token_attention_is_row_zero_of_the_softmax():
    torch.manual_seed(0)
    vit = ViT((60, 100), 20, embed_dim=16, depth=1, num_heads=2).eval()
    x = torch.rand(3, 1, 60, 100)
    got = class_token_attention(vit, x)
    assert got.shape == (3, 2, 15)
    with torch.no_grad():  # by hand: class token + patches + position, norm1, q and k, softmax
        z = torch.cat([vit.cls_token.expand(3, -1, -1), vit.patch_embed(x)], 1) + vit.pos_embed
        block = vit.blocks[0]
        q, k, _ = block.attn.qkv(block.norm1(z)).reshape(3, 16, 3, 2, 8).permute(2, 0, 3, 1, 4)
        weights = torch.softmax(q @ k.transpose(-1, -2) * 8**-0.5, dim=-1)  # (3, 2, 16, 16)
    assert torch.allclose(got, weights[:, :, 0, 1:], atol=1e-6)
    assert (got.sum(-1) < 1).all()  # the rest goes to the class token itself


def test_attention_by_origin_matches_a_loop():
    g = torch.Generator().manual_seed(0)
    weights = torch.rand(6, 15, generator=g)
    orders = torch.stack([torch.randperm(15, generator=g) for _ in range(6)])
    got = attention_by_origin(weights, orders, (3, 5))
    total, count = np.zeros((3, 3)), np.zeros((3, 3))
    for b in range(6):
        for position in range(15):
            r, s = position // 5, int(orders[b, position]) // 5
            total[r, s] += float(weights[b, position])
            count[r, s] += 1
    assert got.shape == (3, 3) and np.allclose(got.numpy(), total / count)
    identity = attention_by_origin(weights, torch.arange(15).expand(6, 15), (3, 5))
    assert torch.isnan(identity[0, 1])  # intact pictures: every patch sits in its own row
    assert torch.isclose(identity[1, 1], weights[:, 5:10].double().mean())
    with pytest.raises(ValueError, match=r"\(6, 14\)"):
        attention_by_origin(weights[:, :14], orders, (3, 5))
    with pytest.raises(ValueError, match="orders must hold patch indices 0 .. 14"):
        attention_by_origin(weights, orders + 1, (3, 5))


def test_print_now_writes_once_like_print(monkeypatch):
    import io
    import sys

    writes = []

    class Recorder(io.StringIO):
        def write(self, text):
            writes.append(text)
            return super().write(text)

    recorder = Recorder()
    monkeypatch.setattr(sys, "stdout", recorder)
    print_now("epoch", 1, [0.5], sep=" | ")
    assert writes == ["epoch | 1 | [0.5]\n"]  # one write ...
    print("epoch", 1, [0.5], sep=" | ")
    assert "".join(writes[1:]) == writes[0] and len(writes) > 2  # ... of what print writes in parts
    with pytest.raises(TypeError, match="sep must be a str, got 1"):
        print_now("a", sep=1)


def test_count_parameters_matches_the_formula_and_skips_the_position_buffer():
    vit = ViT((60, 100), 20, num_classes=3, embed_dim=16, depth=2, num_heads=2)
    counts = count_parameters(vit)
    d = 16
    assert counts["patch_embed"] == 400 * d + d and counts["cls_token"] == d
    assert counts["blocks"] == 2 * (12 * d * d + 10 * d)  # no qkv bias: 3d fewer than 13d
    assert counts["norm"] == 2 * d and counts["head"] == 3 * d + 3
    assert counts["total"] == sum(p.numel() for p in vit.parameters())
    assert "pos_embed" not in counts
    with torch.device("meta"):
        big = ViT(224, 16, in_chans=3, num_classes=1000, embed_dim=768, depth=12, num_heads=12,
                  qkv_bias=True)  # fmt: skip
    assert count_parameters(big)["total"] == 86_416_360  # timm's ViT-B/16 minus 197 x 768 pos_embed


def test_bad_arguments_are_named():
    x, y = _separable_problem(8)
    model = _linear(2)
    with pytest.raises(ValueError, match="n must be even .* got 7"):
        make_scramble_dataset(7, 0)
    with pytest.raises(ValueError, match="n must be at least 2, got 0"):
        make_scramble_dataset(0, 0)
    with pytest.raises(ValueError, match="noise must be at least 0.0, got -0.1"):
        make_scramble_dataset(4, 0, noise=-0.1)
    with pytest.raises(ValueError, match="patch_size 7"):
        make_scramble_dataset(4, 0, patch_size=7)
    with pytest.raises(TypeError, match="seed must be an int, got 1.5"):
        make_scramble_dataset(4, 1.5)
    with pytest.raises(ValueError, match=r"shape \(3, 60, 100\)"):
        make_scramble_dataset(4, 0, image=np.zeros((3, 60, 100)))
    with pytest.raises(ValueError, match="8 images but 7 labels"):
        train_classifier(model, (x, y[:7]), log=None)
    with pytest.raises(ValueError, match="epochs must be at least 1, got 0"):
        train_classifier(model, (x, y), epochs=0, log=None)
    with pytest.raises(ValueError, match="lr must be greater than 0.0, got 0.0"):
        train_classifier(model, (x, y), lr=0.0, log=None)
    with pytest.raises(TypeError, match="log must be callable or None, got 'yes'"):
        train_classifier(model, (x, y), log="yes")
    with pytest.raises(TypeError, match="model must be a torch.nn.Module, got str"):
        train_classifier("model", (x, y), log=None)
    with pytest.raises(TypeError, match="float32"):
        evaluate(model, x, y.float())
    with pytest.raises(ValueError, match=r"labels in \[0, 5\]"):
        evaluate(model, x, y * 5)
    with pytest.raises(ValueError, match="block 2 does not exist: the model has 2 blocks"):
        vit = ViT((20, 20), 10, embed_dim=8, depth=2)
        class_token_attention(vit, torch.rand(1, 1, 20, 20), block=2)
