"""vitexplain.scramble: the intact-or-scrambled data set of notebook 06."""

import numpy as np
import pytest
import torch

from vitexplain import (
    filled_patch_outputs,
    load_mountains,
    make_scramble_dataset,
    moved_patch_outputs,
    patchify,
    swap_patches,
    unpatchify,
)


def test_scramble_dataset_is_deterministic_and_balanced():
    images, labels, orders = make_scramble_dataset(20, seed=3, return_orders=True)
    again, labels_again = make_scramble_dataset(20, seed=3)
    other, _ = make_scramble_dataset(20, seed=4)
    assert images.shape == (20, 1, 60, 100) and images.dtype == torch.float32
    assert torch.equal(images, again) and torch.equal(labels, labels_again)
    assert not torch.equal(images, other)
    assert labels.dtype == torch.int64 and labels.tolist() == [0] * 10 + [1] * 10
    assert images.min() >= 0 and images.max() <= 1
    assert orders.shape == (20, 15) and orders.dtype == torch.int64
    assert (orders[:10] == torch.arange(15)).all()  # intact examples keep their order


def test_scrambled_twin_is_a_real_permutation_of_the_noisy_patches():
    images, labels, orders = make_scramble_dataset(16, seed=0, return_orders=True)
    patches = patchify(images, 20)  # (16, 15, 400)
    for k in range(8):
        order = orders[8 + k]
        assert sorted(order.tolist()) == list(range(15)) and order.tolist() != list(range(15))
        assert torch.equal(patches[8 + k], patches[k][order])  # exactly the twin's patches, moved
        # and the same multiset: sorting the patches by their bytes gives the same list
        ours = sorted(p.numpy().tobytes() for p in patches[8 + k])
        assert ours == sorted(p.numpy().tobytes() for p in patches[k])
    assert not torch.equal(images[8], images[0])


def test_a_two_patch_picture_is_always_swapped():
    # with N = 2 the only permutation other than the identity is the swap
    picture = np.arange(20.0).reshape(2, 10) / 20
    images, _, orders = make_scramble_dataset(
        10, seed=0, image=picture, patch_size=2, max_shift=0, noise=0.0, return_orders=True
    )
    with pytest.raises(ValueError, match="nothing to scramble"):
        make_scramble_dataset(2, 0, image=picture[:, :2], patch_size=2)
    assert images.shape == (10, 1, 2, 10) and orders.shape == (10, 5)
    assert all(order.tolist() != list(range(5)) for order in orders[5:])


def test_intact_examples_are_the_picture_shifted_both_ways_and_noised():
    picture = load_mountains()
    images, _ = make_scramble_dataset(4, seed=1, max_shift=0, noise=0.0)
    assert torch.equal(images[0, 0], torch.tensor(picture, dtype=torch.float32))
    shifted, _ = make_scramble_dataset(80, seed=2, max_shift=2, noise=0.0)
    rolls = {
        (dy, dx): np.roll(picture, (dy, dx), axis=(0, 1)).astype(np.float32)
        for dy in range(-2, 3)
        for dx in range(-2, 3)
    }
    seen = set()
    for k in range(40):
        image = shifted[k, 0].numpy()
        matches = [s for s, r in rolls.items() if np.array_equal(image, r)]
        assert matches, f"example {k} is not a circular roll of the picture by at most 2 pixels"
        seen.add(matches[0])
    # the jitter moves the picture down and up, right and left
    assert {dy for dy, _ in seen} == {-2, -1, 0, 1, 2} and {dx for _, dx in seen} == {
        -2,
        -1,
        0,
        1,
        2,
    }
    noisy, _ = make_scramble_dataset(200, seed=5, max_shift=0, noise=0.05)
    residual = noisy[:100, 0].numpy() - picture  # clipping only at 0 and 1
    inside = (picture > 0.2) & (picture < 0.8)
    assert abs(residual[:, inside].std() - 0.05) < 0.002 and abs(residual[:, inside].mean()) < 0.002


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="n must be even .* got 7"):
        make_scramble_dataset(7, 0)
    with pytest.raises(ValueError, match="patch_size 7 does not divide the image height 60"):
        make_scramble_dataset(4, 0, patch_size=7)


def test_swap_patches_exchanges_two_patches_like_slicing():
    images = torch.rand(3, 2, 40, 60)
    swapped = swap_patches(images, 20, 1, 5)  # patch 1: row 0, column 1; patch 5: row 1, column 2
    expected = images.clone()
    expected[..., 0:20, 20:40] = images[..., 20:40, 40:60]
    expected[..., 20:40, 40:60] = images[..., 0:20, 20:40]
    assert torch.equal(swapped, expected) and not torch.equal(swapped, images)
    assert torch.equal(swap_patches(swapped, 20, 5, 1), images)  # its own inverse
    assert torch.equal(swap_patches(images, 20, 4, 4), images)


def _linear_model(pixels: int, outputs: int = 2) -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(pixels, outputs))


def test_moved_patch_outputs_match_a_loop_over_every_patch_and_place():
    images = torch.rand(3, 2, 4, 6)  # 6 patches of 2 x 2 with 2 channels
    model = _linear_model(2 * 4 * 6)
    got = moved_patch_outputs(model, images, 2)
    assert got.shape == (6, 6, 3, 2)
    for k in range(6):
        for p in range(6):
            tokens = patchify(images, 2).clone()  # (3, 6, 8)
            tokens[:, p] = tokens[:, k]  # place p now holds a copy of patch k
            expected = model(unpatchify(tokens, (4, 6), 2))
            assert torch.allclose(got[k, p], expected, atol=1e-6), (k, p)
    assert torch.allclose(got[4, 4], model(images), atol=1e-6)  # k == p: nothing changes


def test_filled_patch_outputs_match_a_loop_over_every_place():
    images = torch.rand(2, 1, 6, 4)
    model = _linear_model(24, outputs=1)
    got = filled_patch_outputs(model, images, 2, value=0.25)
    assert got.shape == (6, 2, 1)
    for p in range(6):
        tokens = patchify(images, 2).clone()
        tokens[:, p] = 0.25
        assert torch.allclose(got[p], model(unpatchify(tokens, (6, 4), 2)), atol=1e-6)
    black = filled_patch_outputs(model, images, 2)  # value 0 by default: a black patch
    tokens = patchify(images, 2).clone()
    tokens[:, 5] = 0
    assert torch.allclose(black[5], model(unpatchify(tokens, (6, 4), 2)), atol=1e-6)


def test_probes_name_bad_arguments():
    images, model = torch.rand(2, 1, 4, 4), _linear_model(16)
    with pytest.raises(ValueError, match="patch_size"):
        moved_patch_outputs(model, images, 3)
