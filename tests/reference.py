"""Brute-force references of the definitions, one element at a time, for the tests."""

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
