"""Sinusoidal position embeddings (notebook 03): every pair of columns is a clock.

Column 2i of the table holds sin(pos * w_i) and column 2i + 1 holds cos(pos * w_i), with the
angular frequency w_i = base ** (-2i / dim). Pair i is a hand going round the unit circle once every
2 pi / w_i positions; the pairs turn from fast (i = 0, one turn per 2 pi tokens) to slow.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from einops import rearrange

__all__ = [
    "clock_frequencies",
    "clock_pairs",
    "clock_periods",
    "embedding_similarity",
    "relative_rotation",
    "resize_pos_embed",
    "sinusoid_encoding",
    "sinusoid_encoding_2d",
    "toeplitz_error",
]


def _frequencies(dim: int, base: float) -> torch.Tensor:
    """Angular frequency of each column, in float64: w_{j // 2} = base ** (-2 (j // 2) / dim)."""
    pair = torch.arange(dim, dtype=torch.float64) // 2
    return base ** (-2 * pair / dim)  # (dim,)


def sinusoid_encoding(num_tokens: int, dim: int, base: float = 10000.0) -> torch.Tensor:
    """The sinusoidal position embedding table of Vaswani et al. (2017).

    ``table[pos, 2i] = sin(pos / base ** (2i / dim))`` and ``table[pos, 2i + 1]`` is the matching
    cosine; an odd ``dim`` ends with a lone sine column.

    Args:
        num_tokens: number of positions L.
        dim: embedding length D.
        base: the wavelength scale; 10000 in the paper.

    Returns:
        Tensor of shape (L, D) in torch's default dtype, computed in float64.
    """
    pos = torch.arange(num_tokens, dtype=torch.float64)[:, None]  # (L, 1)
    angles = pos * _frequencies(dim, base)  # (L, D)
    even = torch.arange(dim) % 2 == 0
    table = torch.where(even, torch.sin(angles), torch.cos(angles))  # (L, D)
    return table.to(torch.get_default_dtype())


def clock_periods(dim: int, base: float = 10000.0) -> np.ndarray:
    """Period, in tokens, of each sin/cos pair: 2 pi * base ** (2i / dim).

    Args:
        dim: embedding length D.
        base: the wavelength scale.

    Returns:
        Array of shape (ceil(D / 2),), increasing from 2 pi.
    """
    i = np.arange(math.ceil(dim / 2))
    return 2 * np.pi * base ** (2 * i / dim)


def relative_rotation(offset: float, dim: int, base: float = 10000.0) -> torch.Tensor:
    """The block-diagonal rotation R(k) with PE[pos + k] = R(k) @ PE[pos] for every pos.

    For pair i, (sin(a + b), cos(a + b)) = [[cos b, sin b], [-sin b, cos b]] (sin a, cos a) with
    a = pos * w_i and b = k * w_i: moving k tokens turns every clock by its own angle, whatever pos.

    Args:
        offset: the shift k in tokens.
        dim: embedding length D; must be even (every column needs its partner).
        base: the wavelength scale.

    Returns:
        Tensor of shape (D, D) in torch's default dtype.
    """
    if dim % 2:
        raise ValueError(f"dim must be even for the rotation identity, got {dim}")
    angle = offset * _frequencies(dim, base)[::2]  # (D/2,)
    cos, sin = torch.cos(angle), torch.sin(angle)
    rows = [torch.stack([cos, sin], -1), torch.stack([-sin, cos], -1)]  # two (D/2, 2) rows
    blocks = torch.stack(rows, -2)  # (D/2, 2, 2)
    return torch.block_diag(*blocks).to(torch.get_default_dtype())


def sinusoid_encoding_2d(
    grid_size: int | tuple[int, int], dim: int, base: float = 10000.0
) -> torch.Tensor:
    """A 2D sin-cos embedding: the first half of the columns encodes the row, the second the column.

    Two tokens in the same row share the first half of their embedding, two tokens in the same
    column the second half, so patches that are far apart on the grid are never neighbours.

    Args:
        grid_size: (H, W) of the token grid, or one int for a square grid.
        dim: embedding length D; must be even.
        base: the wavelength scale.

    Returns:
        Tensor of shape (H * W, D), tokens in row-major order.
    """
    rows, cols = (grid_size, grid_size) if isinstance(grid_size, int) else grid_size
    if dim % 2:
        raise ValueError(f"dim must be even to split between rows and columns, got {dim}")
    row_pe = sinusoid_encoding(rows, dim // 2, base)  # (H, D/2)
    col_pe = sinusoid_encoding(cols, dim // 2, base)  # (W, D/2)
    return torch.cat(
        [
            row_pe.repeat_interleave(cols, dim=0),  # token (r, c) -> row_pe[r]
            col_pe.repeat(rows, 1),  # token (r, c) -> col_pe[c]
        ],
        dim=1,
    )  # (H*W, D)


def resize_pos_embed(
    pos_embed: torch.Tensor,
    old_grid: int | tuple[int, int],
    new_grid: int | tuple[int, int],
    num_prefix_tokens: int = 0,
    antialias: bool = True,
) -> torch.Tensor:
    """Resample a position embedding to a new token grid, bicubically, as timm does.

    A ViT trained on one image size meets another at fine-tuning time: its learned embedding is a
    (H, W) grid of vectors, which is interpolated like an image with D channels. Prefix tokens
    (the class token) have no place on the grid and are kept as they are. The defaults are those
    of timm's ``resample_abs_pos_embed`` (bicubic, ``antialias=True``): when the grid shrinks, the
    bicubic kernel is widened so that every old cell contributes (a low-pass filter, as PIL's
    resize does); PyTorch's antialiased bicubic also uses PIL's kernel (a = -0.5 instead of
    -0.75) when the grid grows. The official ViT code (Dosovitskiy et al., 2020) resizes linearly
    instead, with ``scipy.ndimage.zoom(order=1)``.

    Args:
        pos_embed: shape (num_prefix_tokens + H * W, D) or (1, num_prefix_tokens + H * W, D).
        old_grid: (H, W) of the grid ``pos_embed`` was made for.
        new_grid: (H', W') of the new grid.
        num_prefix_tokens: leading tokens that are not on the grid.
        antialias: filter when shrinking (timm's default); False gives plain bicubic sampling.

    Returns:
        Tensor of shape (num_prefix_tokens + H' * W', D), with a leading 1 if the input had one.
    """
    h, w = (old_grid, old_grid) if isinstance(old_grid, int) else old_grid
    nh, nw = (new_grid, new_grid) if isinstance(new_grid, int) else new_grid
    if pos_embed.shape[-2] != num_prefix_tokens + h * w:
        raise ValueError(
            f"pos_embed holds {pos_embed.shape[-2]} tokens, expected num_prefix_tokens="
            f"{num_prefix_tokens} + old_grid {h} x {w} = {num_prefix_tokens + h * w}"
        )
    table = pos_embed.reshape(-1, pos_embed.shape[-1])  # (N, D)
    prefix, grid = table[:num_prefix_tokens], table[num_prefix_tokens:]
    grid = rearrange(grid, "(h w) d -> 1 d h w", h=h)  # the grid as a D-channel image
    grid = F.interpolate(grid, size=(nh, nw), mode="bicubic", antialias=antialias)
    out = torch.cat([prefix, rearrange(grid, "1 d h w -> (h w) d")])  # (P + H'W', D)
    return out[None] if pos_embed.ndim == 3 else out


def clock_frequencies(dim: int, base: float = 10000.0) -> np.ndarray:
    """Angular frequency w_i = base ** (-2i / dim) of each sin/cos pair, in radians per token.

    Pair i turns by w_i radians from one position to the next; ``clock_periods`` is 2 pi / w_i.

    Args:
        dim: embedding length D.
        base: the wavelength scale.

    Returns:
        Array of shape (ceil(D / 2),), decreasing from 1 to about 1 / base.
    """
    i = np.arange(math.ceil(dim / 2))
    return base ** (-2 * i / dim)


def clock_pairs(dim: int, count: int = 9) -> np.ndarray:
    """Indices of ``count`` sin/cos pairs spread evenly from the fastest clock to the slowest.

    An 18-dimensional embedding has exactly 9 pairs, so ``clock_pairs(18)`` is 0, 1, ..., 8; a
    768-dimensional one has 384, and 9 of them are picked, always including the first and the last.

    Args:
        dim: embedding length D (at least 2: a single column has no pair).
        count: how many pairs to pick.

    Returns:
        Increasing int array of shape (min(count, D // 2),).
    """
    num_pairs = dim // 2
    return np.unique(np.round(np.linspace(0, num_pairs - 1, min(count, num_pairs))).astype(int))


def embedding_similarity(table: torch.Tensor) -> torch.Tensor:
    """Cosine similarity of every pair of rows (positions) of an embedding table.

    For a sinusoidal table with even D every row has norm sqrt(D / 2), so this is
    ``table @ table.T / (D / 2)``: the mean over the clocks of cos(w_i (pos_a - pos_b)).

    Args:
        table: shape (N, D), one embedding per position.

    Returns:
        Tensor of shape (N, N), computed in float64 and returned in the table's dtype.
    """
    unit = F.normalize(table.double(), dim=1)  # (N, D), rows of length 1
    return (unit @ unit.T).to(table.dtype)  # (N, N)


def toeplitz_error(matrix: torch.Tensor) -> float:
    """Largest gap between an entry of a square matrix and the first entry of its diagonal.

    It is 0 exactly when ``matrix[a, b]`` depends only on the offset b - a, i.e. when every
    diagonal is constant (a Toeplitz matrix).

    Args:
        matrix: shape (N, N).

    Returns:
        max over a, b of |matrix[a, b] - matrix[a - min(a, b), b - min(a, b)]|, as a float.
    """
    n = matrix.shape[0]
    a, b = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")  # (N, N) each
    start = torch.minimum(a, b)  # steps back to the first row or column of the diagonal
    first = matrix[a - start, b - start]  # (N, N): the first entry of each entry's diagonal
    return float((matrix - first).abs().max())
