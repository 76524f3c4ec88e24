"""Relative position embeddings (notebook 04): attention that knows how far apart tokens are.

An absolute embedding gives each position p a vector; a relative one gives each *offset* j - i a
vector r, and the logit between query i and key j gains q_i . r_{j - i} (Shaw et al., 2018). With L
tokens there are 2L - 1 offsets, -(L - 1) .. L - 1, stored at indices 0 .. 2L - 2.

q_i . r_m for every i and m is an (L, 2L - 1) array indexed by offset; the "skew" turns it into
the (L, L) array indexed by key, with no index tensor. Huang et al. (2018) made it for causal
attention (L offsets, a left pad, a reshape to (L + 1, L)); :func:`skew_steps` is the variant of
Bello et al. (2019) for all 2L - 1 offsets; :func:`relative_to_absolute` reads the same numbers
as one strided view.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from einops import rearrange
from torch import nn

__all__ = [
    "AbsPosEmb1D",
    "attention_with_position",
    "grid_offsets",
    "relative_index",
    "relative_to_absolute",
    "RelPosEmb1D",
    "RelPosEmb2D",
    "skew_steps",
]


def relative_index(length: int) -> torch.Tensor:
    """Index of the offset between every query i and key j: ``[i, j] = j - i + L - 1``.

    Args:
        length: sequence length L.

    Returns:
        LongTensor of shape (L, L) with values in 0 .. 2L - 2.
    """
    pos = torch.arange(length)
    return pos[None, :] - pos[:, None] + length - 1  # (L, L)


def _check_offsets(x: torch.Tensor) -> torch.Tensor:
    """Refuse ``x`` unless it has shape (..., L, 2L - 1): L queries over 2L - 1 offsets."""
    length, num_offsets = x.shape[-2:]
    if num_offsets != 2 * length - 1:
        raise ValueError(
            f"x must have shape (..., L, 2L - 1): its L = {length} queries (axis -2) need "
            f"2L - 1 = {2 * length - 1} offsets on the last axis, got {num_offsets} "
            f"(shape {tuple(x.shape)})"
        )
    return x


def skew_steps(x: torch.Tensor) -> list[tuple[str, torch.Tensor]]:
    """The skew of Bello et al. (2019), returning every intermediate array.

    The steps, for logits of L queries over 2L - 1 offsets (leading dims pass through):

    1. ``"relative (L, 2L-1)"``: the input, column m holding offset m - (L - 1);
    2. ``"pad a column (L, 2L)"``: one zero column on the right;
    3. ``"flatten (2L*L)"``: the rows one after the other;
    4. ``"pad L-1 ((L+1)(2L-1))"``: L - 1 zeros at the end, so the length divides by 2L - 1;
    5. ``"view (L+1, 2L-1)"``: read back in rows of 2L - 1, each row starts one place earlier
       in the padded rows, i.e. row i is shifted left by i;
    6. ``"slice (L, L)"``: rows :L, columns L-1: -- ``out[..., i, j] = x[..., i, j - i + L - 1]``.

    Steps 3 to 6 are views where torch allows (no copy); the pads copy. The result equals
    :func:`relative_to_absolute`, which reads the same numbers as one strided view of ``x``.

    Args:
        x: shape (..., L, 2L - 1), any leading dims; any dtype ``F.pad`` accepts (integer codes
            work, which is how notebook 04 labels the cells).

    Returns:
        Six ``(name, tensor)`` pairs in the order above; the last tensor has shape (..., L, L).
    """
    _check_offsets(x)
    *lead, length, _ = x.shape
    padded = F.pad(x, (0, 1))  # (..., L, 2L)      a zero column
    flat = padded.flatten(-2)  # (..., 2L * L)
    flat_padded = F.pad(flat, (0, length - 1))  # (..., (L + 1) * (2L - 1))
    shifted = flat_padded.view(*lead, length + 1, 2 * length - 1)  # row i shifted left by i
    out = shifted[..., :length, length - 1 :]  # (..., L, L)
    return [
        ("relative (L, 2L-1)", x),
        ("pad a column (L, 2L)", padded),
        ("flatten (2L*L)", flat),
        ("pad L-1 ((L+1)(2L-1))", flat_padded),
        ("view (L+1, 2L-1)", shifted),
        ("slice (L, L)", out),
    ]


def relative_to_absolute(x: torch.Tensor) -> torch.Tensor:
    """Turn logits indexed by offset into logits indexed by key: the skew, as a strided view.

    ``out[..., i, j] = x[..., i, j - i + L - 1]``. In a contiguous (L, 2L - 1) array, element
    [i, m] sits at i (2L - 1) + m, so element [i, j - i + L - 1] sits at

        i (2L - 1) + j - i + L - 1 = i (2L - 2) + j + (L - 1):

    the result is ``x`` read from offset L - 1 with row stride 2L - 2 (not 2L - 1) and column
    stride 1. Nothing is copied when ``x`` is contiguous; other inputs are made contiguous first.

    Args:
        x: shape (..., L, 2L - 1), any leading dims.

    Returns:
        Tensor of shape (..., L, L): a view of ``x`` (or of its contiguous copy), so writing into
        ``x`` afterwards changes it; call ``.contiguous()`` on it for a separate array.
    """
    x = _check_offsets(x).contiguous()  # no copy when already contiguous
    *lead, length, _ = x.shape
    size = (*lead, length, length)
    stride = (*x.stride()[:-2], 2 * length - 2, 1)
    return x.as_strided(size, stride, x.storage_offset() + length - 1)  # (..., L, L)


def attention_with_position(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    position_logits: torch.Tensor,
    scale: float | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Softmax attention with a position term in the logits, as Shaw et al. (2018) write it.

    ``weights = softmax((q k^T + position_logits) * scale)`` over the keys, ``out = weights v``;
    ``position_logits`` is what :class:`AbsPosEmb1D`, :class:`RelPosEmb1D` or
    :class:`RelPosEmb2D` return.

    Args:
        q: queries, shape (..., N, d).
        k: keys, shape (..., N, d).
        v: values, shape (..., N, d_v).
        position_logits: shape (..., N, N), broadcast against q k^T.
        scale: factor of the logits; d^-1/2 when None.

    Returns:
        ``(out, weights)`` of shapes (..., N, d_v) and (..., N, N).
    """
    if position_logits.shape[-2:] != (q.shape[-2], k.shape[-2]):
        raise ValueError(
            f"position_logits must end with (N, N) = {(q.shape[-2], k.shape[-2])}, got shape "
            f"{tuple(position_logits.shape)}"
        )
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    logits = (q @ k.transpose(-2, -1) + position_logits) * scale  # (..., N, N)
    weights = logits.softmax(dim=-1)  # (..., N, N)
    return weights @ v, weights  # (..., N, d_v), (..., N, N)


