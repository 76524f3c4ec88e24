"""Patch tokenization (notebook 01): an image becomes a sequence of flattened patches.

An image of H x W pixels cut into P x P patches gives N = (H / P) * (W / P) tokens of length
C * P * P. The order is row-major (left to right, then top to bottom), the order ``nn.Unfold``
uses, and inside a token the channel is the slowest axis, then the patch row, then the patch column.
"""

from __future__ import annotations

import numpy as np
import torch
from einops import rearrange
from torch import nn


def _check_patch_size(patch_size: int, height: int, width: int) -> None:
    """Refuse a patch size that does not tile an image of height x width, naming the side."""
    if not isinstance(patch_size, int | np.integer) or patch_size < 1:
        raise ValueError(f"patch_size must be a positive int, got {patch_size!r}")
    for side, size in (("height", height), ("width", width)):
        if size % patch_size:
            raise ValueError(
                f"patch_size {patch_size} does not divide the image {side} {size} "
                f"({size} = {size // patch_size} * {patch_size} + {size % patch_size})"
            )


__all__ = [
    "one_hot_patch_kernels",
    "PatchEmbed",
    "patchify",
    "patchify_by_conv",
    "patchify_by_slicing",
    "scramble_patches",
    "unpatchify",
]


def patchify(x: torch.Tensor, patch_size: int) -> torch.Tensor:
    """Cut a batch of images into non-overlapping patches and flatten each into a token.

    Equal to ``nn.Unfold(P, stride=P)(x).transpose(1, 2)``.

    Args:
        x: images, shape (B, C, H, W); H and W must be multiples of ``patch_size``.
        patch_size: side P of the square patches.

    Returns:
        Tokens of shape (B, N, C * P * P) with N = (H / P) * (W / P), patches in row-major order.
    """
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.ndim != 4:
        raise ValueError(f"x must have 4 dimensions (B, C, H, W), got shape {tuple(x.shape)}")
    _check_patch_size(patch_size, *x.shape[-2:])
    # (B, C, H, W) -> (B, N, C*P*P): grid row h and column w make the token index, the channel
    # and the pixel offset (p1, p2) inside the patch make the token's features.
    return rearrange(x, "b c (h p1) (w p2) -> b (h w) (c p1 p2)", p1=patch_size, p2=patch_size)


def unpatchify(
    tokens: torch.Tensor, img_size: int | tuple[int, int], patch_size: int
) -> torch.Tensor:
    """Put tokens made by :func:`patchify` back together into images.

    Args:
        tokens: shape (B, N, C * P * P).
        img_size: (H, W) of the images, or one int for square images.
        patch_size: side P of the patches.

    Returns:
        Images of shape (B, C, H, W).
    """
    rows = (img_size if isinstance(img_size, int) else img_size[0]) // patch_size
    return rearrange(
        tokens, "b (h w) (c p1 p2) -> b c (h p1) (w p2)", h=rows, p1=patch_size, p2=patch_size
    )


