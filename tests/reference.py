"""Brute-force references: each definition written as plain loops, one element at a time.

The tests compare the package's vectorised code with these, and ``benchmarks/bench.py`` times the
package against them (it puts ``tests/`` on ``sys.path``). They are slow on purpose: nothing here
is clever, so each line can be checked against the formula it implements.
"""

import math

import torch


def sinusoid_encoding_loop(num_tokens: int, dim: int, base: float = 10000.0) -> torch.Tensor:
    """The sinusoidal table of Vaswani et al. (2017) by a double loop over positions and columns.

    Args:
        num_tokens: number of positions L.
        dim: embedding length D.
        base: the wavelength scale.

    Returns:
        Tensor of shape (L, D) in float64: sin(pos / base ** (2i / D)) in column 2i, the cosine in
        column 2i + 1.
    """
    table = torch.zeros(num_tokens, dim, dtype=torch.float64)
    for pos in range(num_tokens):
        for j in range(dim):
            angle = pos / base ** (2 * (j // 2) / dim)
            table[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return table


def relative_to_absolute_loop(x):
    """The skew's definition: out[..., i, j] = x[..., i, j - i + L - 1], x: (..., L, 2L-1)."""
    length = x.shape[-2]
    out = torch.empty(*x.shape[:-1], length, dtype=x.dtype)
    for i in range(length):
        for j in range(length):
            out[..., i, j] = x[..., i, j - i + length - 1]
    return out


def relative_logits_2d_loop(q, grid_size, r_h, r_w):
    """2D relative logits, one pair of tokens at a time.

    q: (B, h, H * W, d), tokens in row-major order; r_h: (2H - 1, d) or (h, 2H - 1, d);
    r_w: (2W - 1, d) or (h, 2W - 1, d). Returns (B, h, N, N) with
    out[..., a, b] = q[..., a, :] . (r_h[row_b - row_a + H - 1] + r_w[col_b - col_a + W - 1]).
    """
    rows, cols = grid_size
    n = rows * cols
    out = torch.empty(*q.shape[:2], n, n, dtype=q.dtype)
    for head in range(q.shape[1]):
        table_h = r_h if r_h.ndim == 2 else r_h[head]
        table_w = r_w if r_w.ndim == 2 else r_w[head]
        for a in range(n):
            for b in range(n):
                (row_a, col_a), (row_b, col_b) = divmod(a, cols), divmod(b, cols)
                r = table_h[row_b - row_a + rows - 1] + table_w[col_b - col_a + cols - 1]
                out[:, head, a, b] = q[:, head, a, :] @ r
    return out