def _init_table(*shape: int) -> nn.Parameter:
    return nn.Parameter(torch.randn(*shape) * shape[-1] ** -0.5)


class AbsPosEmb1D(nn.Module):
    """Absolute position embedding inside attention: logit[i, j] = q_i . p_j.

    Args:
        tokens: sequence length L.
        dim_head: head dimension d.
    """

    def __init__(self, tokens: int, dim_head: int) -> None:
        super().__init__()
        self.tokens, self.dim_head = tokens, dim_head
        self.abs_pos_emb = _init_table(self.tokens, self.dim_head)  # (L, d)

    def forward(self, q: torch.Tensor) -> torch.Tensor:
        """Args:
            q: queries, shape (..., L, d).

        Returns:
            Position logits of shape (..., L, L).
        """
        return q @ self.abs_pos_emb.T  # (..., L, L)


class RelPosEmb1D(nn.Module):
    """Relative position embedding: logit[i, j] = q_i . r[j - i + L - 1].

    Args:
        tokens: sequence length L.
        dim_head: head dimension d.
        heads: None for one table shared by all heads, else the number of heads h, each with its
            own table.
    """

    def __init__(self, tokens: int, dim_head: int, heads: int | None = None) -> None:
        super().__init__()
        self.tokens, self.dim_head, self.heads = tokens, dim_head, heads
        shape = (2 * self.tokens - 1, self.dim_head)
        self.rel_pos_emb = _init_table(*((self.heads, *shape) if self.heads else shape))

    def forward(self, q: torch.Tensor) -> torch.Tensor:
        """Args:
            q: queries, shape (..., L, d) for a shared table, (B, h, ..., L, d) per head.

        Returns:
            Position logits of shape (..., L, L).
        """
        if self.heads is None:
            rel = q @ self.rel_pos_emb.T  # (..., L, 2L-1)
        else:  # head axis 1 of q meets axis 0 of the tables
            flat = q.reshape(q.shape[0], self.heads, -1, self.dim_head)  # (B, h, M*L, d)
            rel = torch.einsum("bhnd,hrd->bhnr", flat, self.rel_pos_emb)  # (B, h, M*L, 2L-1)
            rel = rel.reshape(*q.shape[:-1], -1)  # (B, h, ..., L, 2L-1)
        return relative_to_absolute(rel)  # (..., L, L)


