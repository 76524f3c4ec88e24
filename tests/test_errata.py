import pytest
import torch

import vitexplain
from vitexplain import RelPosEmb2D, articles_rel_pos_2d, errata


def test_errata_module_says_what_it_is():
    assert "wrong on purpose" in errata.__doc__
    assert vitexplain.articles_rel_pos_2d is errata.articles_rel_pos_2d
    assert "articles_rel_pos_2d" not in vitexplain.relative_position.__all__


def _articles_by_loop(q, n, table_h, table_w):
    """The erratum as a formula: the column term reads the row table, the row term reads the
    transposed token's query at a column offset."""
    out = torch.empty(*q.shape[:2], n * n, n * n)
    for a in range(n * n):
        for b in range(n * n):
            (row_a, col_a), (_, col_b) = divmod(a, n), divmod(b, n)
            transposed = col_a * n + row_a
            out[:, :, a, b] = (
                q[:, :, a] @ table_h[col_b - col_a + n - 1]
                + q[:, :, transposed] @ table_w[col_b - col_a + n - 1]
            )
    return out


@pytest.mark.parametrize("n", [2, 3, 4])
def test_articles_version_mixes_tokens_on_square_grids(n):
    emb = RelPosEmb2D(n, 4)
    table_h, table_w = emb.emb_h.rel_pos_emb.detach(), emb.emb_w.rel_pos_emb.detach()
    q = torch.randn(2, 3, n * n, 4)
    theirs = articles_rel_pos_2d(q, n, table_h, table_w)
    assert theirs.shape == (2, 3, n * n, n * n)
    assert torch.allclose(theirs, _articles_by_loop(q, n, table_h, table_w), atol=1e-5)
    assert not torch.allclose(theirs, emb(q).detach(), atol=1e-3)  # not the definition
    # the key's row never enters: keys in the same column get the same logit
    by_column = theirs.reshape(2, 3, n * n, n, n)  # (..., key row, key column)
    assert torch.equal(by_column, by_column[..., :1, :].expand_as(by_column))


@pytest.mark.parametrize("grid", [(3, 5), (5, 3), (2, 4)])
def test_articles_version_fails_on_non_square_grids(grid):
    rows, cols = grid
    emb = RelPosEmb2D(grid, 4)
    q = torch.randn(1, 1, rows * cols, 4)
    with pytest.raises(
        ValueError, match=f"L = {cols} queries .* need 2L - 1 = {2 * cols - 1} offsets"
    ):
        articles_rel_pos_2d(q, grid, emb.emb_h.rel_pos_emb, emb.emb_w.rel_pos_emb)
    assert emb(q).shape == (1, 1, rows * cols, rows * cols)  # the fixed module runs
