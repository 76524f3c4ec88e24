"""Exercises of notebook 03: sinusoidal position embeddings as clocks."""

from __future__ import annotations

import math
from functools import cache

import torch

from .. import position as vx  # the solutions call vx.sinusoid_encoding, as the notebooks do
from ..position import (
    clock_frequencies,
    clock_periods,
    sinusoid_encoding,
    sinusoid_encoding_2d,
    toeplitz_error,
)
from ._rules import ChoiceSpec, Exercise, Rule, ValueSpec, close

__all__ = ["EXERCISES", "PREDICTIONS", "WARMUPS"]

_PERIOD_DIM, _PERIOD_BASE = 32, 1000.0
_FAR, _SMALL_DIM = 710, 8  # 710 radians is 113 turns of pair 0, up to 6e-5 radians


def _matrix(value: torch.Tensor, shape: tuple[int, ...]) -> str | None:
    """A hint when the learner's tensor does not have ``shape``, else None."""
    if tuple(value.shape) != shape:
        return f"expected shape {shape}, got {tuple(value.shape)}"
    return None


# --- 03.1: predict the slowest period ---------------------------------------------------------


def _slowest_period() -> float:
    return float(clock_periods(_PERIOD_DIM, _PERIOD_BASE)[-1])


_SLOWEST = 2 * math.pi * _PERIOD_BASE ** ((_PERIOD_DIM - 2) / _PERIOD_DIM)  # 2 pi / omega_15
_PERIOD = ValueSpec(
    kind="number",
    answer=_SLOWEST,
    expects="a number of tokens",
    rel=0.01,
    rules=(
        Rule(
            "the pairs are numbered i = 0 .. d/2 - 1: which index does the slowest one have?",
            equals=2 * math.pi * _PERIOD_BASE,
            tol=0.01 * 2 * math.pi * _PERIOD_BASE,
        ),
        Rule(
            "that is 1 / omega, in radians; a whole turn is 2 pi radians",
            equals=_SLOWEST / (2 * math.pi),
            tol=0.01 * _SLOWEST / (2 * math.pi),
        ),
    ),
    default="the period of pair i is 2 pi / omega_i with omega_i = base ** (-2i / d)",
)


# --- 03.2: sines only ---------------------------------------------------------------------------


def _sines_only_depends_on_offset() -> bool:
    """Build the table with sin in both columns of a pair and test the Toeplitz property."""
    angles = torch.arange(40, dtype=torch.float64)[:, None] * torch.tensor(
        clock_frequencies(16)
    ).repeat_interleave(2)  # (40, 16): both columns of pair i hold the angle pos * omega_i
    table = torch.sin(angles)
    return toeplitz_error(table @ table.T) < 1e-9


_SINES = ValueSpec(
    kind="bool",
    answer=False,
    expects="True or False",
    default=(
        "write sin(x) sin(y) as half a difference of two cosines: does it depend on x - y "
        "only? Then test it: vx.toeplitz_error of the table times its transpose"
    ),
)


# --- 03.3: the rotation of one pair -------------------------------------------------------------


def _solution_rotation():
    def rotation(k, omega):
        """The 2 x 2 matrix that moves (sin omega p, cos omega p) to position p + k."""
        phi = torch.tensor(k * omega, dtype=torch.float64)  # the angle the hand turns by
        return torch.stack(
            [torch.stack([phi.cos(), phi.sin()]), torch.stack([-phi.sin(), phi.cos()])]
        )  # (2, 2): sin(a + phi) = sin a cos phi + cos a sin phi, cos(a + phi) likewise

    return rotation