class RelPosEmb2D(nn.Module):
    """2D relative position embedding over an H x W token grid (Ramachandran et al., 2019).

    For tokens a = (row_a, col_a) and b in row-major order the logit is
    q_a . (r_h[row_b - row_a + H - 1] + r_w[col_b - col_a + W - 1]): one table of 2H - 1 row
    offsets, one of 2W - 1 column offsets.

    Args:
        grid_size: (H, W) of the token grid, or one int for a square grid.
        dim_head: head dimension d.
        heads: None for shared tables, else the number of heads h (per-head tables).
    """

    def __init__(
        self, grid_size: int | tuple[int, int], dim_head: int, heads: int | None = None
    ) -> None:
        super().__init__()
        self.grid_size = (grid_size, grid_size) if isinstance(grid_size, int) else tuple(grid_size)
        self.dim_head, self.heads = dim_head, heads
        self.emb_h = RelPosEmb1D(self.grid_size[0], dim_head, heads)  # row offsets, 2H-1
        self.emb_w = RelPosEmb1D(self.grid_size[1], dim_head, heads)  # column offsets, 2W-1

    def forward(self, q: torch.Tensor) -> torch.Tensor:
        """Args:
            q: queries, shape (B, h, H * W, d), tokens in row-major order.

        Returns:
            Position logits of shape (B, h, H * W, H * W).
        """
        rows, cols = self.grid_size
        if q.ndim != 4 or q.shape[2] != rows * cols:
            raise ValueError(
                f"q must have shape (B, h, H * W, d) for the {rows} x {cols} grid "
                f"({rows * cols} tokens), got shape {tuple(q.shape)}"
            )
        grid = rearrange(q, "b h (x y) d -> b h x y d", x=rows)
        # column term: along each row, offsets between columns -> (B, h, H, W, W')
        col_logits = self.emb_w(grid)
        # row term: along each column, offsets between rows -> (B, h, W, H, H')
        row_logits = self.emb_h(rearrange(grid, "b h x y d -> b h y x d"))
        logits = (
            rearrange(row_logits, "b h y x X -> b h x y X 1")  # same for every column b
            + rearrange(col_logits, "b h x y Y -> b h x y 1 Y")  # same for every row b
        )  # (B, h, H, W, H', W')
        return rearrange(logits, "b h x y X Y -> b h (x y) (X Y)")


def grid_offsets(grid_size: int | tuple[int, int], index: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Row and column offsets of every token of an H x W grid from one token.

    Args:
        grid_size: (H, W) of the token grid, or one int for a square grid.
        index: 0-based row-major index a of the reference token, 0 <= a < H * W.

    Returns:
        ``(row_offsets, col_offsets)``, two LongTensors of shape (H, W): for the token b at
        (row_b, col_b), ``row_b - row_a`` and ``col_b - col_a``. ``RelPosEmb2D`` reads its row
        table at ``row_offsets + H - 1`` and its column table at ``col_offsets + W - 1``.
    """
    rows, cols = (grid_size, grid_size) if isinstance(grid_size, int) else grid_size
    if not 0 <= index < rows * cols:
        raise ValueError(
            f"index must be in 0 .. {rows * cols - 1} for a {rows} x {cols} grid, got {index}"
        )
    row_a, col_a = divmod(index, cols)
    row_offsets = (torch.arange(rows) - row_a)[:, None].expand(rows, cols)  # (H, W)
    col_offsets = (torch.arange(cols) - col_a)[None, :].expand(rows, cols)  # (H, W)
    return row_offsets.clone(), col_offsets.clone()
