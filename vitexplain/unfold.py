"""The geometry of ``nn.Unfold`` (notebooks 01 and 05): how many patches, where they sit, and how
to fold them back.

ViT's patch split (notebook 01) is an unfold with kernel = stride = P and no padding; T2T-ViT's soft
split (notebook 05) is one whose patches overlap. Both are counted by :func:`count_tokens`; the
soft split's boxes, overlap counts and fold-back are here too, all with the image size as
``h, w`` first, then kernel ``k``, stride ``s`` and padding ``p``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

__all__ = [
    "count_tokens",
    "fold_tokens",
    "overlap_count",
    "soft_split_boxes",
]


def count_tokens(h: int, w: int, k: int, s: int, p: int) -> tuple[int, int, int]:
    """Count the patches that ``nn.Unfold(k, stride=s, padding=p)`` cuts from an h x w image.

    Along each side, a kernel of size k slides with stride s over the side padded by p on both ends:
    ``rows = (h + 2p - k) // s + 1`` and ``cols = (w + 2p - k) // s + 1``.

    Args:
        h: image height.
        w: image width.
        k: kernel (patch) size.
        s: stride.
        p: zero padding added on every side.

    Returns:
        (rows, cols, total) with total = rows * cols.
    """
    for side, size in (("height", h), ("width", w)):
        if k > size + 2 * p:
            raise ValueError(
                f"kernel k={k} is larger than the padded image {side} "
                f"{size} + 2*{p} = {size + 2 * p}"
            )
    rows = (h + 2 * p - k) // s + 1
    cols = (w + 2 * p - k) // s + 1
    return rows, cols, rows * cols


def soft_split_boxes(h: int, w: int, k: int, s: int, p: int) -> list[tuple[int, int]]:
    """Where each patch of ``nn.Unfold(k, stride=s, padding=p)`` sits in the padded image.

    Args:
        h: image height (before padding).
        w: image width (before padding).
        k: kernel (patch) size.
        s: stride.
        p: zero padding added on every side.

    Returns:
        One (top, left) pair per patch, in token order (row-major), in pixels of the padded
        (h + 2p) x (w + 2p) image; patch n covers rows top .. top + k - 1 and columns
        left .. left + k - 1.
    """
    rows, cols, _ = count_tokens(h, w, k, s, p)
    return [(r * s, c * s) for r in range(rows) for c in range(cols)]


def overlap_count(
    h: int, w: int, k: int, s: int, p: int, num_patches: int | None = None
) -> torch.Tensor:
    """Count how many patches of ``nn.Unfold(k, stride=s, padding=p)`` contain each pixel.

    It is ``nn.Fold`` applied to tokens of ones: every patch adds 1 to the pixels it covers.
    A pixel with count 0 belongs to no patch (the stride skipped it). With every patch counted,
    the fold separates: pixel (y, x) lies in the patch of grid row r and grid column c exactly
    when row y lies in r's rows and column x in c's columns, so its count is (the patch rows on
    row y) * (the patch columns on column x), the outer product of two folds of ones along one
    side each (k ones instead of k * k per patch).

    Args:
        h: image height (before padding).
        w: image width (before padding).
        k: kernel (patch) size.
        s: stride.
        p: zero padding added on every side.
        num_patches: count only the first this many patches (token order); all when None.

    Returns:
        Float tensor of shape (h, w).
    """
    rows, cols, n = count_tokens(h, w, k, s, p)
    if num_patches is None or num_patches >= n:  # every patch: the count separates
        return torch.outer(_side_count(h, rows, k, s, p), _side_count(w, cols, k, s, p))
    ones = torch.ones(1, k * k, n)  # (1, k*k, N): one channel, N patches of ones
    ones[..., num_patches:] = 0  # count only the first num_patches
    return nn.Fold((h, w), k, stride=s, padding=p)(ones)[0, 0]  # (h, w)


def _side_count(length: int, num: int, k: int, s: int, p: int) -> torch.Tensor:
    """How many of the num windows of size k, stride s on a side padded by p cover each of its
    length pixels: the fold of num windows of ones on a 1 x length image. Shape (length,)."""
    ones = torch.ones(1, k, num)  # (1, 1*k, num): one channel, num windows of ones
    return F.fold(ones, (1, length), (1, k), stride=(1, s), padding=(0, p))[0, 0, 0]  # (length,)


def fold_tokens(tokens: torch.Tensor, h: int, w: int, k: int, s: int, p: int) -> torch.Tensor:
    """Put soft-split tokens back together into images, averaging where patches overlap.

    ``nn.Fold`` with the same k, s, p adds every token back at its place (overlaps summed; it is
    the adjoint of ``nn.Unfold``, not its inverse); dividing by :func:`overlap_count` undoes the
    sum, so ``fold_tokens(nn.Unfold(k, stride=s, padding=p)(x).transpose(1, 2), h, w, k, s, p)``
    is x again, provided every pixel lies in at least one patch.

    Args:
        tokens: shape (B, N, C * k * k), N the number of patches the split makes.
        h: image height.
        w: image width.
        k: kernel (patch) size.
        s: stride.
        p: zero padding added on every side.

    Returns:
        Images of shape (B, C, h, w).
    """
    counts = overlap_count(h, w, k, s, p).to(tokens.dtype)  # (h, w)
    if not counts.all():
        raise ValueError(f"{int((counts == 0).sum())} pixels lie in no patch (k={k}, s={s}, p={p})")
    summed = nn.Fold((h, w), k, stride=s, padding=p)(tokens.transpose(1, 2))  # (B, C, h, w)
    return summed / counts
