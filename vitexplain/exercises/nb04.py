"""Exercises of notebook 04: offsets, the skew, and what translation equivariance promises."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from ..relative_position import RelPosEmb1D, grid_offsets, relative_to_absolute
from . import Exercise, as_int, close, short


def _int_hint(answer: Any, expected: int, hints: dict[int, str], default: str) -> str | None:
    """None if ``answer`` is the int ``expected``, else a hint: for a known slip if listed,
    else ``default``, about the exercise's own idea."""
    value = as_int(answer)
    if value is None:
        return f"expected an int, got {short(answer)}"
    if value == expected:
        return None
    return hints.get(value, default)


# 04.1 -- predict: entries of S that the skew never reads


def _unread_entries(length: int = 6) -> int:
    codes = torch.arange(length * (2 * length - 1)).reshape(length, 2 * length - 1)  # (L, 2L-1)
    read = relative_to_absolute(codes).unique().numel()  # distinct entries that reach the (L, L)
    return codes.numel() - read


def _grade_unread(answer: Any) -> str | None:
    return _int_hint(
        answer,
        _unread_entries(),
        {66: "that is all of S; the skew does read some of its entries."},
        "the skew reads one entry of S per (query, key) pair; draw L = 2 or 3 and count",
    )


# 04.2 -- predict: distinct 2D offsets on a 5 x 3 grid


def _distinct_offsets(grid: tuple[int, int] = (5, 3)) -> int:
    pairs = set()
    for index in range(grid[0] * grid[1]):  # every query token
        rows, cols = grid_offsets(grid, index)  # (H, W) each
        pairs.update(zip(rows.flatten().tolist(), cols.flatten().tolist(), strict=True))
    return len(pairs)


def _grade_distinct_offsets(answer: Any) -> str | None:
    return _int_hint(
        answer,
        _distinct_offsets(),
        {
            225: "225 counts query-key pairs; many pairs share the same (row, column) offset.",
            29: "29 is the count for 15 tokens in one row; a 2D offset has a row and a column.",
            14: "14 is the number of table vectors (rows plus columns); a pair uses one of each.",
            15: "15 is the number of tokens, not of offsets.",
        },
        "a 2D offset is a pair (row offset, column offset): how many values can each part "
        "take on 5 rows and on 3 columns, and can every combination occur?",
    )


# 04.3 -- change and explain: which logits survive a shift of the content


def _unchanged_after_shift(length: int = 8, shift: int = 3) -> int:
    generator = torch.Generator().manual_seed(0)
    emb = RelPosEmb1D(length, 4)
    q = torch.randn(length, 4, generator=generator)
    moved = torch.cat([torch.randn(shift, 4, generator=generator), q[: length - shift]])
    before, after = emb(q).detach(), emb(moved).detach()  # (L, L) each
    same = torch.zeros(length, length, dtype=torch.bool)
    same[shift:, shift:] = torch.isclose(
        after[shift:, shift:], before[: length - shift, : length - shift]
    )
    return int(same.sum())


def _grade_unchanged(answer: Any) -> str | None:
    return _int_hint(
        answer,
        _unchanged_after_shift(),
        {
            64: "64 is every pair; pairs that involve a new token have nothing to compare with.",
            5: "a logit belongs to a (query, key) pair, and both tokens must survive the shift.",
            55: "the new tokens enter as queries and as keys: drop both their rows and columns.",
        },
        "a relative-position logit depends on the query vector and on the offset to its key: "
        "for which (query, key) pairs are both the same as before the shift?",
    )


# 04.4 -- use the idea: which rows of attention weights survive the shift


def _rows_unchanged_after_shift() -> int:
    length, shift, d = 8, 3, 4
    generator = torch.Generator().manual_seed(1)
    emb = RelPosEmb1D(length, d)
    x = torch.randn(length, d, generator=generator)
    moved = torch.cat([torch.randn(shift, d, generator=generator), x[: length - shift]])
    before, after = (emb(s).detach().softmax(-1) for s in (x, moved))  # (L, L) each
    keep = length - shift
    same_rows = [
        torch.allclose(after[shift + i, shift:], before[i, :keep], atol=1e-6) for i in range(keep)
    ]
    return sum(same_rows)


def _grade_rows_unchanged(answer: Any) -> str | None:
    return _int_hint(
        answer,
        _rows_unchanged_after_shift(),
        {
            5: "the logits of those rows survive, but a softmax row is normalised over all 8 keys",
            8: "the three new queries have nothing to compare with",
        },
        "a row of weights is the softmax of all 8 logits of its query: does any surviving "
        "query have all 8 logits unchanged?",
    )


