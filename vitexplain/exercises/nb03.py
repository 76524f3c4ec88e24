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
from ._rules import Exercise, Rule, ValueSpec, close

__all__ = ["EXERCISES"]

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
