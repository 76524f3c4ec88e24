"""Exercises of notebook 04: offsets, the skew, and what translation equivariance promises."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..errata import articles_rel_pos_2d
from ..position import clock_periods, sinusoid_encoding, toeplitz_error
from ..relative_position import (
    RelPosEmb1D,
    RelPosEmb2D,
    grid_offsets,
    relative_index,
    relative_to_absolute,
)
from ._rules import Exercise, Rule, ValueSpec, close


def _int_spec(answer: int, slips: dict[int, str], default: str) -> ValueSpec:
    """An int answer with a hint for each known slip, else ``default``."""
    rules = tuple(Rule(hint, equals=value) for value, hint in slips.items())
    return ValueSpec(kind="int", answer=answer, expects="an int", rules=rules, default=default)


# 04.1 -- predict: entries of S that the skew never reads


def _unread_entries(length: int = 6) -> int:
    codes = torch.arange(length * (2 * length - 1)).reshape(length, 2 * length - 1)  # (L, 2L-1)
    read = relative_to_absolute(codes).unique().numel()  # distinct entries that reach the (L, L)
    return codes.numel() - read


_UNREAD = _int_spec(
    6 * (2 * 6 - 1) - 6 * 6,
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


_DISTINCT_OFFSETS = _int_spec(
    (2 * 5 - 1) * (2 * 3 - 1),
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


_UNCHANGED = _int_spec(
    (8 - 3) ** 2,
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


_ROWS_UNCHANGED = _int_spec(
    0,
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


def _solution_causal_skew():
    def causal_skew(x):
        """(..., L, L) offsets -(L - 1) .. 0 -> (..., L, L): out[i, j] = x[i, j - i + L - 1]."""
        *lead, length, _ = x.shape
        padded = torch.nn.functional.pad(x, (1, 0))  # (..., L, L + 1): a zero column on the left
        return padded.reshape(*lead, length + 1, length)[..., 1:, :]  # drop row 0: (..., L, L)

    return causal_skew


def _grade_causal(fn) -> str | None:
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
        grade=_UNREAD,
        solution=_unread_entries,
        wrong=lambda: 66,
        why=(
            "The skew reads one entry of S for each of the L * L = 36 (query, key) pairs, each "
            "a different one; S has L (2L - 1) = 66 entries, so 66 - 36 = 30 are never read."
        ),
    ),
    Exercise(
        id="04.2",
        grade=_DISTINCT_OFFSETS,
        solution=_distinct_offsets,
        wrong=lambda: 225,
        why=(
            "A row offset takes 2 * 5 - 1 = 9 values (-4 .. 4), a column offset 2 * 3 - 1 = 5 "
            "(-2 .. 2), and every combination occurs on the grid: 9 * 5 = 45."
        ),
    ),
    Exercise(
        id="04.3",
        grade=_UNCHANGED,
        solution=_unchanged_after_shift,
        wrong=lambda: 64,
        why=(
            "A relative logit depends on the query and on the offset to the key. The pairs of "
            "the 5 tokens that survive keep both, so their 5 * 5 = 25 logits are unchanged; "
            "any pair with one of the 3 new tokens has nothing to compare with."
        ),
    ),
    Exercise(
        id="04.4",
        grade=_ROWS_UNCHANGED,
        solution=_rows_unchanged_after_shift,
        wrong=lambda: 5,
        why=(
            "Each surviving query's softmax also runs over the 3 new keys, whose logits are "
            "new: the normalising sum changes, so no row of weights is sure to stay the same."
        ),
    ),
    Exercise(
        id="04.5",
        grade=_grade_causal,
        solution=_solution_causal_skew,
        wrong=_identity,
        why=(
            "After padding, row i of the (L + 1, L) view starts L - 1 - i places later in the "
            "flat buffer, which shifts each query's offsets into place; the first row is "
            "padding. No copy beyond the pad, no loop."
        ),
        asks="causal_skew(x)",
        returns=torch.Tensor,
    ),
]


# --- warm-ups: notebook 03 -------------------------------------------------------------------


def _fastest_period() -> float:
    """The period, in tokens, of pair 0 of a sinusoidal table (any length, any base)."""
    return float(clock_periods(768)[0])


def _offset_only() -> bool:
    """Whether PE(a) . PE(b) of the sinusoidal table depends only on b - a (Toeplitz)."""
    table = sinusoid_encoding(64, 32).double()  # (64, 32)
    return toeplitz_error(table @ table.T) < 1e-4  # float32 entries


WARMUPS: list[Exercise] = [
    Exercise(
        id="04.w1",
        grade=ValueSpec(
            kind="number",
            answer=_fastest_period(),
            expects="a number of tokens",
            tol=0.05,
            rules=(
                Rule(
                    "pair 0 turns by 1 radian per token; a whole turn is 2 pi radians",
                    equals=1.0,
                    tol=1e-9,
                ),
            ),
            default="pair 0 has omega = base^0 = 1 radian per token: how many tokens per turn?",
        ),
        solution=_fastest_period,
        wrong=lambda: 1.0,
        why="Pair 0 turns by omega_0 = 1 radian per token, so one turn takes 2 pi = 6.28 tokens.",
    ),
    Exercise(
        id="04.w2",
        grade=ValueSpec(
            kind="bool",
            answer=_offset_only(),
            expects="True or False",
            default="PE(a) . PE(b) is a sum of cos(omega_i (b - a)): what does it depend on?",
        ),
        solution=_offset_only,
        wrong=lambda: False,
        why=(
            "True: PE(a) . PE(b) = sum of cos(omega_i (b - a)), a shift being a rotation, so the "
            "matrix of dot products is constant along each diagonal."
        ),
    ),
]


# --- predictions -----------------------------------------------------------------------------


def _skew_copies() -> bool:
    """Whether relative_to_absolute copies the numbers of S (it returns a view of them)."""
    s = torch.arange(15.0).reshape(3, 5)  # (L, 2L - 1)
    return relative_to_absolute(s).untyped_storage().data_ptr() != s.untyped_storage().data_ptr()


def _memory_ratio(length: int = 1024, dim: int = 64) -> float:
    """Numbers of Shaw et al.'s pairwise vectors, (L, L, d), over the table (2L - 1, d) and S,
    (L, 2L - 1), of the skew route: counted from the shapes the package makes."""
    # On the CPU, not the meta device: meta kernels import torch._dynamo (seconds at every
    # `import vitexplain`). The table's random start leaves the caller's random stream alone.
    with torch.random.fork_rng(devices=[]):
        table = RelPosEmb1D(length, dim).rel_pos_emb  # (2L - 1, d)
    pairwise = relative_index(length).numel() * dim  # one vector r_(j-i) per pair
    return pairwise / (table.numel() + length * table.shape[0])


def _articles_share_off() -> float:
    """Share of the articles' 2D logits off the definition by more than 1e-4, on 4 x 4."""
    torch.manual_seed(0)
    square = RelPosEmb2D(4, 8)
    q = torch.randn(1, 1, 16, 8)
    theirs = articles_rel_pos_2d(q, 4, square.emb_h.rel_pos_emb, square.emb_w.rel_pos_emb)
    return float(((theirs - square(q)).abs() > 1e-4).double().mean())


