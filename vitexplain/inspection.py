"""Looking inside a model (notebooks 05, 06, 08): shapes on the way, parameters, attention maps."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

from .attention import Attention

__all__ = [
    "attention_by_origin",
    "attention_maps",
    "check_shape",
    "class_token_attention",
    "count_parameters",
    "trace_shapes",
]


def check_shape(
    name: str, tensor: torch.Tensor, shape: Sequence[int], show: bool = True
) -> torch.Tensor:
    """Check that a tensor has the expected shape, print one line about it, and pass it on.

    Made for following a batch through a model stage by stage:
    ``z = check_shape("norm", model.norm(z), (B, N + 1, D))`` checks and shows the stage's shape
    and hands the tensor on, so the walk reads like the forward pass it repeats.

    Args:
        name: what the tensor is, printed left-aligned in 42 characters.
        tensor: the tensor to check.
        shape: the expected shape, one int per dimension.
        show: print ``name`` and the shape (False: check only).

    Returns:
        ``tensor`` itself, unchanged.
    """
    expected = tuple(int(size) for size in shape)
    if tuple(tensor.shape) != expected:
        raise ValueError(f"{name} has shape {tuple(tensor.shape)}, expected {expected}")
    if show:
        print(f"{name:<42} {expected}")
    return tensor


@torch.no_grad()
def attention_maps(model: nn.Module, x: torch.Tensor) -> list[torch.Tensor]:
    """The attention weights of every attention layer of a model, read from outside by hooks.

    A forward hook on each :class:`vitexplain.Attention` (``Block.attn``, T2T's token
    attentions) takes the tokens the layer received and computes its weights with the layer's
    own projection and scale (:meth:`Attention.attention_weights`); the model runs once, in eval
    mode, unchanged (the idea of vit-pytorch's ``Recorder``). The hooks are removed afterwards,
    and the model's training flag is restored.

    Args:
        model: any module holding :class:`vitexplain.Attention` layers, e.g. a ``ViT``.
        x: the model's input, e.g. images of shape (B, C, H, W).

    Returns:
        One tensor per attention layer, in the order the layers ran: shape (B, h, N, N), rows
        summing to 1 (for a ViT, N counts the class token, which comes first).
    """
    layers = [m for m in model.modules() if isinstance(m, Attention)]
    if not layers:
        raise ValueError(f"model ({type(model).__name__}) holds no vitexplain Attention layer")
    return record_attention(model, x, layers)


def record_attention(model: nn.Module, x: torch.Tensor, layers: list[Attention]) -> list:
    """Run ``model`` on ``x`` once and return the weights of each of ``layers``, in run order.

    The one recording hook of the package: it hands the tokens a layer received to
    :meth:`Attention.attention_weights` (the layer's own projection and scale).
    """
    maps: list[torch.Tensor] = []

    def record(layer: Attention, inputs: tuple[torch.Tensor, ...], _output: torch.Tensor) -> None:
        maps.append(layer.attention_weights(inputs[0]))  # (B, h, N, N)

    with torch.no_grad():
        run_with_hooks(model, x, layers, record)
    return maps


def run_with_hooks(
    model: nn.Module, x: torch.Tensor, modules: Sequence[nn.Module], hook: Callable[..., None]
) -> None:
    """Run ``model(x)`` once in eval mode with ``hook`` as a forward hook on ``modules``.

    The hooks are removed and the model's training flag restored afterwards, even on an error:
    the model is left as it was (the reading-from-outside of :func:`attention_maps` and
    :func:`vitexplain.logit_lens`).
    """
    handles = [module.register_forward_hook(hook) for module in modules]
    was_training = model.training
    try:
        model.eval()
        model(x)
    finally:
        model.train(was_training)
        for handle in handles:
            handle.remove()


def class_token_attention(model: nn.Module, images: torch.Tensor, block: int = -1) -> torch.Tensor:
    """How much the class token attends to each patch token, in one block of a ViT.

    Args:
        model: a ViT (its class token first), read by :func:`attention_maps`.
        images: shape (B, C, H, W).
        block: which block (Python index: -1 is the last).

    Returns:
        Tensor of shape (B, h, N): row 0 of the block's attention weights without its first
        column, i.e. the weight the class token gives each patch token (the rest of the row, the
        weight it gives itself, is ``1 - sum``).
    """
    # Only the blocks' attention: a T2TViT's token attentions come first and have no class token.
    weights = record_attention(model, images, [blk.attn for blk in model.blocks])
    return weights[block][:, :, 0, 1:]  # (B, h, N): the class token's row, patch keys


def count_parameters(model: nn.Module) -> dict[str, int]:
    """Number of trainable parameters of each top-level part of a model, and the total.

    Buffers (such as a fixed position embedding) are not parameters and are not counted.

    Args:
        model: any module.

    Returns:
        ``{part: count}`` in registration order (a top-level parameter such as ``cls_token`` is
        its own part), then ``"total"``. Works on the meta device (no memory is allocated).
    """
    counts: dict[str, int] = {}
    for name, parameter in model.named_parameters():
        if parameter.requires_grad:
            part = name.split(".")[0]
            counts[part] = counts.get(part, 0) + parameter.numel()
    counts["total"] = sum(counts.values())
    return counts


def attention_by_origin(
    weights: torch.Tensor, orders: torch.Tensor, grid_size: int | tuple[int, int]
) -> torch.Tensor:
    """Mean attention a patch receives, by the grid row it sits in and the grid row it came from.

    For scrambled pictures this separates "where a patch is" from "what it is": entry [r, s] is
    the mean weight over all (picture, position) pairs whose position lies in grid row r and whose
    patch was taken from grid row s of the intact picture.

    Args:
        weights: attention to each patch position, shape (B, N), e.g. the class token's weights
            averaged over heads (``class_token_attention(model, x).mean(1)``).
        orders: shape (B, N), int: position i of picture b holds original patch ``orders[b, i]``
            (0-based, row-major), as returned by :func:`~vitexplain.scramble.make_scramble_dataset`.
        grid_size: (rows, cols) of the patch grid, rows * cols = N (one int: a square grid).

    Returns:
        float64 tensor of shape (rows, rows); NaN where no pair falls in a cell.
    """
    rows, cols = (grid_size, grid_size) if isinstance(grid_size, int) else grid_size
    sits = (torch.arange(rows * cols) // cols).expand_as(orders)  # (B, N): row of the position
    came = orders.long() // cols  # (B, N): row the patch came from
    cell = (sits * rows + came).flatten()  # (B*N,): index into the (rows, rows) table
    total = torch.zeros(rows * rows, dtype=torch.float64).index_add_(
        0, cell, weights.flatten().double()
    )
    count = torch.zeros(rows * rows, dtype=torch.float64).index_add_(
        0, cell, torch.ones(cell.shape, dtype=torch.float64)
    )
    return (total / count).reshape(rows, rows)  # 0 / 0 = NaN where no pair falls


def trace_shapes(
    model: nn.Module, x: torch.Tensor, names: Sequence[str]
) -> dict[str, tuple[int, ...]]:
    """Run ``model(x)`` once and record the output shape of each named submodule.

    Forward hooks watch the submodules (:func:`run_with_hooks`: one run in eval mode, under
    ``torch.inference_mode()``); the hooks are removed and the training flag restored afterwards.

    Args:
        model: the module to run.
        x: its input, e.g. images (B, C, H, W).
        names: dotted names of submodules, as in ``model.named_modules()`` (e.g. "soft_split0",
            "blocks.0").

    Returns:
        {name: output shape}, in the order the submodules ran.
    """
    known = dict(model.named_modules())
    missing = [name for name in names if name not in known]
    if missing:
        raise ValueError(f"names: model has no submodules named {missing}")
    modules = [known[name] for name in names]
    shapes: dict[str, tuple[int, ...]] = {}
    names_of: dict[int, list[str]] = {}
    for name, module in zip(names, modules, strict=True):
        names_of.setdefault(id(module), []).append(name)

    def record(module: nn.Module, _inputs: tuple, output: torch.Tensor) -> None:
        for name in names_of[id(module)]:  # returns None: the output passes unchanged
            shapes.setdefault(name, tuple(output.shape))

    unique = list({id(m): m for m in modules}.values())  # one hook per module
    with torch.inference_mode():
        run_with_hooks(model, x, unique, record)
    return shapes
