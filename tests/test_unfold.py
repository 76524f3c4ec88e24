"""vitexplain.unfold: token counts, soft-split boxes, overlap counts and folding back."""

import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from vitexplain import (
    count_tokens,
    fold_tokens,
    overlap_count,
    soft_split,
    soft_split_boxes,
)


@pytest.mark.parametrize(
    "h, w, k, s, p",
    [
        (60, 100, 20, 10, 5),
        (60, 100, 20, 20, 0),
        (400, 100, 7, 4, 2),
        (100, 25, 3, 2, 1),
        (50, 13, 3, 2, 1),
        (9, 7, 4, 3, 0),
        (5, 5, 5, 1, 0),
        (1, 1, 3, 1, 1),
    ],
)
def test_count_tokens_matches_unfold(h, w, k, s, p):
    rows, cols, total = count_tokens(h, w, k, s, p)
    unfolded = nn.Unfold(k, stride=s, padding=p)(torch.zeros(1, 1, h, w))
    assert total == rows * cols == unfolded.shape[-1]
    # rows and cols separately: unfold a single-row / single-column image of the same size
    column_unfold = nn.Unfold((k, 1), stride=(s, 1), padding=(p, 0))
    row_unfold = nn.Unfold((1, k), stride=(1, s), padding=(0, p))
    assert rows == column_unfold(torch.zeros(1, 1, h, 1)).shape[-1]
    assert cols == row_unfold(torch.zeros(1, 1, 1, w)).shape[-1]
    assert all(isinstance(v, int) for v in (rows, cols, total))


@pytest.mark.parametrize(
    "args, side",
    [
        ((60, 100, 200, 10, 5), "height 60 + 2*5 = 70"),
        ((100, 10, 30, 10, 5), "width 10 + 2*5 = 20"),
        ((5, 9, 8, 1, 1), "height 5 + 2*1 = 7"),  # one pixel too large
    ],
)
def test_count_tokens_refuses_a_kernel_larger_than_the_padded_image(args, side):
    # Explore's soft split (docs/_js/explore.js) shows this message word for word
    match = f"kernel k={args[2]} is larger than the padded image {side}"
    with pytest.raises(ValueError, match=re.escape(match)):
        count_tokens(*args)


# --- the soft split of notebook 05: where its patches sit, how they fold back ---

SPLITS = [(20, 10, 5), (7, 4, 2), (3, 2, 1), (5, 3, 0), (4, 6, 1)]  # (k, s, p); s > k skips pixels


@pytest.mark.parametrize(("k", "s", "p"), SPLITS)
def test_soft_split_boxes_are_where_unfold_cuts(k, s, p):
    x = torch.rand(1, 1, 23, 31)
    tokens = nn.Unfold(k, stride=s, padding=p)(x).transpose(1, 2)[0]  # (N, k*k)
    padded = F.pad(x, (p, p, p, p))[0, 0]
    boxes = soft_split_boxes(23, 31, k, s, p)
    assert len(boxes) == tokens.shape[0] == count_tokens(23, 31, k, s, p)[2]
    for n, (top, left) in enumerate(boxes):
        assert torch.equal(tokens[n], padded[top : top + k, left : left + k].reshape(k * k))


def _brute_force_count(h: int, w: int, k: int, s: int, p: int) -> np.ndarray:
    """Add 1 under every patch of the padded picture, patch by patch; (h, w) of the picture."""
    counts = np.zeros((h + 2 * p, w + 2 * p), dtype=int)
    rows, cols, _ = count_tokens(h, w, k, s, p)
    for r in range(rows):
        for c in range(cols):
            counts[r * s : r * s + k, c * s : c * s + k] += 1
    return counts[p : p + h, p : p + w]


@pytest.mark.parametrize(("h", "w"), [(9, 14), (13, 5)])
def test_overlap_count_separated_equals_the_2d_fold_and_a_brute_force_count(h, w):
    """The separated count (two folds along one side, multiplied) equals the whole-picture
    nn.Fold of tokens of ones and a patch-by-patch count on every valid split of two pictures:
    kernels 1 to 15, strides 1 to 15, paddings 0 to 4 (gaps, overlaps, kernels as large as the
    padded picture)."""
    checked = 0
    for k in range(1, 16):
        for s in range(1, 16):
            for p in range(5):
                if k > min(h, w) + 2 * p:
                    continue  # refused: the kernel does not fit (test_count_tokens_rejects...)
                got = overlap_count(h, w, k, s, p)
                n = count_tokens(h, w, k, s, p)[2]
                fold = nn.Fold((h, w), k, stride=s, padding=p)(torch.ones(1, k * k, n))[0, 0]
                assert got.dtype == fold.dtype and torch.equal(got, fold), (k, s, p)
                assert np.array_equal(got.numpy(), _brute_force_count(h, w, k, s, p)), (k, s, p)
                checked += 1
    assert checked >= 675  # of the 1,125 (k, s, p): those whose kernel fits


@pytest.mark.parametrize(("k", "s", "p"), SPLITS)
def test_overlap_count_of_the_first_patches_is_a_brute_force_count(k, s, p):
    h, w = 23, 31
    boxes = soft_split_boxes(h, w, k, s, p)
    for first in (0, 1, len(boxes) // 2):
        counts = np.zeros((h + 2 * p, w + 2 * p), dtype=int)
        for top, left in boxes[:first]:
            counts[top : top + k, left : left + k] += 1
        got = overlap_count(h, w, k, s, p, num_patches=first).numpy()
        assert np.array_equal(got, counts[p : p + h, p : p + w])


@pytest.mark.parametrize(("k", "s", "p"), SPLITS)
def test_fold_is_the_adjoint_of_unfold(k, s, p):
    x = torch.randn(2, 3, 23, 31, dtype=torch.float64)
    unfold, fold = nn.Unfold(k, stride=s, padding=p), nn.Fold((23, 31), k, stride=s, padding=p)
    y = torch.randn_like(unfold(x))  # (B, C*k*k, N)
    # <Ux, y> == <x, U^T y>
    assert torch.allclose((unfold(x) * y).sum(), (x * fold(y)).sum(), atol=1e-9)


def test_overlap_count_of_the_mountain_split():
    counts = overlap_count(60, 100, 20, 10, 5)
    assert counts.shape == (60, 100)
    assert counts[0, 0] == 1 and counts[0, 50] == 2 and counts[30, 50] == 4  # corner, edge, inside
    assert sorted(torch.unique(counts).tolist()) == [1, 2, 4]


def test_fold_tokens_inverts_the_soft_split(mountain):
    tokens = soft_split(20)(mountain).transpose(1, 2)  # (1, 60, 400)
    assert torch.equal(fold_tokens(tokens, 60, 100, 20, 10, 5), mountain)  # exactly
    x = torch.rand(2, 3, 23, 31)
    for k, s, p in SPLITS[:3]:  # these cover every pixel
        tokens = nn.Unfold(k, stride=s, padding=p)(x).transpose(1, 2)  # (2, N, 3*k*k)
        assert torch.allclose(fold_tokens(tokens, 23, 31, k, s, p), x, atol=1e-6)


def test_fold_tokens_refuses_pixels_that_no_patch_covers():
    x = torch.rand(1, 1, 23, 31)
    tokens = nn.Unfold(4, stride=6, padding=1)(x).transpose(1, 2)
    uncovered = int((_brute_force_count(23, 31, 4, 6, 1) == 0).sum())
    with pytest.raises(ValueError, match=f"^{uncovered} pixels lie in no patch"):
        fold_tokens(tokens, 23, 31, 4, 6, 1)
