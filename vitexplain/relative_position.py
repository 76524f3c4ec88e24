"""Relative position embeddings (notebook 04): attention that knows how far apart tokens are.

An absolute embedding gives each position p a vector; a relative one gives each *offset* j - i a
vector r, and the logit between query i and key j gains q_i . r_{j - i} (Shaw et al., 2018). With L
tokens there are 2L - 1 offsets, -(L - 1) .. L - 1, stored at indices 0 .. 2L - 2.

Computing q_i . r_m for every i and every m gives an (L, 2L - 1) array indexed by offset; the
"skew" of Huang et al. (2018) turns it into the (L, L) array indexed by key position with one pad,
one reshape and one slice, without building an index.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from einops import rearrange
from torch import nn

from ._checks import check_int, check_size2, check_tensor

__all__ = [
    "AbsPosEmb1D",
    "articles_rel_pos_2d",
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
    length = check_int("length", length)
    pos = torch.arange(length)
    return pos[None, :] - pos[:, None] + length - 1  # (L, L)


def skew_steps(x: torch.Tensor) -> list[tuple[str, torch.Tensor]]:
    """The skew of :func:`relative_to_absolute`, returning every intermediate array.

    The steps, for logits of L queries over 2L - 1 offsets (leading dims pass through):

    1. ``"relative (L, 2L-1)"``: the input, column m holding offset m - (L - 1);
    2. ``"pad a column (L, 2L)"``: one zero column on the right;
    3. ``"flatten (2L*L)"``: the rows one after the other;
    4. ``"pad L-1 ((L+1)(2L-1))"``: L - 1 zeros at the end, so the length divides by 2L - 1;
    5. ``"view (L+1, 2L-1)"``: read back in rows of 2L - 1, each row starts one place earlier
       in the padded rows, i.e. row i is shifted left by i;
    6. ``"slice (L, L)"``: rows :L, columns L-1: -- ``out[..., i, j] = x[..., i, j - i + L - 1]``.

    Steps 3 to 6 are views where torch allows (no copy); the pads copy.

    Args:
        x: shape (..., L, 2L - 1), any leading dims; any dtype ``F.pad`` accepts (integer codes
            work, which is how notebook 04 labels the cells).

    Returns:
        Six ``(name, tensor)`` pairs in the order above; the last tensor has shape (..., L, L) and
        is exactly ``relative_to_absolute(x)``.
    """
    x = check_tensor("x", x, min_ndim=2)
    *lead, length, num_offsets = x.shape
    if num_offsets != 2 * length - 1:
        raise ValueError(
            f"the last axis must hold 2L - 1 = {2 * length - 1} offsets for L = {length} "
            f"rows, got {num_offsets} (shape {tuple(x.shape)})"
        )
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
    """Turn logits indexed by offset into logits indexed by key: the skew.

    ``out[..., i, j] = x[..., i, j - i + L - 1]``. Worked example for L = 2, rows of x indexed by
    offset -1, 0, +1::

        x            pad a column     flatten, pad L-1     view (L+1, 2L-1)   keep [:L, L-1:]
        a b c        a b c 0          a b c 0 d e f 0 0    a b c              b c
        d e f        d e f 0                               0 d e              d e
                                                           f 0 0

    Row i of the padded array is 2L long; read in rows of 2L - 1, each row starts one element
    later than the last, which shifts row i left by i: query 0 sees offsets 0, +1 (b, c) and
    query 1 offsets -1, 0 (d, e). :func:`skew_steps` returns every intermediate array; this
    function is its last step.

    Args:
        x: shape (..., L, 2L - 1), any leading dims.

    Returns:
        Tensor of shape (..., L, L).
    """
    return skew_steps(x)[-1][1]  # (..., L, L)


def _check_query(q: object, length: int, dim_head: int, heads: int | None) -> torch.Tensor:
    q = check_tensor("q", q, min_ndim=4 if heads else 2)
    if q.shape[-2:] != (length, dim_head):
        raise ValueError(
            f"q must end with (L, d) = ({length}, {dim_head}), got shape {tuple(q.shape)}"
        )
    if heads and q.shape[1] != heads:
        raise ValueError(
            f"q has {q.shape[1]} heads on axis 1, but the tables were built for heads={heads}"
        )
    return q


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
        self.tokens = check_int("tokens", tokens)
        self.dim_head = check_int("dim_head", dim_head)
        self.abs_pos_emb = _init_table(self.tokens, self.dim_head)  # (L, d)

    def forward(self, q: torch.Tensor) -> torch.Tensor:
        """Args:
            q: queries, shape (..., L, d).

        Returns:
            Position logits of shape (..., L, L).
        """
        q = _check_query(q, self.tokens, self.dim_head, None)
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
        self.tokens = check_int("tokens", tokens)
        self.dim_head = check_int("dim_head", dim_head)
        self.heads = None if heads is None else check_int("heads", heads)
        shape = (2 * self.tokens - 1, self.dim_head)
        self.rel_pos_emb = _init_table(*((self.heads, *shape) if self.heads else shape))

    def forward(self, q: torch.Tensor) -> torch.Tensor:
        """Args:
            q: queries, shape (..., L, d) for a shared table, (B, h, ..., L, d) per head.

        Returns:
            Position logits of shape (..., L, L).
        """
        q = _check_query(q, self.tokens, self.dim_head, self.heads)
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
        self.grid_size = check_size2("grid_size", grid_size)
        self.dim_head = check_int("dim_head", dim_head)
        self.heads = None if heads is None else check_int("heads", heads)
        self.emb_h = RelPosEmb1D(self.grid_size[0], dim_head, heads)  # row offsets, 2H-1
        self.emb_w = RelPosEmb1D(self.grid_size[1], dim_head, heads)  # column offsets, 2W-1

    def forward(self, q: torch.Tensor) -> torch.Tensor:
        """Args:
            q: queries, shape (B, h, H * W, d), tokens in row-major order.

        Returns:
            Position logits of shape (B, h, H * W, H * W).
        """
        q = check_tensor("q", q, ndim=4)
        rows, cols = self.grid_size
        if q.shape[2] != rows * cols:
            raise ValueError(
                f"q holds {q.shape[2]} tokens, which do not match the {rows} x {cols} grid "
                f"({rows * cols} tokens)"
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
    rows, cols = check_size2("grid_size", grid_size)
    index = check_int("index", index, minimum=0)
    if index >= rows * cols:
        raise ValueError(
            f"index must be below {rows * cols} for a {rows} x {cols} grid, got {index}"
        )
    row_a, col_a = divmod(index, cols)
    row_offsets = (torch.arange(rows) - row_a)[:, None].expand(rows, cols)  # (H, W)
    col_offsets = (torch.arange(cols) - col_a)[None, :].expand(rows, cols)  # (H, W)
    return row_offsets.clone(), col_offsets.clone()


def _articles_expand(term: torch.Tensor, size: int) -> torch.Tensor:
    # (B, h, X, Y, Y') read as (B, h', size, Y, Y') with a new key axis of `size`
    # -> (B, h', size * Y, size * Y')
    b, y, y2 = term.shape[0], term.shape[-2], term.shape[-1]
    term = term.reshape(b, -1, size, y, 1, y2).expand(-1, -1, -1, -1, size, -1)
    return term.reshape(b, term.shape[1], size * y, size * y2)


def articles_rel_pos_2d(
    q: torch.Tensor, grid_size: int | tuple[int, int], table_h: torch.Tensor, table_w: torch.Tensor
) -> torch.Tensor:
    """The 2D relative logits as the original articles computed them -- deliberately WRONG.

    Kept only so that notebook 04 can show the errata next to the fix (:class:`RelPosEmb2D`).
    Rebuilt from the description of the errata, with the same tables as the correct module:

    * the two tables are swapped: the row table ``table_h`` (2H - 1 offsets) is laid along the
      rows of the grid, where tokens differ by a *column* offset, and the column table along the
      columns. On a grid with H != W the skew then meets 2H - 1 offsets for W tokens and raises.
    * the same "expand" (built for the column term, with H) is reused for the row term, whose
      axes are (column, row, key row): the row term at (a, b) becomes
      ``q[(col_a, row_a)] . table_w[col_b - col_a + H - 1]`` -- the query of the transposed
      token, read at a *column* offset; the key's row never enters.

    On a square grid it runs and returns
    ``q_a . table_h[col_b - col_a + H - 1] + q[(col_a, row_a)] . table_w[col_b - col_a + H - 1]``,
    not the definition ``q_a . (table_h[row_b - row_a + H - 1] + table_w[col_b - col_a + W - 1])``.

    Args:
        q: queries, shape (B, h, H * W, d), tokens in row-major order.
        grid_size: (H, W) of the token grid, or one int for a square grid.
        table_h: row-offset table, shape (2H - 1, d) (e.g. ``RelPosEmb2D.emb_h.rel_pos_emb``).
        table_w: column-offset table, shape (2W - 1, d).

    Returns:
        Logits of shape (B, h, H * W, H * W) on a square grid; raises ``ValueError`` (from the
        skew: wrong number of offsets) when H != W.
    """
    q = check_tensor("q", q, ndim=4)
    rows, cols = check_size2("grid_size", grid_size)
    d = q.shape[-1]
    if q.shape[2] != rows * cols:
        raise ValueError(
            f"q holds {q.shape[2]} tokens, not the {rows * cols} of a {rows} x {cols} grid"
        )
    for name, table, size in (("table_h", table_h, rows), ("table_w", table_w, cols)):
        table = check_tensor(name, table, ndim=2)
        if table.shape != (2 * size - 1, d):
            raise ValueError(
                f"{name} must have shape ({2 * size - 1}, {d}), got {tuple(table.shape)}"
            )
    grid = rearrange(q, "b h (x y) d -> b h x y d", x=rows)  # (B, h, H, W, d)
    # erratum 1: the row table along each row (W tokens), the column table along each column
    col_term = relative_to_absolute(grid @ table_h.T)  # (B, h, H, W, W); raises if H != W
    row_term = relative_to_absolute(grid.transpose(2, 3) @ table_w.T)  # (B, h, W, H, H)
    # erratum 2: one expand, with the height, for both terms
    return _articles_expand(col_term, rows) + _articles_expand(row_term, rows)  # (B, h, N, N)
