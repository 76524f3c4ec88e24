"""The scramble data set of notebook 06: is the Mountain in order, or are its patches shuffled?

The task is built so that position is the only thing that can solve it. Every example starts from
the same picture, rolled by a few pixels and covered in noise; half of the examples keep their
patches in place, the other half are the *same* noisy pictures with their patches shuffled. An
intact example and its scrambled twin hold the same multiset of patches, so a model that cannot
tell where a patch sits (a ViT without position embedding) cannot do better than a coin.
"""

from __future__ import annotations

import numpy as np
import torch

from .data import load_mountains
from .patches import patchify, scramble_patches, unpatchify

__all__ = ["filled_patch_outputs", "make_scramble_dataset", "moved_patch_outputs", "swap_patches"]


def _jittered_noisy_copies(
    picture: np.ndarray, count: int, max_shift: int, noise: float, rng: np.random.Generator
) -> np.ndarray:
    """``count`` copies of a picture, each rolled by its own random shift and noised.

    Args:
        picture: shape (H, W).
        count: number of copies.
        max_shift: each copy is rolled circularly by a shift drawn uniformly from
            [-max_shift, max_shift] along each axis (negative: up or left).
        noise: standard deviation of the Gaussian noise added to every pixel.
        rng: the random generator (shifts are drawn first, then the noise).

    Returns:
        Array of shape (count, H, W), clipped to [0, 1].
    """
    shifts = rng.integers(-max_shift, max_shift + 1, size=(count, 2))  # (count, 2): rows, columns
    rolled = np.stack([np.roll(picture, tuple(s), axis=(0, 1)) for s in shifts])  # (count, H, W)
    return np.clip(rolled + noise * rng.standard_normal(rolled.shape), 0.0, 1.0)