def scramble_patches(image: np.ndarray, patch_size: int, order) -> np.ndarray:
    """Rearrange the patches of an image: patch i of the result is patch ``order[i]`` of the input.

    Args:
        image: array of shape (H, W).
        patch_size: side P of the patches; must divide H and W.
        order: a permutation of ``range(N)``, N = (H / P) * (W / P), 0-based, row-major.

    Returns:
        Array of shape (H, W), same dtype as ``image``.
    """
    image, order = np.asarray(image), np.asarray(order)
    _check_patch_size(patch_size, *image.shape)
    rows = image.shape[0] // patch_size
    count = rows * (image.shape[1] // patch_size)
    if order.shape != (count,) or not np.array_equal(np.sort(order), np.arange(count)):
        raise ValueError(f"order must be a permutation of range({count}), got {order.tolist()}")
    patches = rearrange(image, "(h p1) (w p2) -> (h w) p1 p2", p1=patch_size, p2=patch_size)
    return rearrange(patches[order], "(h w) p1 p2 -> (h p1) (w p2)", h=rows)


class PatchEmbed(nn.Module):
    """Patchify an image and project each token linearly to the embedding dimension.

    ``proj`` is an ``nn.Linear(C*P*P, D)`` on the patchified image; timm's Conv2d with kernel and
    stride P holds the same numbers, reshaped: ``conv.weight == proj.weight.view(D, C, P, P)``.

    Args:
        img_size: (H, W) of the input images, or one int for square images.
        patch_size: side P of the patches; must divide H and W.
        in_chans: channels C of the input images.
        embed_dim: length D of the output tokens.
    """

    def __init__(
        self,
        img_size: int | tuple[int, int],
        patch_size: int,
        in_chans: int = 1,
        embed_dim: int = 768,
    ) -> None:
        super().__init__()
        img_size = (img_size, img_size) if isinstance(img_size, int) else tuple(img_size)
        _check_patch_size(patch_size, *img_size)
        self.img_size, self.patch_size, self.in_chans = img_size, patch_size, in_chans
        self.grid_size = (img_size[0] // patch_size, img_size[1] // patch_size)
        self.num_tokens = self.grid_size[0] * self.grid_size[1]
        self.proj = nn.Linear(in_chans * patch_size * patch_size, embed_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Embed a batch of images.

        Args:
            x: images, shape (B, C, H, W).

        Returns:
            Tokens of shape (B, N, D).
        """
        (h, w), c = self.img_size, self.in_chans
        if x.ndim != 4 or x.shape[1:] != (c, h, w):
            raise ValueError(
                f"x has shape {tuple(x.shape)}, but the model expects (B, {c}, {h}, {w})"
            )
        return self.proj(patchify(x, self.patch_size))  # (B, N, C*P*P) -> (B, N, D)


# Other ways to cut the same tokens (notebook 01 shows that they all agree with `patchify`).


def patchify_by_slicing(x: torch.Tensor, patch_size: int) -> torch.Tensor:
    """Cut patches the slow, obvious way: two loops over the grid and array slicing.

    The definition that :func:`patchify` implements in one ``rearrange``; kept readable on purpose.

    Args:
        x: images, shape (B, C, H, W); H and W must be multiples of ``patch_size``.
        patch_size: side P of the square patches.

    Returns:
        Tokens of shape (B, N, C * P * P), patches in row-major order, equal to ``patchify(x, P)``.
    """
    batch, _, height, width = x.shape
    tokens = []
    for top in range(0, height, patch_size):  # grid rows, top to bottom
        for left in range(0, width, patch_size):  # grid columns, left to right
            patch = x[:, :, top : top + patch_size, left : left + patch_size]  # (B, C, P, P)
            tokens.append(patch.reshape(batch, -1))  # (B, C*P*P): channel, patch row, column
    return torch.stack(tokens, dim=1)  # (B, N, C*P*P)


def one_hot_patch_kernels(in_chans: int, patch_size: int) -> torch.Tensor:
    """Convolution kernels that copy one pixel of a patch each: a Conv2d with them tokenizes.

    Kernel k = (c * P + i) * P + j holds a single 1, at channel c, row i, column j; so output
    channel k of a convolution with kernel size and stride P is feature k of every token.

    Args:
        in_chans: channels C of the images.
        patch_size: side P of the patches.

    Returns:
        Float tensor of shape (C * P * P, C, P, P), the weight layout of ``nn.Conv2d``.
    """
    length = in_chans * patch_size * patch_size
    return torch.eye(length).view(length, in_chans, patch_size, patch_size)  # (C*P*P, C, P, P)


def patchify_by_conv(x: torch.Tensor, patch_size: int) -> torch.Tensor:
    """Tokenize with a strided convolution: kernel size = stride = P, one-hot kernels, no bias.

    Args:
        x: floating-point images, shape (B, C, H, W); H and W must be multiples of ``patch_size``.
        patch_size: side P of the square patches.

    Returns:
        Tokens of shape (B, N, C * P * P), equal to ``patchify(x, P)``.
    """
    _check_patch_size(patch_size, *x.shape[-2:])
    kernels = one_hot_patch_kernels(x.shape[1], patch_size).to(x)  # (C*P*P, C, P, P)
    out = nn.functional.conv2d(x, kernels, stride=patch_size)  # (B, C*P*P, H/P, W/P)
    return out.flatten(2).transpose(1, 2)  # (B, N, C*P*P)
