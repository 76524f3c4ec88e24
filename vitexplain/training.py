"""Training a classifier on CPU (notebook 06): mini-batches, one line per epoch, evaluation.

``train_classifier`` runs Adam (AdamW with weight decay) over shuffled mini-batches and reports
once per epoch; ``evaluate`` measures the loss and accuracy on a data set. Options of the same
loop (notebook 08): a one-cycle learning-rate schedule, label smoothing, and random shifts of the
training images by a pixel or two (:func:`random_shift`). A model with one output
is trained as a binary classifier (a logit for class 1), a model with K >= 2 outputs as a K-way
one. The data set of notebook 06 is in :mod:`vitexplain.scramble`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["evaluate", "fit", "random_shift", "train_classifier"]

SCHEDULES = ("constant", "onecycle")


def _loss_and_correct(
    logits: torch.Tensor, labels: torch.Tensor, label_smoothing: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean loss and the number of right answers for a batch.

    One output (``num_classes=1``) is a logit for class 1 (binary cross-entropy, predict 1 when
    positive); more outputs are class scores (cross-entropy, predict the argmax).

    Args:
        logits: shape (B, K).
        labels: shape (B,), int64 class indices.
        label_smoothing: the share of each target spread evenly over the K classes
            (``F.cross_entropy``'s option; K >= 2 only).

    Returns:
        (mean loss, number of correct predictions), both 0-dimensional tensors.
    """
    if logits.ndim != 2:
        raise ValueError(
            f"the model must return logits of shape (B, K), got shape {tuple(logits.shape)}"
        )
    low, high, outputs = int(labels.min()), int(labels.max()), logits.shape[1]
    if outputs == 1:
        if label_smoothing:
            raise ValueError("label_smoothing needs a model with K >= 2 outputs, got 1 output")
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
        loss = F.cross_entropy(logits, labels, label_smoothing=label_smoothing)
        predictions = logits.argmax(dim=1)  # (B,)
    return loss, (predictions == labels).sum()


def _labelled(name: str, data: tuple) -> tuple[torch.Tensor, torch.Tensor]:
    """``train=`` or ``test=``: a pair (images, labels) of n > 0 images and n integer labels."""
    if not isinstance(data, tuple | list) or len(data) != 2:
        raise TypeError(f"{name} must be a pair (images, labels), got {type(data).__name__}")
    images, labels = data
    if labels.dtype.is_floating_point or labels.dtype == torch.bool:
        raise TypeError(f"{name}[1] (labels) must hold integer class indices, got {labels.dtype}")
    if len(images) != len(labels) or len(labels) == 0:
        raise ValueError(f"{name} has {len(images)} images but {len(labels)} labels")
    return images, labels.long()  # any integer dtype: the losses want int64


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
    labels = labels.long()  # any integer dtype: the losses want int64
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


def random_shift(images: torch.Tensor, max_shift: int, generator: torch.Generator) -> torch.Tensor:
    """Move each image by its own random whole-pixel offset, filling the uncovered border with 0.

    Each image is padded with ``max_shift`` zeros on every side and an H x W window is cut from
    it at a random offset: the content moves by dy, dx drawn uniformly from
    {-max_shift, ..., max_shift}. For the digits (ink 1 on 0) this writes the same digit a pixel
    further up, down, left or right: the assumption of a convolution, that a stroke means the
    same anywhere, given to a model as data.

    Args:
        images: shape (B, C, H, W).
        max_shift: the largest shift in pixels (0: the images unchanged).
        generator: the source of the offsets.

    Returns:
        Tensor of shape (B, C, H, W), the shifted images.
    """
    if max_shift >= min(images.shape[-2:]):
        raise ValueError(
            f"max_shift must be smaller than the images' height and width "
            f"{tuple(images.shape[-2:])}, got {max_shift}"
        )
    if max_shift == 0:
        return images
    b, c, h, w = images.shape
    padded = F.pad(images, (max_shift,) * 4)  # (B, C, H + 2s, W + 2s)
    dy, dx = torch.randint(0, 2 * max_shift + 1, (2, b), generator=generator)  # (B,) each
    rows = dy[:, None] + torch.arange(h)  # (B, H)
    cols = dx[:, None] + torch.arange(w)  # (B, W)
    picked = torch.arange(b)[:, None, None]
    out = padded.permute(0, 2, 3, 1)[picked, rows[:, :, None], cols[:, None, :]]  # (B, H, W, C)
    return out.permute(0, 3, 1, 2).contiguous()


