"""A learned position embedding, trained here (notebook 07): what does the table learn?

The original ViT learns its position table, and its Figure 7 shows that, after training, the
vector of a patch is most similar to those of its row and column neighbours. Here a small ViT with
``pos_embed="learned"`` is trained on two tasks, and its table is compared, patch by patch on the
Mountain's 3 x 5 grid, with the fixed sinusoidal table: the scramble task of notebook 06, and
*where am I?*, in which every patch token of a scrambled picture must name its own row and column.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from .position import embedding_similarity
from .training import fit
from .vit import ViT

__all__ = [
    "grid_neighbours",
    "grid_similarity",
    "neighbour_contrast",
    "neighbour_wins",
    "position_targets",
    "token_position_logits",
    "train_where_am_i",
]


def _grid_coordinates(rows: int, cols: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Row and column of every patch of a rows x cols grid, row-major: two (N,) int64 tensors."""
    index = torch.arange(rows * cols)  # (N,)
    return index // cols, index % cols


def position_targets(
    grid_size: int | tuple[int, int], sigma: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """What each patch of the grid should answer to *where am I?*: its row and its column.

    The answers are soft: patch (r, c) puts weight exp(-(i - r)^2 / (2 sigma^2)) on row i and
    exp(-(j - c)^2 / (2 sigma^2)) on column j, each normalised to sum 1, so a guess one row off
    is nearly right and one two rows off is wrong. ``sigma=0`` gives one-hot answers.

    Args:
        grid_size: (rows, cols) of the patch grid (one int: square).
        sigma: width of the answer, in patches, at least 0.

    Returns:
        ``(row_targets, col_targets)``: float32 tensors of shape (N, rows) and (N, cols),
        N = rows * cols, one distribution per patch in row-major order.
    """
    rows, cols = (grid_size, grid_size) if isinstance(grid_size, int) else grid_size
    r, c = _grid_coordinates(rows, cols)  # (N,) each
    targets = []
    for where, size in ((r, rows), (c, cols)):
        offset = (torch.arange(size)[None] - where[:, None]).double()  # (N, size)
        # exp(-1 / (2 sigma^2)) < exp(-500) rounds to 0 in float32: exactly one-hot, and
        # computed so (1 / sigma^2 would overflow for a sigma such as 1e-200)
        if sigma**2 < 1e-3:
            targets.append((offset == 0).float())
        else:
            targets.append(torch.softmax(-(offset**2) / (2 * sigma**2), dim=1).float())
    return targets[0], targets[1]


def token_position_logits(model: ViT, images: torch.Tensor) -> torch.Tensor:
    """The model's head applied to every patch token (not only the class token).

    Args:
        model: a :class:`ViT` whose head has rows + cols outputs: row scores, then column scores.
        images: shape (B, C, H, W).

    Returns:
        Tensor of shape (B, N, rows + cols): one set of scores per patch token.
    """
    return model.head(model.forward_features(images)[:, 1:])  # (B, N, rows + cols)


def train_where_am_i(
    model: ViT,
    images: torch.Tensor,
    grid_size: int | tuple[int, int],
    sigma: float = 1.0,
    epochs: int = 12,
    batch_size: int = 32,
    lr: float = 3e-3,
    seed: int = 0,
) -> dict[str, list[float]]:
    """Train every patch token to name its own row and column, with AdamW.

    The loss of a picture is the cross-entropy between each token's row scores and its
    :func:`position_targets` row answer, plus the same for columns, averaged over the N tokens.
    Scramble the pictures first, so that a patch's pixels say nothing about where it sits and
    only the position embedding can answer. The only randomness is the order of the batches,
    drawn from a generator seeded with ``seed``.

    Args:
        model: a :class:`ViT` with ``num_classes = rows + cols``; its grid must be ``grid_size``.
        images: shape (n, C, H, W).
        grid_size: (rows, cols) of the model's patch grid.
        sigma: width of the soft answers (see :func:`position_targets`).
        epochs: passes over the images.
        batch_size: pictures per step.
        lr: learning rate of AdamW (no weight decay).
        seed: seed of the shuffling.

    Returns:
        History: ``"loss"`` (mean loss per epoch) and ``"accuracy"`` (after each epoch, the
        fraction of tokens of ``images`` whose best row and best column are both right).
    """
    rows, cols = (grid_size, grid_size) if isinstance(grid_size, int) else grid_size
    if model.head.out_features != rows + cols:
        raise ValueError(f"a {rows} x {cols} grid needs a model with {rows + cols} outputs")
    row_targets, col_targets = position_targets((rows, cols), sigma)  # (N, rows), (N, cols)
    true_rows, true_cols = _grid_coordinates(rows, cols)  # (N,) each

    def batch_loss(batch: torch.Tensor) -> torch.Tensor:
        logits = token_position_logits(model, images[batch])  # (B, N, rows + cols)
        return F.cross_entropy(
            logits[..., :rows].transpose(1, 2), row_targets.T.expand(len(batch), -1, -1)
        ) + F.cross_entropy(
            logits[..., rows:].transpose(1, 2), col_targets.T.expand(len(batch), -1, -1)
        )

    history: dict[str, list[float]] = {"loss": [], "accuracy": []}
    for loss in fit(model, len(images), batch_loss, epochs, batch_size, lr, 0.0, seed):
        with torch.no_grad():
            logits = token_position_logits(model, images)  # (n, N, rows + cols)
        right = (logits[..., :rows].argmax(-1) == true_rows) & (
            logits[..., rows:].argmax(-1) == true_cols
        )  # (n, N)
        history["loss"].append(loss)
        history["accuracy"].append(right.double().mean().item())
    return history


def grid_neighbours(grid_size: int | tuple[int, int]) -> torch.Tensor:
    """Which patches of a grid are row or column neighbours (share a side).

    Args:
        grid_size: (rows, cols) of the patch grid (one int: square).

    Returns:
        Bool tensor of shape (N, N), N = rows * cols, row-major: True where patches a and b are
        one step apart along a row or a column.
    """
    rows, cols = (grid_size, grid_size) if isinstance(grid_size, int) else grid_size
    r, c = _grid_coordinates(rows, cols)  # (N,) each
    steps = (r[:, None] - r[None]).abs() + (c[:, None] - c[None]).abs()  # (N, N) city-block
    return steps == 1


def grid_similarity(
    table: torch.Tensor, grid_size: int | tuple[int, int], num_prefix_tokens: int = 0
) -> torch.Tensor:
    """Cosine similarity of every patch's position vector with every other, laid out on the grid.

    Args:
        table: position embedding of shape (N + num_prefix_tokens, D), or (1, N + prefix, D)
            as a ViT's ``pos_embed``.
        grid_size: (rows, cols) of the patch grid, rows * cols = N.
        num_prefix_tokens: rows before the patches (1 for a ViT's class token), left out.

    Returns:
        float32 tensor of shape (rows, cols, rows, cols): entry [r, c, r2, c2] is the cosine
        similarity of patch (r, c) with patch (r2, c2), so [r, c] is patch (r, c)'s map, as in
        Figure 7 of Dosovitskiy et al. (2020).
    """
    table = table[0] if table.ndim == 3 else table  # a ViT's (1, prefix + N, D)
    rows, cols = (grid_size, grid_size) if isinstance(grid_size, int) else grid_size
    prefix = num_prefix_tokens
    sim = embedding_similarity(table[prefix:].detach().float())  # (N, N)
    return sim.reshape(rows, cols, rows, cols)


def _neighbours_and_others(similarity: torch.Tensor) -> tuple:
    """(N, N) float64 similarity, the neighbour mask and the mask of the other patches (neither
    the patch itself nor a neighbour), from a (rows, cols, rows, cols) similarity grid."""
    rows, cols = similarity.shape[:2]
    near = grid_neighbours((rows, cols))  # (N, N)
    far = ~near & ~torch.eye(rows * cols, dtype=torch.bool)  # (N, N)
    if not far.any(1).all() or not near.any(1).all():
        raise ValueError(
            f"similarity is of a {rows} x {cols} grid, where some patch has no neighbour or no "
            "other patch to compare with: the grid needs at least 2 x 2 or 1 x 4 patches"
        )
    return similarity.reshape(rows * cols, rows * cols).double(), near, far


def neighbour_wins(similarity: torch.Tensor, margin: float = 1e-3) -> torch.Tensor:
    """For each patch: is its most similar other patch a row or column neighbour, by a margin?

    Args:
        similarity: shape (rows, cols, rows, cols), as from :func:`grid_similarity`.
        margin: how much more similar the best neighbour must be than every other patch, so
            that a tie (or a difference in the last bits) never counts as a win.

    Returns:
        Bool tensor of shape (rows, cols): True where the largest similarity to a 4-neighbour
        exceeds the largest similarity to any other patch (itself excluded) by more than
        ``margin``.
    """
    sim, near, far = _neighbours_and_others(similarity)
    rows, cols = similarity.shape[:2]
    best_near = sim.masked_fill(~near, -torch.inf).amax(1)  # (N,)
    best_far = sim.masked_fill(~far, -torch.inf).amax(1)  # (N,)
    return (best_near > best_far + margin).reshape(rows, cols)


def neighbour_contrast(similarity: torch.Tensor) -> torch.Tensor:
    """For each patch: mean similarity to its row and column neighbours minus that to the rest.

    Args:
        similarity: shape (rows, cols, rows, cols), as from :func:`grid_similarity`.

    Returns:
        float64 tensor of shape (rows, cols); positive where the 4-neighbours are, on average,
        more similar than the other patches (itself excluded).
    """
    sim, near, far = _neighbours_and_others(similarity)
    mean_near = (sim * near).sum(1) / near.sum(1)  # (N,)
    mean_far = (sim * far).sum(1) / far.sum(1)  # (N,)
    return (mean_near - mean_far).reshape(similarity.shape[:2])
