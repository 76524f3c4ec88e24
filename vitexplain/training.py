"""Training a small ViT on CPU (notebook 06): is the Mountain in order, or are its patches shuffled?

The task is built so that position is the only thing that can solve it. Every example starts from
the same picture, shifted by a few pixels and covered in noise; half of the examples keep their
patches in place, the other half are the *same* noisy pictures with their patches shuffled. An
intact example and its scrambled twin hold the same multiset of patches, so a model that cannot
tell where a patch sits (a ViT without position embedding) cannot do better than a coin.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ._checks import check_int, check_size2, check_tensor
from .data import load_mountains
from .patches import scramble_patches

__all__ = [
    "attention_by_origin",
    "class_token_attention",
    "count_parameters",
    "evaluate",
    "make_scramble_dataset",
    "print_now",
    "train_classifier",
]

__all__ = [
    "attention_by_origin",
    "class_token_attention",
    "count_parameters",
    "evaluate",
    "make_scramble_dataset",
    "print_now",
    "train_classifier",
]


def _check_number(name: str, value: object, minimum: float, inclusive: bool) -> float:
    """Return ``value`` as a float if it is a real number above (or at) ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {value!r} of type {type(value).__name__}")
    value = float(value)
    if not np.isfinite(value) or value < minimum or (value == minimum and not inclusive):
        relation = "at least" if inclusive else "greater than"
        raise ValueError(f"{name} must be {relation} {minimum}, got {value}")
    return value


