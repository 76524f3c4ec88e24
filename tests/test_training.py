"""vitexplain.training: the training loop and the evaluation of notebook 06."""

import math
import re

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from vitexplain import evaluate, random_shift, train_classifier


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
    history = train_classifier(
        model, train, test, epochs=6, batch_size=16, lr=0.05, log=lines.append
    )
    assert history["epoch"] == [1, 2, 3, 4, 5, 6] and len(lines) == 6
    assert lines[0].startswith("epoch  1/6  loss ")
    assert "  train acc " in lines[0] and "  test acc " in lines[0]
    assert history["loss"][-1] < 0.6 * history["loss"][0]
    assert history["test_accuracy"][-1] >= 0.9
    assert f"{history['test_accuracy'][-1]:.3f}" in lines[-1]
    assert not model.training  # left in eval mode


def test_training_prints_one_plain_line_per_epoch_by_default(capsys):
    train_classifier(_linear(2), _separable_problem(16), epochs=2, batch_size=8)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[1].startswith("epoch  2/2  loss ")


def test_training_is_deterministic_for_a_seed():
    runs = []
    for seed in (0, 0, 1):
        torch.manual_seed(0)
        model = _linear(1)  # one output: binary cross-entropy
        runs.append(
            train_classifier(
                model, _separable_problem(), epochs=2, batch_size=8, seed=seed, log=None
            )
        )
    assert runs[0] == runs[1] and runs[0]["loss"] != runs[2]["loss"]
    assert "test_accuracy" not in runs[0]


