"""vitexplain.learned_position: the where-am-I task, the grid similarity and its neighbour tests."""

import math

import pytest
import torch
import torch.nn.functional as F

from vitexplain import (
    ViT,
    grid_neighbours,
    grid_similarity,
    neighbour_contrast,
    neighbour_wins,
    position_targets,
    sinusoid_encoding,
    sinusoid_encoding_2d,
    token_position_logits,
    train_where_am_i,
)


def _loop_similarity(table, rows, cols):
    """Brute force: one cosine at a time, in Python floats."""
    out = torch.empty(rows, cols, rows, cols, dtype=torch.float64)
    vectors = table.double().tolist()
    for a in range(rows * cols):
        for b in range(rows * cols):
            dot = sum(x * y for x, y in zip(vectors[a], vectors[b], strict=True))
            norms = math.sqrt(sum(x * x for x in vectors[a]) * sum(y * y for y in vectors[b]))
            out[a // cols, a % cols, b // cols, b % cols] = dot / norms
    return out


@pytest.mark.parametrize("rows, cols, dim", [(3, 5, 32), (2, 2, 3), (4, 1, 7)])
def test_grid_similarity_equals_a_loop(rows, cols, dim):
    table = torch.randn(rows * cols, dim, generator=torch.Generator().manual_seed(rows + dim))
    expected = _loop_similarity(table, rows, cols)
    assert torch.allclose(grid_similarity(table, (rows, cols)).double(), expected, atol=1e-6)
    prefixed = torch.cat([torch.randn(1, dim), table])[None]  # (1, N + 1, D) as a ViT's
    got = grid_similarity(prefixed, (rows, cols), num_prefix_tokens=1)
    assert torch.allclose(got.double(), expected, atol=1e-6)


def test_grid_neighbours_equals_the_definition():
    rows, cols = 3, 5
    near = grid_neighbours((rows, cols))
    for a in range(15):
        for b in range(15):
            (ra, ca), (rb, cb) = divmod(a, cols), divmod(b, cols)
            assert bool(near[a, b]) == (abs(ra - rb) + abs(ca - cb) == 1)
    assert near.sum().item() == 2 * (rows * (cols - 1) + cols * (rows - 1))  # 22 pairs, both ways
    assert torch.equal(grid_neighbours(3), grid_neighbours((3, 3)))  # one int: a square grid


def _loop_wins_and_contrast(sim, margin):
    rows, cols = sim.shape[:2]
    wins = torch.zeros(rows, cols, dtype=torch.bool)
    contrast = torch.zeros(rows, cols, dtype=torch.float64)
    for r in range(rows):
        for c in range(cols):
            near, far = [], []
            for r2 in range(rows):
                for c2 in range(cols):
                    if (r2, c2) != (r, c):
                        steps = abs(r - r2) + abs(c - c2)
                        (near if steps == 1 else far).append(float(sim[r, c, r2, c2]))
            wins[r, c] = max(near) > max(far) + margin
            contrast[r, c] = sum(near) / len(near) - sum(far) / len(far)
    return wins, contrast


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_neighbour_wins_and_contrast_equal_a_loop(seed):
    sim = grid_similarity(torch.randn(12, 6, generator=torch.Generator().manual_seed(seed)), (3, 4))
    wins, contrast = _loop_wins_and_contrast(sim, 1e-3)
    assert torch.equal(neighbour_wins(sim), wins)
    assert torch.allclose(neighbour_contrast(sim), contrast, atol=1e-6)


def test_the_1d_table_fails_at_the_row_ends_and_the_2d_table_nowhere():
    wins_1d = neighbour_wins(grid_similarity(sinusoid_encoding(15, 32), (3, 5)))
    assert [int(i) + 1 for i in (~wins_1d).flatten().nonzero()[:, 0]] == [5, 6, 10, 11]
    assert neighbour_wins(grid_similarity(sinusoid_encoding_2d((3, 5), 32), (3, 5))).all()


@pytest.mark.parametrize("sigma", [0.0, 0.5, 1.0, 2.0])
def test_position_targets_equal_the_definition(sigma):
    rows, cols = 3, 5
    row_targets, col_targets = position_targets((rows, cols), sigma)
    assert row_targets.shape == (15, 3) and col_targets.shape == (15, 5)
    for patch in range(15):
        r, c = divmod(patch, cols)
        for targets, where, size in ((row_targets, r, rows), (col_targets, c, cols)):
            if sigma == 0:
                weights = [1.0 if i == where else 0.0 for i in range(size)]
            else:
                weights = [math.exp(-((i - where) ** 2) / (2 * sigma**2)) for i in range(size)]
            expected = torch.tensor(weights) / sum(weights)
            assert torch.allclose(targets[patch], expected, atol=1e-6)


def _where_vit(**kwargs):
    torch.manual_seed(0)
    options = {
        "img_size": (20, 30),
        "patch_size": 10,
        "num_classes": 5,
        "embed_dim": 16,
        "depth": 1,
        "num_heads": 2,
        "pos_embed": "learned",
    }
    return ViT(**{**options, **kwargs})


def test_token_position_logits_is_the_head_on_every_patch_token():
    model = _where_vit().eval()
    x = torch.randn(4, 1, 20, 30)
    logits = token_position_logits(model, x)
    assert logits.shape == (4, 6, 5)
    with torch.no_grad():
        assert torch.allclose(model(x), model.head(model.forward_features(x)[:, 0]), atol=1e-6)
        assert torch.allclose(logits, model.head(model.forward_features(x))[:, 1:], atol=1e-6)


def test_training_where_am_i_teaches_the_learned_table_the_grid(one_thread):
    model = _where_vit()
    start = model.pos_embed.detach().clone()
    images = torch.rand(64, 1, 20, 30, generator=torch.Generator().manual_seed(1))
    history = train_where_am_i(model, images, (2, 3), epochs=8, batch_size=16, lr=1e-2)
    assert len(history["loss"]) == len(history["accuracy"]) == 8
    # chance is 1 in 6 (2 rows x 3 columns)
    assert history["loss"][-1] < history["loss"][0] and history["accuracy"][-1] > 0.6
    assert not torch.equal(model.pos_embed, start)  # the table itself was trained


def test_a_tiny_sigma_gives_one_hot_targets():
    one_hot = position_targets((3, 5), sigma=0)
    rows, _ = position_targets((3, 5), sigma=0.09)  # exp(-61.7) = 1.6e-27: still a float32
    expected = math.exp(-1 / (2 * 0.09**2)) / (1 + math.exp(-1 / (2 * 0.09**2)))  # row 0's row 1
    assert math.isclose(float(rows[0, 1]), expected, rel_tol=1e-5)
    assert all(
        torch.equal(a, b)
        for a, b in zip(position_targets(3), position_targets((3, 3), 1.0), strict=True)
    )
    for sigma in (1e-200, 1e-3):
        rows, cols = position_targets((3, 5), sigma=sigma)
        assert torch.equal(rows, one_hot[0]) and torch.equal(cols, one_hot[1])
    rows, _ = position_targets((3, 5), sigma=0.05)  # exp(-200) is not 0 in float64 ...
    assert torch.equal(rows, one_hot[0])  # ... but it is in the float32 result


def test_neighbour_checks_refuse_grids_without_a_contrast():
    with pytest.raises(ValueError, match="1 x 2 grid, where some patch has no neighbour"):
        neighbour_contrast(torch.ones(1, 2, 1, 2))
    # 1 x 3: the middle patch has neighbours but no other patch (the ends have both)
    message = (
        "similarity is of a 1 x 3 grid, where some patch has no neighbour or no other patch to "
        "compare with: the grid needs at least 2 x 2 or 1 x 4 patches"
    )
    with pytest.raises(ValueError, match=f"^{message}$"):
        neighbour_contrast(torch.ones(1, 3, 1, 3))
    with pytest.raises(ValueError, match="1 x 1 grid, where some patch has no neighbour"):
        neighbour_wins(torch.ones(1, 1, 1, 1))
    assert neighbour_contrast(grid_similarity(torch.randn(4, 8), 2)).isfinite().all()  # 2 x 2


def test_where_am_i_is_adam_on_the_row_and_column_cross_entropy():
    """Full batches: the loss of epoch 1 is the row cross-entropy plus the column one against
    the one-hot (sigma 0) or soft answers; that of epoch 2 follows one step of PyTorch's Adam
    (no weight decay); the accuracy counts the tokens whose row and column are both right."""
    images = torch.rand(6, 1, 20, 30, generator=torch.Generator().manual_seed(2))
    true_rows, true_cols = torch.arange(6) // 3, torch.arange(6) % 3  # of each patch token

    def loss_by_hand(model, sigma):
        logits = token_position_logits(model, images).flatten(0, 1)  # (6 * 6 tokens, 2 + 3)
        rows, cols = (true_rows.repeat(6), true_cols.repeat(6))
        if sigma > 0:
            soft_rows, soft_cols = position_targets((2, 3), sigma)
            rows, cols = soft_rows.repeat(6, 1), soft_cols.repeat(6, 1)
        return F.cross_entropy(logits[:, :2], rows) + F.cross_entropy(logits[:, 2:], cols)

    for sigma in (0.0, 0.5):
        reference = _where_vit()
        adam = torch.optim.Adam(reference.parameters(), lr=1e-2)
        first = loss_by_hand(reference, sigma)
        first.backward()
        adam.step()
        with torch.no_grad():
            second = loss_by_hand(reference, sigma)
        model = _where_vit()
        history = train_where_am_i(model, images, (2, 3), sigma, epochs=2, batch_size=6, lr=1e-2)
        assert math.isclose(history["loss"][0], first.item(), rel_tol=1e-5)
        assert math.isclose(history["loss"][1], float(second), rel_tol=1e-4)
        with torch.no_grad():
            logits = token_position_logits(model, images)  # the trained model, (6, 6, 5)
        right = (logits[..., :2].argmax(-1) == true_rows) & (
            logits[..., 2:].argmax(-1) == true_cols
        )
        assert history["accuracy"][-1] == right.double().mean().item()
    with pytest.raises(ValueError, match="^a 2 x 3 grid needs a model with 5 outputs$"):
        train_where_am_i(_where_vit(num_classes=4), images, (2, 3))


def test_where_am_i_seed_orders_the_batches_only():
    """Batches of 4 of 8 pictures: another seed, another history; one full batch: the order
    does not matter, so the seed changes nothing (it is no weight decay)."""
    images = torch.rand(8, 1, 4, 4, generator=torch.Generator().manual_seed(4))
    tiny = {"img_size": 4, "patch_size": 2, "num_classes": 4}

    def run(seed, batch_size):
        h = train_where_am_i(
            _where_vit(**tiny), images, 2, epochs=2, batch_size=batch_size, seed=seed
        )
        return torch.tensor(h["loss"])

    assert not torch.allclose(run(0, 4), run(5, 4), rtol=1e-4)
    assert torch.allclose(run(0, 8), run(5, 8), rtol=1e-5)


def test_where_am_i_defaults_are_the_notebooks(one_thread):
    """Notebook 07 leaves the batch size and the seed to their defaults: 12 epochs of batches of
    32 in the order of seed 0, sigma 1, lr 3e-3 (33 pictures: a batch of 32 and one of 1)."""
    images = torch.rand(33, 1, 4, 4, generator=torch.Generator().manual_seed(3))
    square = {"img_size": 4, "patch_size": 2, "num_classes": 4}  # 2 x 2: one int is a square
    default = train_where_am_i(_where_vit(**square), images, 2)
    options = {"sigma": 1.0, "epochs": 12, "batch_size": 32, "lr": 3e-3, "seed": 0}
    assert default == train_where_am_i(_where_vit(**square), images, (2, 2), **options)
