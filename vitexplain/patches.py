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

from ._checks import check_divides, check_image_batch, check_int, check_size2, check_tensor

__all__ = [
    "count_tokens",
    "fold_tokens",
    "one_hot_patch_kernels",
    "overlap_count",
    "patch_embed_to_conv",
    "PatchEmbed",
    "patchify",
    "patchify_by_conv",
    "patchify_by_slicing",
    "scramble_patches",
    "soft_split_boxes",
    "unpatchify",
]


def count_tokens(h: int, w: int, k: int, s: int, p: int) -> tuple[int, int, int]:
    """Count the patches that ``nn.Unfold(k, stride=s, padding=p)`` cuts from an h x w image.

    Along each side, a kernel of size k slides with stride s over the side padded by p on both ends:
    ``rows = (h + 2p - k) // s + 1`` and ``cols = (w + 2p - k) // s + 1``.

    Args:
        h: image height.
        w: image width.
        k: kernel (patch) size.
        s: stride.
        p: zero padding added on every side.

    Returns:
        (rows, cols, total) with total = rows * cols.
    """
    h, w = check_int("h", h), check_int("w", w)
    k, s, p = check_int("k", k), check_int("s", s), check_int("p", p, minimum=0)
    for side, size in (("height", h), ("width", w)):
        if k > size + 2 * p:
            raise ValueError(
                f"kernel k={k} is larger than the padded image {side} "
                f"{size} + 2*{p} = {size + 2 * p}"
            )
    rows = (h + 2 * p - k) // s + 1
    cols = (w + 2 * p - k) // s + 1
    return rows, cols, rows * cols