def test_without_weight_decay_the_steps_are_adams():
    """AdamW with weight decay 0 is Adam: a hand-written loop with torch.optim.Adam agrees."""
    x, y = _separable_problem(40, 3)
    torch.manual_seed(0)
    ours = _linear(2)
    torch.manual_seed(0)
    reference = _linear(2)
    train_classifier(ours, (x, y), epochs=3, batch_size=8, lr=0.01, seed=5, log=None)
    optimizer = torch.optim.Adam(reference.parameters(), lr=0.01)
    generator = torch.Generator().manual_seed(5)
    for _ in range(3):
        order = torch.randperm(40, generator=generator)
        for start in range(0, 40, 8):
            batch = order[start : start + 8]
            loss = F.cross_entropy(reference(x[batch]), y[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    for a, b in zip(ours.parameters(), reference.parameters(), strict=True):
        assert torch.allclose(a, b, atol=1e-6)


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


@pytest.mark.parametrize(
    "train, kwargs, error, message",
    [
        ("short", {}, ValueError, "train has 8 images but 7 labels"),
        ("empty", {}, ValueError, "train has 0 images but 0 labels"),
        ("float", {}, TypeError, "train[1] (labels) must hold integer class indices"),
        ("ok", {"test": "images"}, TypeError, "test must be a pair (images, labels), got Tensor"),
        ("ok", {"epochs": 0}, ValueError, "epochs must be an int of at least 1, got 0"),
        ("ok", {"lr": 0.0}, ValueError, "lr must be greater than 0, got 0.0"),
        ("ok", {"schedule": "cosine"}, ValueError, "schedule must be one of"),
    ],
)
def test_train_classifier_names_the_bad_argument(train, kwargs, error, message):
    x, y = _separable_problem(8)
    data = {"ok": (x, y), "short": (x, y[:7]), "empty": (x[:0], y[:0]), "float": (x, y.float())}
    kwargs = {k: x if v == "images" else v for k, v in kwargs.items()}
    with pytest.raises(error, match=re.escape(message)):
        train_classifier(_linear(2), data[train], log=None, **kwargs)


def test_labels_out_of_range_are_named():
    x, y = _separable_problem(8)
    with pytest.raises(ValueError, match=r"labels in \[0, 5\]"):
        evaluate(_linear(2), x, y * 5)
    with pytest.raises(ValueError, match="label_smoothing needs a model with K >= 2 outputs"):
        train_classifier(_linear(1), (x, y), label_smoothing=0.1, log=None)


def test_labels_of_any_integer_dtype():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(4, 2))
    images = torch.rand(8, 1, 2, 2)
    labels = torch.tensor([0, 1] * 4, dtype=torch.int32)  # int32: accepted, used as int64
    history = train_classifier(model, (images, labels), epochs=1, batch_size=4, log=None)
    assert len(history["loss"]) == 1
    assert 0.0 <= evaluate(model, images, labels)[1] <= 1.0


def _shifted_by_loop(image: torch.Tensor, dy: int, dx: int) -> torch.Tensor:
    """The image moved by (dy, dx) pixels, uncovered pixels 0: one pixel at a time."""
    out = torch.zeros_like(image)
    _, h, w = image.shape
    for y in range(h):
        for x in range(w):
            if 0 <= y - dy < h and 0 <= x - dx < w:
                out[:, y, x] = image[:, y - dy, x - dx]
    return out


def test_random_shift_moves_each_image_by_one_offset_within_the_bound():
    images = torch.rand(200, 2, 5, 6, generator=torch.Generator().manual_seed(0)) + 0.1
    shifted = random_shift(images, 1, torch.Generator().manual_seed(1))
    assert shifted.shape == images.shape
    seen = set()
    for image, moved in zip(images, shifted, strict=True):
        offsets = [
            (dy, dx)
            for dy in (-1, 0, 1)
            for dx in (-1, 0, 1)
            if torch.equal(moved, _shifted_by_loop(image, dy, dx))
        ]
        assert len(offsets) == 1  # exactly one of the 9 shifts (all pixels > 0: no ambiguity)
        seen.add(offsets[0])
    assert len(seen) == 9  # every offset drawn among 200 images
    again = random_shift(images, 1, torch.Generator().manual_seed(1))
    assert torch.equal(again, shifted)  # seeded
    assert random_shift(images, 0, torch.Generator()) is images


def test_one_cycle_and_label_smoothing_match_a_hand_written_loop():
    """The options of the one loop are PyTorch's own: OneCycleLR per step, smoothed targets."""
    x, y = _separable_problem(40, 3)
    torch.manual_seed(0)
    ours = _linear(2)
    torch.manual_seed(0)
    reference = _linear(2)
    train_classifier(
        ours,
        (x, y),
        epochs=3,
        batch_size=8,
        lr=0.01,
        weight_decay=0.1,
        seed=5,
        log=None,
        schedule="onecycle",
        label_smoothing=0.2,
    )
    optimizer = torch.optim.AdamW(reference.parameters(), lr=0.01, weight_decay=0.1)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.01, total_steps=15)
    generator = torch.Generator().manual_seed(5)
    for _ in range(3):
        order = torch.randperm(40, generator=generator)
        for start in range(0, 40, 8):
            batch = order[start : start + 8]
            log_p = torch.log_softmax(reference(x[batch]), 1)  # (8, 2)
            target = torch.full_like(log_p, 0.2 / 2)
            target[torch.arange(8), y[batch]] += 0.8  # smoothed one-hot
            loss = -(target * log_p).sum(1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
    for a, b in zip(ours.parameters(), reference.parameters(), strict=True):
        assert torch.allclose(a, b, atol=1e-6)
    torch.manual_seed(0)
    constant = _linear(2)
    train_classifier(constant, (x, y), epochs=3, batch_size=8, lr=0.01, seed=5, log=None)
    assert not torch.allclose(constant[1].weight, ours[1].weight, atol=1e-3)  # options matter


def test_shift_augmentation_trains_on_shifted_batches():
    """With max_shift the model sees random_shift of each batch, drawn from a seeded generator."""
    x, y = _separable_problem(16, 4)
    seen = []

    class Recorder(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(6, 2)

        def forward(self, images):
            if self.training:
                seen.append(images.clone())
            return self.linear(images.flatten(1))

    train_classifier(Recorder(), (x, y), epochs=1, batch_size=16, seed=3, log=None, max_shift=1)
    order = torch.randperm(16, generator=torch.Generator().manual_seed(3))
    expected = random_shift(x[order], 1, torch.Generator().manual_seed(3))
    assert len(seen) == 1 and torch.equal(seen[0], expected)
    assert not torch.equal(seen[0], x[order])