def make_scramble_dataset(
    n: int,
    seed: int,
    image: np.ndarray | None = None,
    patch_size: int = 20,
    max_shift: int = 2,
    noise: float = 0.1,
    return_orders: bool = False,
) -> tuple[torch.Tensor, torch.Tensor] | tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Make ``n`` examples of "intact or scrambled?" from one picture, in twins.

    For k < n / 2, example k is the picture rolled (circularly) by a random shift of at most
    ``max_shift`` pixels down and across, plus Gaussian noise of standard deviation ``noise``,
    clipped to [0, 1]; its label is 0 (intact). Example k + n / 2 is the very same noisy picture
    with its patches rearranged by a random permutation that is not the identity; its label is 1
    (scrambled). So the two classes hold exactly the same patches, twin by twin; only their
    places differ. Everything comes from ``np.random.default_rng(seed)``: the same seed gives the
    same data.

    Args:
        n: number of examples, even, at least 2.
        seed: seed of the random generator.
        image: the picture, shape (H, W); the Mountain (60, 100) when None.
        patch_size: side P of the patches that are scrambled; must divide H and W.
        max_shift: largest shift, in pixels, of the jitter along each axis (0: no jitter).
        noise: standard deviation of the Gaussian pixel noise (0: none).
        return_orders: also return the permutation of each example.

    Returns:
        ``(images, labels)``, or ``(images, labels, orders)`` when ``return_orders``:
        images float32 of shape (n, 1, H, W); labels int64 of shape (n,), 0 for the first half
        and 1 for the second; orders int64 of shape (n, N) with N = (H / P) * (W / P): patch i of
        example j is patch ``orders[j, i]`` of the jittered noisy picture (the identity for intact
        examples, 0-based, row-major).
    """
    n = check_int("n", n, minimum=2)
    if n % 2:
        raise ValueError(f"n must be even (intact and scrambled twins), got {n}")
    seed = check_int("seed", seed, minimum=0)
    patch_size = check_int("patch_size", patch_size)
    max_shift = check_int("max_shift", max_shift, minimum=0)
    noise = _check_number("noise", noise, 0.0, inclusive=True)
    picture = load_mountains() if image is None else np.asarray(image, dtype=np.float64)
    if picture.ndim != 2:
        raise ValueError(f"image must have shape (H, W), got shape {picture.shape}")
    height, width = picture.shape
    for side, size in (("height", height), ("width", width)):
        if size % patch_size:
            raise ValueError(f"patch_size {patch_size} does not divide the image {side} {size}")
    num_patches = (height // patch_size) * (width // patch_size)
    if num_patches < 2:
        raise ValueError(
            f"a {height} x {width} image has {num_patches} patch of side {patch_size}: "
            "nothing to scramble"
        )

    rng = np.random.default_rng(seed)
    half = n // 2
    shifts = rng.integers(-max_shift, max_shift + 1, size=(half, 2))  # (n/2, 2): rows, columns
    noisy = np.stack([np.roll(picture, tuple(s), axis=(0, 1)) for s in shifts])  # (n/2, H, W)
    noisy = np.clip(noisy + noise * rng.standard_normal(noisy.shape), 0.0, 1.0)
    identity = np.arange(num_patches)
    orders = np.tile(identity, (n, 1))  # (n, N)
    scrambled = np.empty_like(noisy)  # (n/2, H, W)
    for k in range(half):
        order = rng.permutation(num_patches)
        while np.array_equal(order, identity):  # a scrambled example must differ from its twin
            order = rng.permutation(num_patches)
        orders[half + k] = order
        scrambled[k] = scramble_patches(noisy[k], patch_size, order)
    images = torch.from_numpy(np.concatenate([noisy, scrambled])[:, None]).float()  # (n, 1, H, W)
    labels = torch.cat([torch.zeros(half, dtype=torch.int64), torch.ones(half, dtype=torch.int64)])
    if return_orders:
        return images, labels, torch.from_numpy(orders)
    return images, labels


def _check_data(name: str, data: object) -> tuple[torch.Tensor, torch.Tensor]:
    """Return ``(images, labels)`` from a pair, checking that they match."""
    if not isinstance(data, (tuple, list)) or len(data) != 2:
        raise TypeError(f"{name} must be a pair (images, labels), got {type(data).__name__}")
    images = check_tensor(f"{name}[0] (images)", data[0], min_ndim=2)
    labels = check_tensor(f"{name}[1] (labels)", data[1], ndim=1)
    if labels.dtype.is_floating_point or labels.dtype.is_complex or labels.dtype == torch.bool:
        raise TypeError(
            f"{name}[1] (labels) must hold integer class indices, got dtype {labels.dtype}"
        )
    if len(images) != len(labels):
        raise ValueError(f"{name} has {len(images)} images but {len(labels)} labels")
    if len(labels) == 0:
        raise ValueError(f"{name} is empty")
    return images, labels


def _loss_and_correct(
    logits: torch.Tensor, labels: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean loss and the number of right answers for a batch.

    One output (``num_classes=1``) is a logit for class 1 (binary cross-entropy, predict 1 when
    positive); more outputs are class scores (cross-entropy, predict the argmax).

    Args:
        logits: shape (B, K).
        labels: shape (B,), int64 class indices.

    Returns:
        (mean loss, number of correct predictions), both 0-dimensional tensors.
    """
    if logits.ndim != 2:
        raise ValueError(
            f"the model must return logits of shape (B, K), got shape {tuple(logits.shape)}"
        )
    low, high, outputs = int(labels.min()), int(labels.max()), logits.shape[1]
    if outputs == 1:
        if low < 0 or high > 1:
            raise ValueError(f"one output needs labels 0 or 1, got labels in [{low}, {high}]")
        loss = F.binary_cross_entropy_with_logits(logits[:, 0], labels.to(logits.dtype))
        predictions = (logits[:, 0] > 0).long()  # (B,)
    else:
        if low < 0 or high >= outputs:
            raise ValueError(
                f"labels must lie in [0, {outputs - 1}] for {outputs} outputs, "
                f"got labels in [{low}, {high}]"
            )
        loss = F.cross_entropy(logits, labels)
        predictions = logits.argmax(dim=1)  # (B,)
    return loss, (predictions == labels).sum()