def fit(
    model: nn.Module,
    n: int,
    batch_loss: Callable[[torch.Tensor], torch.Tensor],
    epochs: int,
    batch_size: int,
    lr: float,
    weight_decay: float = 0.0,
    seed: int = 0,
    schedule: str = "constant",
) -> Iterator[float]:
    """The series' one training loop: AdamW over shuffled mini-batches, one epoch at a time.

    Each epoch draws a new order of the ``n`` examples from a ``torch.Generator`` seeded with
    ``seed`` (the only randomness), and takes one AdamW step per mini-batch on the loss that
    ``batch_loss`` computes from the batch's indices. :func:`train_classifier` and
    :func:`vitexplain.train_where_am_i` differ only in that loss.

    With ``schedule="onecycle"`` the learning rate follows PyTorch's
    ``torch.optim.lr_scheduler.OneCycleLR`` over all the steps of the run: it warms up from
    ``lr / 25`` to ``lr`` in the first 30 % of the steps, then anneals to almost 0 along a
    cosine (with AdamW's betas cycled as that scheduler does).

    Args:
        model: the module whose parameters are trained (set to train mode during an epoch and
            to eval mode after it).
        n: number of training examples.
        batch_loss: maps the indices of a mini-batch, shape (B,), to its mean loss (a scalar).
        epochs: passes over the data.
        batch_size: examples per step.
        lr: learning rate.
        weight_decay: AdamW's decoupled weight decay (0: Adam's steps exactly).
        seed: seed of the shuffling.
        schedule: ``"constant"`` (``lr`` throughout) or ``"onecycle"`` (warm-up, then cosine
            annealing; one scheduler step per mini-batch).

    Returns:
        An iterator over the epochs: it runs one epoch per step and yields the epoch's mean
        training loss.
    """
    # Checked here, at the call: a generator's own body would run only at the first next().
    for name, value in (("epochs", epochs), ("batch_size", batch_size)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an int of at least 1, got {value!r}")
    if not lr > 0:
        raise ValueError(f"lr must be greater than 0, got {lr}")
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}")
    return _fit_epochs(model, n, batch_loss, epochs, batch_size, lr, weight_decay, seed, schedule)


def _fit_epochs(
    model: nn.Module,
    n: int,
    batch_loss: Callable[[torch.Tensor], torch.Tensor],
    epochs: int,
    batch_size: int,
    lr: float,
    weight_decay: float,
    seed: int,
    schedule: str,
) -> Iterator[float]:
    """The loop of :func:`fit`, on checked arguments."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    scheduler = None
    if schedule == "onecycle":
        steps = epochs * -(-n // batch_size)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=steps)
    generator = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        model.train()
        order = torch.randperm(n, generator=generator)  # (n,)
        total = 0.0
        for start in range(0, n, batch_size):
            batch = order[start : start + batch_size]
            loss = batch_loss(batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            total += loss.item() * len(batch)
        model.eval()
        yield total / n


def train_classifier(
    model: nn.Module,
    train: tuple[torch.Tensor, torch.Tensor],
    test: tuple[torch.Tensor, torch.Tensor] | None = None,
    epochs: int = 10,
    batch_size: int = 32,
    lr: float = 1e-3,
    weight_decay: float = 0.0,
    seed: int = 0,
    log: Callable[[str], object] | None = print,
    schedule: str = "constant",
    label_smoothing: float = 0.0,
    max_shift: int = 0,
) -> dict[str, list[float]]:
    """Train a classifier with AdamW on shuffled mini-batches; report once per epoch.

    With ``weight_decay=0`` (the default) AdamW takes exactly Adam's steps: the two differ only in
    how they apply weight decay.

    The only randomness is the order of the mini-batches, drawn from a ``torch.Generator`` seeded
    with ``seed`` (and, with ``max_shift > 0``, the shifts, from a second generator seeded with
    ``seed``); seed the model's initial weights yourself (``torch.manual_seed``) before building
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
            to 3 decimals); ``print`` by default; None for silence.
        schedule: ``"constant"`` or ``"onecycle"`` learning rate (see :func:`fit`).
        label_smoothing: share of each training target spread evenly over the classes (0: plain
            cross-entropy; the reported test loss is always plain).
        max_shift: move each training image by a random offset of up to this many pixels
            in each direction, anew at every step (:func:`random_shift`; 0: never).

    Returns:
        History: lists with one entry per epoch under ``"epoch"`` (1-based), ``"loss"`` (mean
        training loss during the epoch), ``"train_accuracy"`` (on the whole training set after the
        epoch) and, when ``test`` is given, ``"test_loss"`` and ``"test_accuracy"``.
    """
    images, labels = _labelled("train", train)
    test = None if test is None else _labelled("test", test)
    shifts = torch.Generator()  # seeded with `seed` once fit has checked it

    def batch_loss(batch: torch.Tensor) -> torch.Tensor:
        x = random_shift(images[batch], max_shift, shifts)  # (B, C, H, W)
        loss, _ = _loss_and_correct(model(x), labels[batch], label_smoothing)
        return loss

    history: dict[str, list[float]] = {"epoch": [], "loss": [], "train_accuracy": []}
    if test is not None:
        history.update(test_loss=[], test_accuracy=[])
    epoch_losses = fit(  # checks epochs, batch_size, lr, weight_decay, seed, schedule
        model, len(labels), batch_loss, epochs, batch_size, lr, weight_decay, seed, schedule
    )
    shifts.manual_seed(int(seed))
    for epoch, loss in enumerate(epoch_losses, start=1):
        _, train_accuracy = evaluate(model, images, labels)
        history["epoch"].append(epoch)
        history["loss"].append(loss)
        history["train_accuracy"].append(train_accuracy)
        line = f"epoch {epoch:2d}/{epochs}  loss {loss:.3f}  train acc {train_accuracy:.3f}"
        if test is not None:
            test_loss, test_accuracy = evaluate(model, *test)
            history["test_loss"].append(test_loss)
            history["test_accuracy"].append(test_accuracy)
            line += f"  test acc {test_accuracy:.3f}"
        if log is not None:
            log(line)
    model.eval()
    return history