PREDICTIONS: list[Exercise] = [
    Exercise(
        id="04.p1",
        grade=ValueSpec(
            kind="bool",
            answer=_skew_copies(),
            expects="True or False",
            rules=(
                Rule(
                    "the pads and the reshape of Figure 4.2 would build new arrays; the result "
                    "is only S read with other steps, a view: nothing is copied.",
                    equals=True,
                ),
            ),
            default="the skew reads S from position L - 1 with a row step of 2L - 2.",
        ),
        solution=_skew_copies,
        wrong=lambda: True,
        why=(
            "Many expect a copy, as the pads and reshape of Figure 4.2 make new arrays; but the "
            "result is S itself read with a row step of 2L - 2, a view: nothing is copied."
        ),
    ),
    Exercise(
        id="04.p2",
        grade=ValueSpec(
            kind="number",
            answer=_memory_ratio(),
            expects="a number (a ratio)",
            rel=0.3,
            rules=(
                Rule(
                    "the table alone is small, but S holds L (2L - 1) numbers per head too: "
                    "the ratio is about L d / 2L = d / 2.",
                    low=300,
                ),
                Rule(
                    "S holds about 2 L² numbers, not L²: the ratio is about L² d / 2 L² = d / 2.",
                    low=50,
                    high=80,
                ),
            ),
            default="compare L² d with (2L - 1) d + L (2L - 1) ≈ 2 L²: about d / 2.",
        ),
        solution=_memory_ratio,
        wrong=lambda: 1024.0,
        why=(
            "A common guess is about L = 1024, counting the table alone; but S holds about 2 L² "
            "numbers too, so the ratio is about L² d / 2 L² = d / 2: 30 for d = 64."
        ),
    ),
    Exercise(
        id="04.p3",
        grade=ValueSpec(
            kind="number",
            answer=_articles_share_off(),
            expects="a share between 0 and 1 (or a percentage)",
            tol=0.1,
            percent=True,
            rules=(
                Rule(
                    "more: the key's row never enters, so the four keys of a column get one "
                    "logit, right for at most one of them.",
                    high=0.5,
                ),
            ),
            default="the key's row never enters: on average 1 key in 16 comes out right.",
        ),
        solution=_articles_share_off,
        wrong=lambda: 0.1,
        why=(
            "A common guess is a small share, as if a few cells were swapped; but the key's row "
            "never enters the articles' logits, so about 15 in 16 of them are off."
        ),
    ),
]