def _grade_rotation(fn) -> str | None:
    dim, base = 12, 10000.0
    omegas = clock_frequencies(dim, base)
    positions = torch.tensor([0.0, 1.0, 7.0, 33.0, 250.0], dtype=torch.float64)
    for k in (1, 3, -2, 40):
        for i in (0, 2, 5):
            omega = float(omegas[i])
            got = fn(k, omega)  # a tensor (an array is converted)
            if hint := _matrix(got, (2, 2)):
                return hint
            # the definition, position by position: R (sin w p, cos w p) = (sin w(p+k), cos ...)
            before = torch.stack([torch.sin(omega * positions), torch.cos(omega * positions)])
            after = torch.stack(
                [torch.sin(omega * (positions + k)), torch.cos(omega * (positions + k))]
            )
            if not close(got.double() @ before, after.to(got.dtype)):
                if close(got.double().T @ before, after.to(got.dtype)):
                    return "close: your matrix turns the hand the other way round"
                return f"R(k={k}, omega={omega:.3g}) does not move (sin, cos) at p to p + k"
    return None


# --- 03.4: a 2D sin-cos table -------------------------------------------------------------------


def _solution_table_2d():
    def table_2d(rows, cols, dim):
        """(rows * cols, dim): the 1D table of row r, then of column c, for token r * cols + c."""
        row_table = vx.sinusoid_encoding(rows, dim // 2)  # (rows, dim/2)
        col_table = vx.sinusoid_encoding(cols, dim // 2)  # (cols, dim/2)
        tokens = []
        for r in range(rows):  # row-major: token r * cols + c
            for c in range(cols):
                tokens.append(torch.cat([row_table[r], col_table[c]]))
        return torch.stack(tokens)  # (rows * cols, dim)

    return table_2d


def _grade_table_2d(fn) -> str | None:
    for rows, cols, dim in ((3, 5, 16), (2, 7, 8), (4, 4, 32), (1, 3, 4)):
        got = fn(rows, cols, dim)  # a tensor (an array is converted)
        if hint := _matrix(got, (rows * cols, dim)):
            return f"for a {rows} x {cols} grid and d = {dim}: {hint}"
        right = sinusoid_encoding_2d((rows, cols), dim).double()
        if close(got, right.to(got.dtype)):
            continue
        halves = torch.cat([right[:, dim // 2 :], right[:, : dim // 2]], dim=1)
        column_major = right.view(rows, cols, dim).transpose(0, 1).reshape(rows * cols, dim)
        if close(got, halves.to(got.dtype)):
            return "the halves are swapped: the row's table comes first"
        if close(got, column_major.to(got.dtype)):
            return "the tokens are in column-major order; a ViT reads row by row"
        return f"wrong values for a {rows} x {cols} grid with d = {dim}"
    return None


# --- 03.5: how large a base makes two positions look the same ------------------------------------


@cache
def _smallest_exponent() -> int:
    for n in range(1, 60):
        table = sinusoid_encoding(_FAR + 1, _SMALL_DIM, base=10.0**n)  # (711, 8)
        if torch.equal(torch.round(table[0], decimals=3), torch.round(table[_FAR], decimals=3)):
            return n
    raise RuntimeError("no base up to 10**59 makes the two rows agree")


_EXPONENT = ValueSpec(
    kind="int",
    answer=25,
    expects="a whole exponent n (an int)",
    rules=(
        Rule("that looks like the base 10**n itself; answer its exponent n", low=100),
        Rule("with base 10**{answer} a slow pair still tells the positions apart", high=24),
    ),
    default="a smaller base already makes the two rows agree at 3 decimals",
)


EXERCISES: list[Exercise] = [
    Exercise(
        id="03.1",
        grade=_PERIOD,
        solution=_slowest_period,
        wrong=lambda: 2 * math.pi,
        why=(
            "The slowest pair is the last, i = d/2 - 1 = 15, with omega = 1000 ** (-30/32); "
            "its period 2 pi / omega = 2 pi * 1000 ** (30/32) is about 4080 tokens."
        ),
    ),
    Exercise(
        id="03.2",
        grade=_SINES,
        solution=_sines_only_depends_on_offset,
        wrong=lambda: True,
        why=(
            "sin(a w) sin(b w) = (cos((a - b) w) - cos((a + b) w)) / 2: the second term depends "
            "on a + b, so the dot product is no longer a function of the offset alone. It is "
            "the cosine column that cancels that term."
        ),
    ),
    Exercise(
        id="03.3",
        grade=_grade_rotation,
        solution=_solution_rotation,
        wrong=lambda: lambda k, omega: torch.eye(2),
        why=(
            "With phi = k omega, sin(a + phi) = cos(phi) sin a + sin(phi) cos a and "
            "cos(a + phi) = -sin(phi) sin a + cos(phi) cos a: the rows of R. It depends on the "
            "offset k, not on the position p."
        ),
        asks="rotation(k, omega)",
        returns=torch.Tensor,
    ),
    Exercise(
        id="03.4",
        grade=_grade_table_2d,
        solution=_solution_table_2d,
        wrong=lambda: lambda rows, cols, dim: torch.zeros(rows * cols, dim),
        why=(
            "Two 1D tables of dim / 2 columns, one over the rows and one over the columns; "
            "token r * cols + c is row r's vector followed by column c's."
        ),
        asks="table_2d(rows, cols, dim)",
        returns=torch.Tensor,
    ),
    Exercise(
        id="03.5",
        grade=_EXPONENT,
        solution=_smallest_exponent,
        wrong=lambda: 4,
        why=(
            "Try n = 1, 2, ... and compare the two rows rounded to 3 decimals: the slow pairs "
            "turn by 710 * base ** (-2i / d) radians, which is below 0.0005 for every pair "
            "but the fastest only from base 10**25 on."
        ),
    ),
]


# --- warm-ups: notebook 02 -------------------------------------------------------------------


def _logit_scale_64() -> float:
    """The factor attention multiplies q . k by, for d = 64: the ratio of its logits to q k^T."""
    q = torch.eye(64, dtype=torch.float64)[:1]  # (1, 64)
    k = torch.cat([q, 0 * q])  # (2, 64): logits q . k = 1 and 0 before the scale
    weights = torch.nn.functional.scaled_dot_product_attention(q, k, torch.eye(2).double())
    # softmax over the scaled logits (s, 0) gives the first key e^s / (e^s + 1): solve for s
    first = float(weights[0, 0])
    return math.log(first / (1 - first))


def _equivariant() -> bool:
    """Attention without position: scrambling the tokens only reorders the output rows."""
    generator = torch.Generator().manual_seed(3)
    x = torch.randn(6, 8, generator=generator, dtype=torch.float64)  # (N, d)
    order = torch.randperm(6, generator=generator)
    attend = torch.nn.functional.scaled_dot_product_attention
    return torch.allclose(attend(x[order], x[order], x[order]), attend(x, x, x)[order])


WARMUPS: list[Exercise] = [
    Exercise(
        id="03.w1",
        grade=ValueSpec(
            kind="number",
            answer=_logit_scale_64(),
            expects="a number",
            tol=1e-3,
            rules=(Rule("that is sqrt(64): the logits are divided by it", equals=8.0, tol=1e-3),),
            default="the logits are q . k / sqrt(d): multiplied by 1 / sqrt(64).",
        ),
        solution=_logit_scale_64,
        wrong=lambda: 8.0,
        why="Attention divides q . k by sqrt(d): for d = 64 it multiplies by 1 / 8 = 0.125.",
    ),
    Exercise(
        id="03.w2",
        grade=ValueSpec(
            kind="bool",
            answer=_equivariant(),
            expects="True or False",
            default="permuting the tokens permutes the logits' rows and columns, and softmax "
            "acts row by row: what happens to the output rows?",
        ),
        solution=_equivariant,
        wrong=lambda: False,
        why=(
            "True: Attention(PX) = P Attention(X). Each output row moves with its token and keeps "
            "its value, which is why attention alone cannot tell where a patch sits."
        ),
    ),
]


# --- predictions -----------------------------------------------------------------------------


@cache
def _still_pairs() -> int:
    """Pairs of the 176 x 768 table whose sine stays within +-0.1 and cosine above 0.99."""
    table = sinusoid_encoding(176, 768)  # (176, 768)
    sine_still = table[:, 0::2].abs().amax(0) < 0.1  # (384,)
    cosine_still = table[:, 1::2].amin(0) > 0.99
    return int((sine_still & cosine_still).sum())


def _closest_to_position_0() -> str:
    """Which of positions 1 ... 100,000 of an 18-dimensional table is closest to position 0:
    "a" its neighbour 1; "b" about one turn of the slowest clock; "c" one equal to it."""
    far = sinusoid_encoding(100_001, 18)  # (100001, 18)
    distance = torch.linalg.norm(far[1:] - far[0], dim=1)  # (100000,)
    nearest = int(distance.argmin()) + 1
    if float(distance.min()) < 1e-6:
        return "c"
    slowest = float(clock_periods(18)[-1])
    return "a" if nearest == 1 else "b" if abs(nearest - slowest) < slowest / 10 else "d"


def _least_like_patch_5() -> int:
    """Under a 1D table in raster order (15 x 400), the patch least similar to patch 5."""
    similarity = vx.embedding_similarity(sinusoid_encoding(15, 400))[4]  # (15,)
    return int(similarity.argmin()) + 1  # 1-based


PREDICTIONS: list[Exercise] = [
    Exercise(
        id="03.p1",
        grade=ValueSpec(
            kind="number",
            answer=_still_pairs(),
            expects="a number (a count of pairs)",
            tol=40,
            rules=(
                Rule(
                    "the periods grow geometrically, from 6 tokens to 60,000: every pair "
                    "from the last fifth or so turns by only a few degrees over 176 positions.",
                    low=0,
                    high=30,
                ),
                Rule(
                    "fewer: pair 192, halfway, still turns by about 100 degrees over the 176 "
                    "positions.",
                    low=150,
                ),
            ),
            default="the periods grow by a constant factor from pair to pair: find the first "
            "pair whose period is tens of thousands of tokens.",
        ),
        solution=_still_pairs,
        wrong=lambda: 5,
        why=(
            "A common guess is a handful; but the periods grow geometrically, so the last 72 "
            "pairs (from pair 312 on, periods above 11,000 tokens) barely move over 176 positions."
        ),
    ),
    Exercise(
        id="03.p2",
        grade=ChoiceSpec(
            answer="a",
            options=(
                "position 1, its neighbour",
                "a position about one turn of the slowest clock later, near 22,581",
                "a position equal to position 0, where all the clocks are back together",
            ),
            rules=(
                Rule(
                    "there the slowest hand is back, but the fast hands are anywhere on their "
                    "dials; position 1 differs from 0 only in a few fast hands.",
                    equals="b",
                ),
                Rule(
                    "the periods' ratios are irrational: the hands never come back together.",
                    equals="c",
                ),
            ),
            default="which position differs from 0 least, summed over all nine hands?",
        ),
        solution=_closest_to_position_0,
        wrong=lambda: "b",
        why=(
            "Many expect the slowest clock's turn, about 22,581; but then the fast hands stand "
            "anywhere, while position 1 moves only a few fast hands: it stays the closest."
        ),
    ),
    Exercise(
        id="03.p3",
        grade=ValueSpec(
            kind="int",
            answer=_least_like_patch_5(),
            expects="an int (a patch number, 1 to 15)",
            rules=(
                Rule(
                    "on the picture patch 11 is the farthest from patch 5; the 1D table knows "
                    "only the raster order, where patch 11 is 6 positions away and patch 15 ten.",
                    equals=11,
                ),
            ),
            default="the 1D table compares positions in raster order, 0 to 14: which is "
            "farthest from position 4?",
        ),
        solution=_least_like_patch_5,
        wrong=lambda: 11,
        why=(
            "The common guess is patch 11, the farthest on the grid; the 1D table only sees the "
            "raster order, where patch 15, ten positions on, is the farthest from patch 5."
        ),
    ),
]
