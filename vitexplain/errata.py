"""Errata (notebook 04): code of the original articles that is wrong on purpose, kept to be shown.

The articles this series started from had a 2D relative position embedding that swaps its two
tables and spreads both terms with the same expand. Notebook 04 runs it next to the fix
(:class:`vitexplain.RelPosEmb2D`) to show how it fails: on the Mountain's non-square 3 x 5 patch
grid it raises, and on square grids it runs and returns other logits, in which the key's row never
enters. Nothing else in the package uses this module; never build a model on it.
"""

from __future__ import annotations

import torch
from einops import rearrange

from .relative_position import relative_to_absolute

__all__ = ["articles_rel_pos_2d"]


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
    rows, cols = (grid_size, grid_size) if isinstance(grid_size, int) else grid_size
    grid = rearrange(q, "b h (x y) d -> b h x y d", x=rows)  # (B, h, H, W, d)
    # erratum 1: the row table along each row (W tokens), the column table along each column
    col_term = relative_to_absolute(grid @ table_h.T)  # (B, h, H, W, W); raises if H != W
    row_term = relative_to_absolute(grid.transpose(2, 3) @ table_w.T)  # (B, h, W, H, H)
    # erratum 2: one expand, with the height, for both terms
    return _articles_expand(col_term, rows) + _articles_expand(row_term, rows)  # (B, h, N, N)