@torch.no_grad()
def evaluate(
    model: nn.Module, images: torch.Tensor, labels: torch.Tensor, batch_size: int = 256
) -> tuple[float, float]:
    """Mean loss and accuracy of a classifier on a data set (in eval mode, without gradients).

    Args:
        model: maps images (B, ...) to logits (B, K); K = 1 is a binary logit, K >= 2 class scores.
        images: shape (n, ...), e.g. (n, 1, H, W).
        labels: int64 class indices, shape (n,).
        batch_size: examples per forward pass.

    Returns:
        (loss, accuracy): the mean loss per example and the fraction of right answers in [0, 1].
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    images, labels = _check_data("data", (images, labels))
    batch_size = check_int("batch_size", batch_size)
    was_training = model.training
    model.eval()
    total_loss, correct = 0.0, 0
    for start in range(0, len(labels), batch_size):
        x, y = images[start : start + batch_size], labels[start : start + batch_size]
        loss, right = _loss_and_correct(model(x), y)
        total_loss += loss.item() * len(y)
        correct += int(right)
    model.train(was_training)
    return total_loss / len(labels), correct / len(labels)


def print_now(*values: object, sep: str = " ") -> None:
    """``print``, but in a single write that is flushed at once.

    ``print`` writes its values, separators and the final newline one by one, and a Jupyter kernel
    may send what it has buffered between any two writes, so the same cell can store its text as
    one output on one run and as two on the next. One write followed by a flush makes every call
    one output, on every run; in a training loop, each epoch's line also appears as soon as the
    epoch ends.

    Args:
        *values: the objects to print, converted with ``str``.
        sep: the text between two values.
    """
    if not isinstance(sep, str):
        raise TypeError(f"sep must be a str, got {sep!r}")
    sys.stdout.write(sep.join(str(value) for value in values) + "\n")
    sys.stdout.flush()


def train_classifier(
    model: nn.Module,
    train: tuple[torch.Tensor, torch.Tensor],
    test: tuple[torch.Tensor, torch.Tensor] | None = None,
    epochs: int = 10,
    batch_size: int = 32,
    lr: float = 1e-3,
    weight_decay: float = 0.0,
    seed: int = 0,
    log: Callable[[str], object] | None = print_now,
) -> dict[str, list[float]]:
    """Train a classifier with AdamW on shuffled mini-batches; report once per epoch.

    The only randomness is the order of the mini-batches, drawn from a ``torch.Generator`` seeded
    with ``seed``; seed the model's initial weights yourself (``torch.manual_seed``) before building
    it. With the same seed, model and data, the run is the same on the same machine.

    Args:
        model: maps images (B, ...) to logits (B, K): one binary logit (K = 1) or class scores.
        train: (images (n, ...), labels (n,) int64) to train on.
        test: optional (images, labels) held out, evaluated after every epoch.
        epochs: passes over the training data.
        batch_size: examples per optimisation step.
        lr: learning rate of AdamW.
        weight_decay: weight decay of AdamW.
        seed: seed of the shuffling.
        log: called with one line of text per epoch (epoch, loss, train and test accuracy, rounded
            to 3 decimals); by default printed and flushed at once; None for silence.

    Returns:
        History: lists with one entry per epoch under ``"epoch"`` (1-based), ``"loss"`` (mean
        training loss during the epoch), ``"train_accuracy"`` (on the whole training set after the
        epoch) and, when ``test`` is given, ``"test_loss"`` and ``"test_accuracy"``.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    images, labels = _check_data("train", train)
    if test is not None:
        test = _check_data("test", test)
    epochs = check_int("epochs", epochs)
    batch_size = check_int("batch_size", batch_size)
    lr = _check_number("lr", lr, 0.0, inclusive=False)
    weight_decay = _check_number("weight_decay", weight_decay, 0.0, inclusive=True)
    seed = check_int("seed", seed, minimum=0)
    if log is not None and not callable(log):
        raise TypeError(f"log must be callable or None, got {log!r}")

    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    generator = torch.Generator().manual_seed(seed)
    history: dict[str, list[float]] = {"epoch": [], "loss": [], "train_accuracy": []}
    if test is not None:
        history.update(test_loss=[], test_accuracy=[])
    n = len(labels)
    for epoch in range(1, epochs + 1):
        model.train()
        order = torch.randperm(n, generator=generator)  # (n,)
        running = 0.0
        for start in range(0, n, batch_size):
            batch = order[start : start + batch_size]
            loss, _ = _loss_and_correct(model(images[batch]), labels[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item() * len(batch)
        _, train_accuracy = evaluate(model, images, labels)
        history["epoch"].append(epoch)
        history["loss"].append(running / n)
        history["train_accuracy"].append(train_accuracy)
        line = f"epoch {epoch:2d}/{epochs}  loss {running / n:.3f}  train acc {train_accuracy:.3f}"
        if test is not None:
            test_loss, test_accuracy = evaluate(model, *test)
            history["test_loss"].append(test_loss)
            history["test_accuracy"].append(test_accuracy)
            line += f"  test acc {test_accuracy:.3f}"
        if log is not None:
            log(line)
    model.eval()
    return history


@torch.no_grad()
def class_token_attention(model: nn.Module, images: torch.Tensor, block: int = -1) -> torch.Tensor:
    """How much the class token attends to each patch token, in one block of a ViT.

    Args:
        model: a ViT whose ``forward(x, return_attention=True)`` returns
            ``(logits, [weights (B, h, N+1, N+1) per block])``, the class token first.
        images: shape (B, C, H, W).
        block: which block (Python index: -1 is the last).

    Returns:
        Tensor of shape (B, h, N): row 0 of the block's attention weights without its first
        column, i.e. the weight the class token gives each patch token (the rest of the row, the
        weight it gives itself, is ``1 - sum``).
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    images = check_tensor("images", images, ndim=4)
    if isinstance(block, bool) or not isinstance(block, int):
        raise TypeError(f"block must be an int, got {block!r}")
    was_training = model.training
    model.eval()
    _, weights = model(images, return_attention=True)
    model.train(was_training)
    if not -len(weights) <= block < len(weights):
        raise ValueError(f"block {block} does not exist: the model has {len(weights)} blocks")
    return weights[block][:, :, 0, 1:]  # (B, h, N)


def count_parameters(model: nn.Module) -> dict[str, int]:
    """Number of trainable parameters of each top-level part of a model, and the total.

    Buffers (such as a fixed position embedding) are not parameters and are not counted.

    Args:
        model: any module.

    Returns:
        ``{part: count}`` in registration order (a top-level parameter such as ``cls_token`` is
        its own part), then ``"total"``. Works on the meta device (no memory is allocated).
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    counts: dict[str, int] = {}
    for name, parameter in model.named_parameters():
        if parameter.requires_grad:
            part = name.split(".")[0]
            counts[part] = counts.get(part, 0) + parameter.numel()
    counts["total"] = sum(counts.values())
    return counts


def attention_by_origin(
    weights: torch.Tensor, orders: torch.Tensor, grid_size: tuple[int, int]
) -> torch.Tensor:
    """Mean attention a patch receives, by the grid row it sits in and the grid row it came from.

    For scrambled pictures this separates "where a patch is" from "what it is": entry [r, s] is
    the mean weight over all (picture, position) pairs whose position lies in grid row r and whose
    patch was taken from grid row s of the intact picture.

    Args:
        weights: attention to each patch position, shape (B, N), e.g. the class token's weights
            averaged over heads (``class_token_attention(model, x).mean(1)``).
        orders: shape (B, N), int: position i of picture b holds original patch ``orders[b, i]``
            (0-based, row-major), as returned by :func:`make_scramble_dataset`.
        grid_size: (rows, cols) of the patch grid, rows * cols = N (one int: a square grid).

    Returns:
        float64 tensor of shape (rows, rows); NaN where no pair falls in a cell.
    """
    weights = check_tensor("weights", weights, ndim=2)
    orders = check_tensor("orders", orders, ndim=2)
    rows, cols = check_size2("grid_size", grid_size)
    if weights.shape != orders.shape or weights.shape[1] != rows * cols:
        raise ValueError(
            f"weights {tuple(weights.shape)} and orders {tuple(orders.shape)} must both have shape "
            f"(B, {rows * cols}) for a {rows} x {cols} grid"
        )
    if orders.dtype.is_floating_point or orders.min() < 0 or orders.max() >= rows * cols:
        raise ValueError(f"orders must hold patch indices 0 .. {rows * cols - 1}")
    sits = (torch.arange(rows * cols) // cols).expand_as(orders)  # (B, N): row of the position
    came = orders.long() // cols  # (B, N): row the patch came from
    cell = (sits * rows + came).flatten()  # (B*N,): index into the (rows, rows) table
    total = torch.zeros(rows * rows, dtype=torch.float64).index_add_(
        0, cell, weights.flatten().double()
    )
    count = torch.zeros(rows * rows, dtype=torch.float64).index_add_(
        0, cell, torch.ones(cell.shape, dtype=torch.float64)
    )
    return (total / count).reshape(rows, rows)  # 0 / 0 = NaN where no pair falls
