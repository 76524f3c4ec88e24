"""Exercises of notebook 01: patch tokenization."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from einops import rearrange

from ..data import load_mountains
from ..patches import patchify
from . import Exercise, as_int, close, short

__all__ = ["EXERCISES"]


def _int_pair(answer: Any, what: str) -> str | None:
    """A hint when ``answer`` is not a pair of ints, else None."""
    if not isinstance(answer, tuple | list) or len(answer) != 2:
        return f"expected a pair of ints {what}, got {short(answer)}"
    if any(as_int(a) is None for a in answer):
        return f"expected two ints {what}, got {short(answer)}"
    return None


# 01.1 -- predict: tokens of an RGB 224 x 224 image with P = 16


def _tokens_rgb224() -> tuple[int, int]:
    tokens = patchify(torch.zeros(1, 3, 224, 224), 16)  # (1, N, C*P*P)
    return int(tokens.shape[1]), int(tokens.shape[2])


def _grade_tokens_rgb224(answer: Any) -> str | None:
    hint = _int_pair(answer, "(number of tokens, token length)")
    if hint:
        return hint
    n, length = (int(a) for a in answer)
    right_n, right_length = _tokens_rgb224()
    if n != right_n:
        return "the number of tokens is (patches along the height) * (patches along the width)"
    if length != right_length:
        return "a token holds every value of its patch: all P * P pixels of every channel"
    return None


# 01.2 -- change something: turn the Mountain upside down; where is the moon now?


def _moon_token_flipped() -> int:
    flipped = np.flipud(load_mountains()).copy()  # (60, 100): top row is now the foreground
    tokens = patchify(torch.as_tensor(flipped)[None, None], 20)[0]  # (15, 400)
    return int(tokens.mean(dim=1).argmax()) + 1  # the brightest token holds the moon, 1-based


def _grade_moon_token_flipped(answer: Any) -> str | None:
    token = as_int(answer)
    if token is None:
        return f"expected a 1-based token number (an int), got {short(answer)}"
    if not 1 <= token <= 15:
        return "the 3 x 5 grid has tokens 1 to 15"
    if token == 3:
        return "that is where the moon was: after the flip its patch is in another grid row"
    if token != _moon_token_flipped():
        return "a vertical flip keeps the grid column and moves the grid row; count row by row"
    return None


# 01.3 -- change something: where does one pixel land with the other feature order?


def _pixel_positions() -> tuple[int, int]:
    patch = torch.arange(3 * 16 * 16).view(1, 3, 16, 16)  # one RGB 16 x 16 patch, values 0..767
    pixel = int(patch[0, 1, 1, 2])  # green channel (c = 1), row 1, column 2
    torch_order = patchify(patch, 16)[0, 0]  # (768,): (c, p1, p2), the package's and timm's
    jax_order = rearrange(patch, "b c p1 p2 -> b (p1 p2 c)")[0]  # (768,): JAX's / einops'
    return int((torch_order == pixel).nonzero()), int((jax_order == pixel).nonzero())


def _grade_pixel_positions(answer: Any) -> str | None:
    hint = _int_pair(answer, "(position in (c, p1, p2) order, position in (p1, p2, c) order)")
    if hint:
        return hint
    first, second = (int(a) for a in answer)
    right_first, right_second = _pixel_positions()
    if (first, second) == (right_second, right_first):
        return "the two positions are swapped: the first is the (c, p1, p2) order"
    if first != right_first:
        return "in (c, p1, p2) order the whole red channel (16 * 16 values) comes first"
    if second != right_second:
        return "in (p1, p2, c) order each pixel's 3 channels sit side by side; count pixels first"
    return None


# 01.4 -- write a function: patchify for one (H, W) array


def _reference_patchify_2d(image: np.ndarray, patch_size: int) -> np.ndarray:
    """Loops over the grid, row-major: the definition."""
    rows, cols = image.shape[0] // patch_size, image.shape[1] // patch_size
    return np.stack(
        [
            image[
                r * patch_size : (r + 1) * patch_size, c * patch_size : (c + 1) * patch_size
            ].reshape(-1)  # (P*P,): the patch row by row
            for r in range(rows)
            for c in range(cols)
        ]
    )  # (N, P*P)


def _solution_patchify_2d() -> Callable[[np.ndarray, int], np.ndarray]:
    def patchify_2d(image: np.ndarray, patch_size: int) -> np.ndarray:
        image = np.asarray(image)
        rows, cols, p = image.shape[0] // patch_size, image.shape[1] // patch_size, patch_size
        grid = image.reshape(rows, p, cols, p)  # (grid row, pixel row, grid column, pixel column)
        return grid.transpose(0, 2, 1, 3).reshape(rows * cols, p * p)  # (N, P*P), row-major

    return patchify_2d


def _grade_patchify_2d(answer: Any) -> str | None:
    if not callable(answer):
        return f"expected a function patchify_2d(image, patch_size), got {short(answer)}"
    rng = np.random.default_rng(1)
    cases = [(load_mountains(), 20), (load_mountains(), 4), (rng.random((6, 9)), 3)]
    cases.append((np.arange(8 * 4, dtype=float).reshape(8, 4), 2))
    for image, size in cases:
        result = answer(image, size)  # an ndarray (a tensor is converted)
        expected = _reference_patchify_2d(image, size)
        if result.shape != expected.shape:
            return (
                f"for a {image.shape[0]} x {image.shape[1]} image and P = {size} the result "
                f"should have shape (N, P * P) = {expected.shape}, got {result.shape}"
            )
        if not close(result, expected):
            if close(np.sort(result, axis=None), np.sort(expected, axis=None)):
                return (
                    f"right values, wrong order (image {image.shape}, P = {size}): patches go "
                    "left to right, then top to bottom, each read row by row"
                )
            return f"wrong values for a {image.shape} image with P = {size}"
    return None


def _wrong_patchify_2d() -> Callable[[np.ndarray, int], np.ndarray]:
    def column_major(image: np.ndarray, patch_size: int) -> np.ndarray:
        return _reference_patchify_2d(np.asarray(image).T, patch_size)  # patches transposed

    return column_major


EXERCISES: list[Exercise] = [
    Exercise(
        id="01.1",
        task=(
            "Predict before computing: an RGB photograph of 224 x 224 pixels (C = 3) is cut "
            "into patches of P = 16. How many tokens does it make, and how long is each token? "
            "Answer with a pair `(number_of_tokens, token_length)`."
        ),
        grade=_grade_tokens_rgb224,
        solution=_tokens_rgb224,
        wrong=lambda: (196, 256),
    ),
    Exercise(
        id="01.2",
        task=(
            "Change the picture: turn the Mountain upside down (`np.flipud(mountains)`) and cut "
            "it again with P = 20. Which token (1-based number, as on the grid figure) now holds "
            "the moon? Answer with an int."
        ),
        grade=_grade_moon_token_flipped,
        solution=_moon_token_flipped,
        wrong=lambda: 3,
    ),
    Exercise(
        id="01.3",
        task=(
            "Feature order. In a 16 x 16 RGB patch, take the pixel at row 1, column 2 of the "
            "green channel (c = 1). At which 0-based position of the token of length 768 does it "
            "land with the (c, p1, p2) order of `vx.patchify` (PyTorch, timm), and at which with "
            "the (p1, p2, c) order (JAX, einops examples)? Answer with a pair of ints."
        ),
        grade=_grade_pixel_positions,
        solution=_pixel_positions,
        wrong=lambda: (18, 18),
    ),
    Exercise(
        id="01.4",
        task=(
            "Write `patchify_2d(image, patch_size)` for one grey picture: a NumPy array of shape "
            "(H, W) in, an array of shape (N, P * P) out, patches in row-major order, each "
            "flattened row by row, using loops, slicing or reshapes (not `vx.patchify`). The "
            "checker compares it with a loop over the patch grid on the Mountain and on other "
            "shapes."
        ),
        grade=_grade_patchify_2d,
        solution=_solution_patchify_2d,
        wrong=_wrong_patchify_2d,
        returns=np.ndarray,
        forbids=("vitexplain.patches.patchify",),
    ),
]