def _non_identity_orders(num_patches: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` random permutations of ``num_patches`` patches, none of them the identity.

    Args:
        num_patches: N, at least 2.
        count: number of permutations.
        rng: the random generator.

    Returns:
        int64 array of shape (count, N).
    """
    identity = np.arange(num_patches)
    orders = np.empty((count, num_patches), dtype=np.int64)
    for k in range(count):
        order = rng.permutation(num_patches)
        while np.array_equal(order, identity):  # a scrambled example must differ from its twin
            order = rng.permutation(num_patches)
        orders[k] = order
    return orders


def make_scramble_dataset(
    n: int,
    seed: int,
    image: np.ndarray | None = None,
    patch_size: int = 20,
    max_shift: int = 2,
    noise: float = 0.1,
    return_orders: bool = False,
) -> tuple[torch.Tensor, torch.Tensor] | tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Make ``n`` examples of "intact or scrambled?" from one picture, in twins.

    For k < n / 2, example k is the picture rolled circularly by a random shift of -max_shift ...
    max_shift pixels along each axis (rows leaving one edge come back at the other), plus
    Gaussian noise of standard deviation ``noise``, clipped to [0, 1]; its label is 0 (intact).
    Example k + n / 2 is the very same noisy picture with its patches rearranged by a random
    permutation that is not the identity; its label is 1 (scrambled). So the two classes hold
    exactly the same patches, twin by twin; only their places differ. Everything comes from
    ``np.random.default_rng(seed)``: the same seed gives the same data.

    Args:
        n: number of examples, even, at least 2.
        seed: seed of the random generator.
        image: the picture, shape (H, W); the Mountain (60, 100) when None.
        patch_size: side P of the patches that are scrambled; must divide H and W.
        max_shift: largest shift, in pixels, of the jitter along each axis (0: no jitter).
        noise: standard deviation of the Gaussian pixel noise (0: none).
        return_orders: also return the permutation of each example.

    Returns:
        ``(images, labels)``, or ``(images, labels, orders)`` when ``return_orders``:
        images float32 of shape (n, 1, H, W); labels int64 of shape (n,), 0 for the first half
        and 1 for the second; orders int64 of shape (n, N) with N = (H / P) * (W / P): patch i of
        example j is patch ``orders[j, i]`` of the jittered noisy picture (the identity for intact
        examples, 0-based, row-major).
    """
    if n < 2 or n % 2:
        raise ValueError(f"n must be even and at least 2 (intact and scrambled twins), got {n}")
    picture = load_mountains() if image is None else np.asarray(image, dtype=np.float64)
    height, width = picture.shape
    num_patches = (height // patch_size) * (width // patch_size)
    if num_patches < 2:  # no permutation but the identity: nothing to scramble
        raise ValueError(
            f"a {height} x {width} image has 1 patch of side {patch_size}: nothing to scramble"
        )
    rng = np.random.default_rng(seed)
    half = n // 2
    noisy = _jittered_noisy_copies(picture, half, max_shift, noise, rng)  # (n/2, H, W)
    permutations = _non_identity_orders(num_patches, half, rng)  # (n/2, N)
    scrambled = np.stack(
        [scramble_patches(noisy[k], patch_size, permutations[k]) for k in range(half)]
    )  # (n/2, H, W)
    images = torch.from_numpy(np.concatenate([noisy, scrambled])[:, None]).float()  # (n, 1, H, W)
    labels = torch.cat([torch.zeros(half, dtype=torch.int64), torch.ones(half, dtype=torch.int64)])
    if return_orders:
        identity = np.tile(np.arange(num_patches), (half, 1))  # (n/2, N)
        return images, labels, torch.from_numpy(np.concatenate([identity, permutations]))
    return images, labels


def swap_patches(images: torch.Tensor, patch_size: int, a: int, b: int) -> torch.Tensor:
    """The images with two of their patches exchanged: an intervention on what a model sees.

    Swapping one pair and counting how a trained model's verdicts change measures what the model
    relies on, which its attention map alone cannot tell (notebook 06).

    Args:
        images: shape (B, C, H, W).
        patch_size: side P of the patches; must divide H and W.
        a: 0-based index of one patch, in reading order (row by row).
        b: 0-based index of the other patch.

    Returns:
        A new tensor of the images' shape: patch a holds what patch b held, and b what a held.
    """
    tokens = patchify(images, patch_size).clone()  # (B, N, C*P*P)
    tokens[:, [a, b]] = tokens[:, [b, a]]  # exchange the two tokens
    return unpatchify(tokens, tuple(images.shape[-2:]), patch_size)  # (B, C, H, W)


@torch.no_grad()
def moved_patch_outputs(
    model: torch.nn.Module, images: torch.Tensor, patch_size: int
) -> torch.Tensor:
    """The model's outputs with each real patch of each picture moved to each place, one at a time.

    An in-distribution probe: the patch put at a place is one of the picture's own, noise and
    all, so every patch the model sees is one it could have met in training (a scrambled
    training picture holds the same patches in other places). Only the one place changes; the
    patch also stays where it was, so the picture holds it twice.

    Args:
        model: maps images (B, C, H, W) to outputs (B, K).
        images: shape (B, C, H, W).
        patch_size: side P of the patches; must divide H and W. N patches per picture.

    Returns:
        Tensor of shape (N, N, B, K): ``[k, p]`` is the model's output after the patch at place p
        is replaced by a copy of patch k of the same picture (0-based, reading order); the
        diagonal ``[p, p]`` is the output on the unchanged pictures.
    """
    tokens = patchify(images, patch_size)  # (B, N, C*P*P), checks patch_size
    count, size = tokens.shape[1], tuple(images.shape[-2:])
    rows = []
    for k in range(count):
        moved = tokens[None].repeat(count, 1, 1, 1)  # (N places, B, N, C*P*P)
        moved[torch.arange(count), :, torch.arange(count)] = tokens[:, k]  # place p <- patch k
        flat = unpatchify(moved.flatten(0, 1), size, patch_size)  # (N * B, C, H, W)
        rows.append(model(flat).unflatten(0, (count, len(images))))  # (N, B, K)
    return torch.stack(rows)  # (N, N, B, K)


@torch.no_grad()
def filled_patch_outputs(
    model: torch.nn.Module, images: torch.Tensor, patch_size: int, value: float = 0.0
) -> torch.Tensor:
    """The model's outputs with the patch at each place filled with one value, place by place.

    With ``value=0`` this paints a patch black: a probe *outside* the data of notebook 06, whose
    pixels all carry noise (no training patch is uniformly 0). Compare
    :func:`moved_patch_outputs`, which stays inside it.

    Args:
        model: maps images (B, C, H, W) to outputs (B, K).
        images: shape (B, C, H, W).
        patch_size: side P of the patches; must divide H and W. N patches per picture.
        value: the value every pixel of the patch is set to.

    Returns:
        Tensor of shape (N, B, K): ``[p]`` is the output after the patch at place p is filled.
    """
    tokens = patchify(images, patch_size)  # (B, N, C*P*P), checks patch_size
    count, size = tokens.shape[1], tuple(images.shape[-2:])
    filled = tokens[None].repeat(count, 1, 1, 1)  # (N places, B, N, C*P*P)
    filled[torch.arange(count), :, torch.arange(count)] = value
    flat = unpatchify(filled.flatten(0, 1), size, patch_size)  # (N * B, C, H, W)
    return model(flat).unflatten(0, (count, len(images)))  # (N, B, K)
