"""Exercises of notebook 03: sinusoidal position embeddings as clocks."""

from __future__ import annotations

import math
from functools import cache

import torch

from ..position import (
    clock_frequencies,
    clock_periods,
    sinusoid_encoding,
    sinusoid_encoding_2d,
    toeplitz_error,
)
from . import Exercise, as_int, as_number, short

__all__ = ["EXERCISES"]

_PERIOD_DIM, _PERIOD_BASE = 32, 1000.0
_FAR, _SMALL_DIM = 710, 8  # 710 radians is 113 turns of pair 0, up to 6e-5 radians


def _as_matrix(value: object, shape: tuple[int, ...]) -> torch.Tensor | str:
    """The answer as a float64 tensor of ``shape``, or a hint saying what is wrong with it."""
    try:
        tensor = torch.as_tensor(value, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        return f"expected a tensor (or array) of numbers, got {type(value).__name__}"
    if tuple(tensor.shape) != shape:
        return f"expected shape {shape}, got {tuple(tensor.shape)}"
    return tensor


# --- 03.1: predict the slowest period ---------------------------------------------------------


def _slowest_period() -> float:
    return float(clock_periods(_PERIOD_DIM, _PERIOD_BASE)[-1])


def _grade_period(answer: object) -> str | None:
    value, right = as_number(answer), _slowest_period()
    if value is None:
        return f"expected a number of tokens, got {short(answer)}"
    answer = value
    if math.isclose(answer, right, rel_tol=0.01):
        return None
    if math.isclose(answer, 2 * math.pi * _PERIOD_BASE, rel_tol=0.01):
        return "the pairs are numbered i = 0 .. d/2 - 1: which index does the slowest one have?"
    if math.isclose(answer, right / (2 * math.pi), rel_tol=0.01):
        return "that is 1 / omega, in radians; a whole turn is 2 pi radians"
    return "the period of pair i is 2 pi / omega_i with omega_i = base ** (-2i / d)"


# --- 03.2: sines only ---------------------------------------------------------------------------


def _sines_only_depends_on_offset() -> bool:
    """Build the table with sin in both columns of a pair and test the Toeplitz property."""
    angles = torch.arange(40, dtype=torch.float64)[:, None] * torch.tensor(
        clock_frequencies(16)
    ).repeat_interleave(2)  # (40, 16): both columns of pair i hold the angle pos * omega_i
    table = torch.sin(angles)
    return toeplitz_error(table @ table.T) < 1e-9


def _grade_sines(answer: object) -> str | None:
    if not isinstance(answer, bool):
        return f"expected True or False, got {short(answer)}"
    if answer == _sines_only_depends_on_offset():
        return None
    return (
        "write sin(x) sin(y) as half a difference of two cosines: does it depend on x - y only? "
        "Then test it: vx.toeplitz_error of the table times its transpose"
    )


# --- 03.3: the rotation of one pair -------------------------------------------------------------


def _rotation(k: float, omega: float) -> torch.Tensor:
    phi = k * omega
    return torch.tensor(
        [[math.cos(phi), math.sin(phi)], [-math.sin(phi), math.cos(phi)]], dtype=torch.float64
    )


def _grade_rotation(fn: object) -> str | None:
    if not callable(fn):
        return f"expected a function rotation(k, omega), got {short(fn)}"
    dim, base = 12, 10000.0
    omegas = clock_frequencies(dim, base)
    positions = torch.tensor([0.0, 1.0, 7.0, 33.0, 250.0], dtype=torch.float64)
    for k in (1, 3, -2, 40):
        for i in (0, 2, 5):
            omega = float(omegas[i])
            got = _as_matrix(fn(k, omega), (2, 2))
            if isinstance(got, str):
                return got
            # the definition, position by position: R (sin w p, cos w p) = (sin w(p+k), cos ...)
            before = torch.stack([torch.sin(omega * positions), torch.cos(omega * positions)])
            after = torch.stack(
                [torch.sin(omega * (positions + k)), torch.cos(omega * (positions + k))]
            )
            if not torch.allclose(got @ before, after, atol=1e-6):
                if torch.allclose(got.T @ before, after, atol=1e-6):
                    return "close: your matrix turns the hand the other way round"
                return f"R(k={k}, omega={omega:.3g}) does not move (sin, cos) at p to p + k"
    return None


# --- 03.4: a 2D sin-cos table -------------------------------------------------------------------


def _table_2d(rows: int, cols: int, dim: int) -> torch.Tensor:
    row_table = sinusoid_encoding(rows, dim // 2)  # (rows, dim/2)
    col_table = sinusoid_encoding(cols, dim // 2)  # (cols, dim/2)
    tokens = []
    for r in range(rows):  # row-major: token r * cols + c
        for c in range(cols):
            tokens.append(torch.cat([row_table[r], col_table[c]]))
    return torch.stack(tokens)  # (rows * cols, dim)


def _grade_table_2d(fn: object) -> str | None:
    if not callable(fn):
        return f"expected a function table_2d(rows, cols, dim), got {short(fn)}"
    for rows, cols, dim in ((3, 5, 16), (2, 7, 8), (4, 4, 32), (1, 3, 4)):
        got = _as_matrix(fn(rows, cols, dim), (rows * cols, dim))
        if isinstance(got, str):
            return f"for a {rows} x {cols} grid and d = {dim}: {got}"
        right = sinusoid_encoding_2d((rows, cols), dim).double()
        if torch.allclose(got, right, atol=1e-6):
            continue
        halves = torch.cat([right[:, dim // 2 :], right[:, : dim // 2]], dim=1)
        column_major = right.view(rows, cols, dim).transpose(0, 1).reshape(rows * cols, dim)
        if torch.allclose(got, halves, atol=1e-6):
            return "the halves are swapped: the row's table comes first"
        if torch.allclose(got, column_major, atol=1e-6):
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


def _grade_exponent(answer: object) -> str | None:
    n = as_int(answer)
    if n is None and as_number(answer) is None:
        return f"expected a whole exponent n (an int), got {short(answer)}"
    number, right = as_number(answer), _smallest_exponent()
    if number >= 100 and math.isclose(number, 10.0 ** round(math.log10(number)), rel_tol=1e-9):
        return f"that is the base 10**{round(math.log10(number))}; answer its exponent n"
    if n is None:
        return f"expected a whole exponent n (an int), got {short(answer)}"
    answer = n
    if answer == right:
        return None
    if answer < right:
        return f"with base 10**{answer} a slow pair still tells the positions apart"
    return "a smaller base already makes the two rows agree at 3 decimals"


EXERCISES: list[Exercise] = [
    Exercise(
        id="03.1",
        task=(
            f"Predict before computing: with d = {_PERIOD_DIM} and base {_PERIOD_BASE:g}, after "
            "how many tokens does the slowest clock complete its first turn? Answer a number "
            "(within 1 %)."
        ),
        grade=_grade_period,
        solution=_slowest_period,
        wrong=lambda: 2 * math.pi,
    ),
    Exercise(
        id="03.2",
        task=(
            "Change the table: put sin(omega_i pos) in *both* columns of every pair, instead of a "
            "sine and a cosine. Does the dot product PE(a) . PE(b) still depend only on the "
            "offset b - a? Answer True or False (and check it with vx.toeplitz_error)."
        ),
        grade=_grade_sines,
        solution=_sines_only_depends_on_offset,
        wrong=lambda: not _sines_only_depends_on_offset(),
    ),
    Exercise(
        id="03.3",
        task=(
            "Write rotation(k, omega) that returns the 2 x 2 matrix R (a tensor) with "
            "(sin omega(p + k), cos omega(p + k)) = R @ (sin omega p, cos omega p) for every "
            "position p."
        ),
        grade=_grade_rotation,
        solution=lambda: _rotation,
        wrong=lambda: lambda k, omega: torch.eye(2),
        returns=torch.Tensor,
    ),
    Exercise(
        id="03.4",
        task=(
            "Write table_2d(rows, cols, dim) that returns the (rows * cols, dim) 2D sin-cos table "
            "of a grid: token r * cols + c gets the 1D table of row r in its first dim / 2 "
            "columns and the 1D table of column c in the others (use vx.sinusoid_encoding)."
        ),
        grade=_grade_table_2d,
        solution=lambda: _table_2d,
        wrong=lambda: lambda rows, cols, dim: torch.zeros(rows * cols, dim),
        returns=torch.Tensor,
    ),
    Exercise(
        id="03.5",
        task=(
            f"Positions 0 and {_FAR}: pair 0 turns by {_FAR} radians between them, 113 turns "
            f"and 0.00006 radians, so the fastest hand cannot tell them apart. With d = "
            f"{_SMALL_DIM}, what is the smallest whole n for which base 10**n makes the two rows "
            f"of vx.sinusoid_encoding({_FAR + 1}, {_SMALL_DIM}, base=10.0**n) equal once rounded "
            "to 3 decimals? (The slow hands must then be nearly frozen.)"
        ),
        grade=_grade_exponent,
        solution=_smallest_exponent,
        wrong=lambda: 4,
    ),
]