# 04.5 -- write a function: the causal skew of Huang et al. (2018)


def _causal_by_loop(x: torch.Tensor) -> torch.Tensor:
    """out[..., i, j] = x[..., i, j - i + L - 1] for j <= i, zero above the diagonal."""
    length = x.shape[-2]
    out = torch.zeros_like(x)
    for i in range(length):
        for j in range(i + 1):
            out[..., i, j] = x[..., i, j - i + length - 1]
    return out


def _causal_skew(x: torch.Tensor) -> torch.Tensor:
    *lead, length, _ = x.shape
    padded = F.pad(x, (1, 0))  # (..., L, L + 1): one zero column on the left
    return padded.reshape(*lead, length + 1, length)[..., 1:, :]  # drop the first row: (..., L, L)


def _grade_causal(fn: Any) -> str | None:
    if not callable(fn):
        return f"expected a function causal_skew(x), got {short(fn)}"
    generator = torch.Generator().manual_seed(2)
    for length, lead in ((1, ()), (2, ()), (3, ()), (5, (2,)), (8, (2, 3))):
        x = torch.randn(*lead, length, length, generator=generator)
        out = fn(x)  # a tensor (an array is converted)
        if tuple(out.shape) != tuple(x.shape):
            return (
                f"for x of shape {tuple(x.shape)} expected a tensor of that shape, "
                f"got {tuple(out.shape)}"
            )
        lower = torch.ones(length, length, dtype=torch.bool).tril()  # graded: j <= i
        if not close(out[..., lower], _causal_by_loop(x)[..., lower]):
            return (
                f"wrong entries on or below the diagonal for L = {length}; on the diagonal "
                "query i should read offset 0, the last column of x."
            )
    return None


def _identity() -> Callable[[torch.Tensor], torch.Tensor]:
    return lambda x: x


EXERCISES: list[Exercise] = [
    Exercise(
        id="04.1",
        task=(
            "Predict before computing: for L = 6 tokens, S = Q R^T has L (2L - 1) entries, and the "
            "skew turns it into the (L, L) logits. How many entries of S never reach the (L, L) "
            "logits? Answer with an int."
        ),
        grade=_grade_unread,
        solution=_unread_entries,
        wrong=lambda: 66,
    ),
    Exercise(
        id="04.2",
        task=(
            "Predict: on a grid of H = 5 rows and W = 3 columns (15 tokens), how many distinct "
            "(row offset, column offset) pairs occur among all 15 x 15 query-key pairs? Each "
            "distinct pair is a distinct position term of RelPosEmb2D for a given query vector. "
            "Answer with an int."
        ),
        grade=_grade_distinct_offsets,
        solution=_distinct_offsets,
        wrong=lambda: 225,
    ),
    Exercise(
        id="04.3",
        task=(
            "Change and explain: a sequence of L = 8 queries is shifted right by t = 3 places "
            "(3 new tokens enter at the left, the last 3 fall off). On how many of the 8 x 8 "
            "(query, key) pairs of the shifted sequence are the relative position logits sure to "
            "equal those of the same pair of tokens before the shift? Answer with an int."
        ),
        grade=_grade_unchanged,
        solution=_unchanged_after_shift,
        wrong=lambda: 64,
    ),
    Exercise(
        id="04.4",
        task=(
            "Use the idea: same shift, now through the softmax (each row of logits normalised "
            "over all 8 keys). For how many of the 5 surviving queries are the attention weights "
            "on the 5 surviving keys sure to be the same as before the shift? Answer with an int."
        ),
        grade=_grade_rows_unchanged,
        solution=_rows_unchanged_after_shift,
        wrong=lambda: 5,
    ),
    Exercise(
        id="04.5",
        task=(
            "Write the causal skew of Huang et al. (2018). x has shape (..., L, L), column m "
            "holding offset m - (L - 1), so offsets -(L - 1) .. 0. Pad one zero column on the "
            "left, reshape to (..., L + 1, L), drop the first row. Return the (..., L, L) tensor "
            "with out[..., i, j] = x[..., i, j - i + L - 1] for j <= i; entries above the "
            "diagonal are masked by causal attention and are not graded."
        ),
        grade=_grade_causal,
        solution=lambda: _causal_skew,
        wrong=_identity,
        returns=torch.Tensor,
    ),
]
