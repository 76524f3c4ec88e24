"""Figures of notebook 06: the ViT trained to tell intact pictures from scrambled ones."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .core import ATTENTION_CMAP, annotate_cells, as_array, axes_grid, new_figure, show_matrix
from .patches import show_patch_grid

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "show_attention_by_origin",
    "show_class_token_attention",
    "show_scramble_examples",
    "show_training_curves",
]


def _round_up_to_tenth(value: float) -> float:
    """The colour limit for weights up to ``value``: the next multiple of 0.1 (at least 0.1).

    A round limit keeps the colour bar's ticks in place when the largest weight moves a little,
    as trained weights do from one processor to another.
    """
    return max(float(np.ceil(round(value * 10, 6))) / 10, 0.1)


def show_scramble_examples(
    images,
    labels: Sequence[int],
    orders,
    patch_size: int = 20,
    ncols: int = 2,
    class_names: Sequence[str] = ("intact", "scrambled"),
    figsize: tuple[float, float] = (4.8, 4.6),
    by_column: bool = True,
) -> Figure:
    """Draw examples of a scramble data set, each patch labelled with its original 1-based number.

    Args:
        images: shape (n, H, W) or (n, 1, H, W), values in [0, 1].
        labels: class of each example (an index into ``class_names``), length n.
        orders: shape (n, N): patch i of example j is the original patch ``orders[j, i]`` (0-based),
            so the label drawn at position i is ``orders[j, i] + 1``.
        patch_size: side P of the patches.
        ncols: examples per row.
        class_names: name of each class, shown in the titles.
        figsize: size of the figure.
        by_column: fill the grid column by column (examples 1 ... rows down the first column,
            so n examples listed as n / 2 intact ones and then their twins, in two columns, put
            each twin beside its intact picture); row by row when False.

    Returns:
        The figure, with one axes per example in the order given, titled
        "example k: <class> (label c)".
    """
    images, orders = as_array(images), as_array(orders)
    images = images[:, 0] if images.ndim == 4 else images  # (n, H, W)
    labels = [int(c) for c in as_array(labels)]
    if by_column:
        ncols = min(ncols, len(images))
        nrows = -(-len(images) // ncols)  # ceil
        fig = new_figure(figsize)
        places = [(k % nrows) * ncols + k // nrows + 1 for k in range(len(images))]
        axes = [fig.add_subplot(nrows, ncols, place) for place in places]
    else:
        fig, axes = axes_grid(len(images), ncols, figsize)
    for k, ax in enumerate(axes):
        title = f"example {k + 1}: {class_names[labels[k]]} (label {labels[k]})"
        labels_k = [int(o) + 1 for o in orders[k]]
        show_patch_grid(images[k], patch_size, ax=ax, labels=labels_k, title=title)
        ax.title.set_fontsize(9)
        ax.set_xlabel("")
        ax.set_ylabel("")
        ax.set_xticks([])
        ax.set_yticks([])
    return fig


def show_training_curves(
    histories: dict[str, dict[str, Sequence[float]]],
    chance: float = 0.5,
    figsize: tuple[float, float] = (4.8, 6.4),
) -> Figure:
    """Loss and accuracy per epoch of several training runs, one panel above the other.

    Above: the mean training loss per epoch of each run, with the loss of a coin flip,
    ln 2, dashed, on an axis from 0 to 0.1 above the largest loss rounded up to a tenth.
    Below: the test accuracy (solid line, filled dots) and the training accuracy (dotted line,
    open squares) of each run, with the chance level dashed underneath. Where the
    two accuracies coincide (a run at exactly chance, or at 100 %), the open squares drawn around
    the dots keep the training curve visible.

    Args:
        histories: ``{run name: history}``, each history as returned by
            :func:`~vitexplain.training.train_classifier` with a test set (keys ``"epoch"``,
            ``"loss"``, ``"train_accuracy"``, ``"test_accuracy"``).
        chance: accuracy of guessing, drawn as a dashed line.
        figsize: size of the figure.

    Returns:
        The figure, with two axes: loss, then accuracy.
    """
    fig = new_figure(figsize)
    loss_ax, acc_ax = fig.subplots(2, 1)
    for n, (name, history) in enumerate(histories.items()):
        colour = f"C{n}"
        epochs = list(history["epoch"])
        loss_ax.plot(epochs, history["loss"], color=colour, marker="o", ms=3, label=name)
        test_style = {"marker": "o", "ms": 3, "zorder": 3}
        acc_ax.plot(
            epochs, history["test_accuracy"], color=colour, label=f"{name}: test", **test_style
        )
        train_style = {"ls": ":", "lw": 1.5, "marker": "s", "ms": 7, "mfc": "none", "zorder": 4}
        acc_ax.plot(
            epochs, history["train_accuracy"], color=colour, label=f"{name}: train", **train_style
        )
    loss_ax.axhline(np.log(2), color="grey", ls="--", lw=1, zorder=1, label="coin flip (ln 2)")
    acc_ax.axhline(chance, color="grey", ls="--", lw=1, zorder=1, label=f"chance ({chance:.0%})")
    # Fixed limits: an autoscaled axis moves its grid lines with the last bits of the losses,
    # which training on another CPU changes.
    largest = max(np.log(2), *(max(h["loss"]) for h in histories.values()))
    top = round(_round_up_to_tenth(largest) + 0.1, 1)
    loss_ax.set(
        xlabel="epoch", ylabel="training loss (binary cross-entropy)", title="loss", ylim=(0, top)
    )
    acc_ax.set(xlabel="epoch", ylabel="accuracy", title="accuracy", ylim=(0.0, 1.05))
    for ax in (loss_ax, acc_ax):
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    return fig


def show_class_token_attention(
    image,
    weights,
    patch_size: int = 20,
    cmap: str = ATTENTION_CMAP,
    vmax: float | None = None,
    figsize: tuple[float, float] = (4.8, 4.8),
) -> Figure:
    """Where the class token looks: its attention to every patch, drawn on the patch grid.

    The first panel is the image with its patches numbered 1 ... N; the next shows the weights
    averaged over the heads, then one panel per head. Each map is the (rows, cols) patch grid,
    every cell labelled "#patch" and its weight; all maps share the colour limits 0 .. ``vmax``,
    with one colour bar below them. The panels fill rows of two.

    Args:
        image: array of shape (H, W), values in [0, 1].
        weights: the class token's attention to the N patch tokens, shape (h, N) (or (N,) for one
            head), e.g. the mean over examples of
            :func:`~vitexplain.inspection.class_token_attention`.
        patch_size: side P of the patches; N must equal (H / P) * (W / P).
        cmap: colour map of the weights.
        vmax: upper colour limit; when None, the largest weight rounded up to a multiple of 0.1.
        figsize: size of the figure.

    Returns:
        The figure: the image's axes, the mean's, one per head (only the mean for a single
        head), then the colour bar's axes.
    """
    image = as_array(image).astype(np.float64)  # (H, W)
    weights = np.atleast_2d(as_array(weights).astype(np.float64))  # (h, N)
    rows, cols = image.shape[0] // patch_size, image.shape[1] // patch_size
    heads, n = weights.shape
    maps = [("mean over heads" if heads > 1 else "class token", weights.mean(0))]
    if heads > 1:
        maps += [(f"head {h + 1}", weights[h]) for h in range(heads)]
    vmax = _round_up_to_tenth(float(weights.max())) if vmax is None else float(vmax)
    fig, axes = axes_grid(len(maps) + 1, 2, figsize)
    show_patch_grid(image, patch_size, ax=axes[0], title=f"the picture, patches 1-{n}")
    for ax, (title, values) in zip(axes[1 : len(maps) + 1], maps, strict=True):
        grid = values.reshape(rows, cols)  # (rows, cols), row-major like the patches
        show_matrix(grid, ax=ax, title=title, cmap=cmap, vmin=0.0, vmax=vmax, aspect="equal")
        labels = [f"#{k + 1}\n{value:.2f}" for k, value in enumerate(grid.ravel())]
        annotate_cells(ax, grid, labels, cmap=cmap, vmin=0.0, vmax=vmax, fontsize=7)
        ax.set_xticks(range(cols), [str(c + 1) for c in range(cols)])
        ax.set_yticks(range(rows), [str(r + 1) for r in range(rows)])
        ax.set(xlabel="patch column", ylabel="patch row")
    mapped = list(axes[1 : len(maps) + 1])
    fig.colorbar(
        axes[1].images[0], ax=mapped, location="bottom", shrink=0.8, label="attention weight"
    )
    return fig


def show_attention_by_origin(
    table,
    fmt: str = "{:.2f}",
    cmap: str = ATTENTION_CMAP,
    vmax: float | None = None,
    figsize: tuple[float, float] = (4.8, 3.4),
) -> Figure:
    """The class token's mean weight per patch, by the grid row a patch sits in and came from.

    Args:
        table: shape (R, R), as returned by :func:`~vitexplain.inspection.attention_by_origin`:
            entry [r, s] is the mean weight a patch from grid row s receives in grid row r.
        fmt: format of the value written in each cell.
        cmap: colour map.
        vmax: upper colour limit (the lower one is 0); when None, the largest entry rounded up
            to a multiple of 0.1.
        figsize: size of the figure.

    Returns:
        The figure: the table's axes (rows: where the patch sits, columns: where it came from,
        both numbered from 1) and a labelled colour bar.
    """
    table = as_array(table).astype(np.float64)  # (R, R)
    ticks = list(range(1, len(table) + 1))
    fig = show_matrix(
        table,
        annotate=True,
        fmt=fmt,
        cmap=cmap,
        vmin=0.0,
        vmax=_round_up_to_tenth(float(np.nanmax(table))) if vmax is None else float(vmax),
        aspect="equal",
        xticklabels=ticks,
        yticklabels=ticks,
        xlabel="grid row the patch came from",
        ylabel="grid row the patch sits in",
        title="class token's weight per patch\n(scrambled test pictures)",
        figsize=figsize,
    )
    fig.colorbar(fig.axes[0].images[0], ax=fig.axes[0], shrink=0.8, label="mean attention weight")
    return fig