def patchify(x: torch.Tensor, patch_size: int) -> torch.Tensor:
    """Cut a batch of images into non-overlapping patches and flatten each into a token.

    Equal to ``nn.Unfold(P, stride=P)(x).transpose(1, 2)``.

    Args:
        x: images, shape (B, C, H, W); H and W must be multiples of ``patch_size``.
        patch_size: side P of the square patches.

    Returns:
        Tokens of shape (B, N, C * P * P) with N = (H / P) * (W / P), patches in row-major order.
    """
    x = check_tensor("x", x, ndim=4)
    patch_size = check_int("patch_size", patch_size)
    check_divides("patch_size", patch_size, x.shape[-2], x.shape[-1])
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
    tokens = check_tensor("tokens", tokens, ndim=3)
    height, width = check_size2("img_size", img_size)
    patch_size = check_int("patch_size", patch_size)
    check_divides("patch_size", patch_size, height, width)
    rows, cols = height // patch_size, width // patch_size
    n, length = tokens.shape[1:]
    if n != rows * cols:
        raise ValueError(
            f"{n} tokens do not match a {rows} x {cols} grid of {patch_size}-pixel patches "
            f"of a {height} x {width} image"
        )
    if length % (patch_size * patch_size):
        raise ValueError(
            f"token length {length} is not a multiple of patch_size**2 = {patch_size**2}"
        )
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
    image = np.asarray(image)
    if image.ndim != 2:
        raise ValueError(f"image must have shape (H, W), got shape {image.shape}")
    patch_size = check_int("patch_size", patch_size)
    check_divides("patch_size", patch_size, *image.shape)
    rows, cols = image.shape[0] // patch_size, image.shape[1] // patch_size
    order = np.asarray(order)
    if order.shape != (rows * cols,) or not np.array_equal(np.sort(order), np.arange(rows * cols)):
        raise ValueError(
            f"order must be a permutation of range({rows * cols}) for the {rows} x {cols} patch "
            f"grid, got {order.tolist()}"
        )
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
        self.img_size = check_size2("img_size", img_size)
        self.patch_size = check_int("patch_size", patch_size)
        self.in_chans = check_int("in_chans", in_chans)
        embed_dim = check_int("embed_dim", embed_dim)
        check_divides("patch_size", self.patch_size, *self.img_size)
        self.grid_size = (self.img_size[0] // patch_size, self.img_size[1] // patch_size)
        self.num_tokens = self.grid_size[0] * self.grid_size[1]
        self.proj = nn.Linear(in_chans * patch_size * patch_size, embed_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Embed a batch of images.

        Args:
            x: images, shape (B, C, H, W).

        Returns:
            Tokens of shape (B, N, D).
        """
        x = check_image_batch(x, self.in_chans, self.img_size)
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
    x = check_tensor("x", x, ndim=4)
    patch_size = check_int("patch_size", patch_size)
    batch, _, height, width = x.shape
    check_divides("patch_size", patch_size, height, width)
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
    in_chans = check_int("in_chans", in_chans)
    patch_size = check_int("patch_size", patch_size)
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
    x = check_tensor("x", x, ndim=4)
    if not x.is_floating_point():
        raise TypeError(f"x must be a floating-point tensor for a convolution, got dtype {x.dtype}")
    patch_size = check_int("patch_size", patch_size)
    check_divides("patch_size", patch_size, x.shape[-2], x.shape[-1])
    kernels = one_hot_patch_kernels(x.shape[1], patch_size).to(x)  # (C*P*P, C, P, P)
    out = nn.functional.conv2d(x, kernels, stride=patch_size)  # (B, C*P*P, H/P, W/P)
    return out.flatten(2).transpose(1, 2)  # (B, N, C*P*P)


def patch_embed_to_conv(embed: PatchEmbed) -> nn.Conv2d:
    """Build the Conv2d patch embedding of timm / the ViT paper holding a PatchEmbed's numbers.

    timm's ``PatchEmbed.proj`` is ``nn.Conv2d(C, D, kernel_size=P, stride=P)``; its weight is
    ``embed.proj.weight.view(D, C, P, P)`` and its bias ``embed.proj.bias``. The result is a copy:
    changing it leaves ``embed`` alone.

    Args:
        embed: the patch embedding to convert.

    Returns:
        ``nn.Conv2d`` with ``conv(x).flatten(2).transpose(1, 2)`` equal to ``embed(x)`` (up to float
        rounding), shapes (B, C, H, W) -> (B, D, H/P, W/P) -> (B, N, D).
    """
    if not isinstance(embed, PatchEmbed):
        raise TypeError(f"embed must be a vitexplain.PatchEmbed, got {type(embed).__name__}")
    size, chans, dim = embed.patch_size, embed.in_chans, embed.proj.out_features
    conv = nn.Conv2d(chans, dim, kernel_size=size, stride=size)
    conv = conv.to(embed.proj.weight)
    with torch.no_grad():
        conv.weight.copy_(embed.proj.weight.view(dim, chans, size, size))  # (D, C, P, P)
        conv.bias.copy_(embed.proj.bias)  # (D,)
    return conv


# --- soft-split geometry (notebook 05): where nn.Unfold's patches sit, how to fold them back ---


def soft_split_boxes(h: int, w: int, k: int, s: int, p: int) -> list[tuple[int, int]]:
    """Where each patch of ``nn.Unfold(k, stride=s, padding=p)`` sits in the padded image.

    Args:
        h: image height (before padding).
        w: image width (before padding).
        k: kernel (patch) size.
        s: stride.
        p: zero padding added on every side.

    Returns:
        One (top, left) pair per patch, in token order (row-major), in pixels of the padded
        (h + 2p) x (w + 2p) image; patch n covers rows top .. top + k - 1 and columns
        left .. left + k - 1.
    """
    rows, cols, _ = count_tokens(h, w, k, s, p)  # validates the arguments
    return [(r * s, c * s) for r in range(rows) for c in range(cols)]


def overlap_count(
    h: int, w: int, k: int, s: int, p: int, num_patches: int | None = None
) -> torch.Tensor:
    """Count how many patches of ``nn.Unfold(k, stride=s, padding=p)`` contain each pixel.

    It is ``nn.Fold`` applied to tokens of ones: every patch adds 1 to the pixels it covers.
    A pixel with count 0 belongs to no patch (the stride skipped it).

    Args:
        h: image height (before padding).
        w: image width (before padding).
        k: kernel (patch) size.
        s: stride.
        p: zero padding added on every side.
        num_patches: count only the first this many patches (token order); all when None.

    Returns:
        Float tensor of shape (h, w).
    """
    _, _, n = count_tokens(h, w, k, s, p)
    ones = torch.ones(1, k * k, n)  # (1, k*k, N): one channel, N patches of ones
    if num_patches is not None:
        ones[..., check_int("num_patches", num_patches, minimum=0) :] = 0
    return nn.Fold((h, w), k, stride=s, padding=p)(ones)[0, 0]  # (h, w)


def fold_tokens(tokens: torch.Tensor, h: int, w: int, k: int, s: int, p: int) -> torch.Tensor:
    """Put soft-split tokens back together into images, averaging where patches overlap.

    ``nn.Fold`` with the same k, s, p adds every token back at its place (overlaps summed; it is
    the adjoint of ``nn.Unfold``, not its inverse); dividing by :func:`overlap_count` undoes the
    sum, so ``fold_tokens(nn.Unfold(k, stride=s, padding=p)(x).transpose(1, 2), h, w, k, s, p)``
    is x again, provided every pixel lies in at least one patch.

    Args:
        tokens: shape (B, N, C * k * k), N the number of patches the split makes.
        h: image height.
        w: image width.
        k: kernel (patch) size.
        s: stride.
        p: zero padding added on every side.

    Returns:
        Images of shape (B, C, h, w).
    """
    tokens = check_tensor("tokens", tokens, ndim=3)
    rows, cols, n = count_tokens(h, w, k, s, p)
    if tokens.shape[1] != n:
        raise ValueError(
            f"tokens holds {tokens.shape[1]} tokens, but a soft split with k={k}, s={s}, p={p} "
            f"makes {rows} x {cols} = {n} of a {h} x {w} image"
        )
    if tokens.shape[2] % (k * k):
        raise ValueError(f"token length {tokens.shape[2]} is not a multiple of k*k = {k * k}")
    counts = overlap_count(h, w, k, s, p).to(tokens.dtype)  # (h, w)
    if (counts == 0).any():
        raise ValueError(
            f"{int((counts == 0).sum())} pixels lie in no patch (k={k}, s={s}, p={p}): "
            "they cannot be recovered"
        )
    summed = nn.Fold((h, w), k, stride=s, padding=p)(tokens.transpose(1, 2))  # (B, C, h, w)
    return summed / counts
