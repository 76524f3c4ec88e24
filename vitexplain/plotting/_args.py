"""The argument checks of the figure functions (:mod:`vitexplain.plotting`), one per entry point.

``show_digits`` starts with ``images, labels, predictions, ncols = _args.show_digits(...)``, as
the idea modules start with their lines of :mod:`vitexplain._args`; the checkers they share (a
table of attention maps, a similarity matrix, alt text and caption) are imported from there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from .._args import alt_text, caption_text
from .._checks import (
    check_array,
    check_bool,
    check_divides,
    check_elements,
    check_image,
    check_index,
    check_int,
    check_number,
    check_size2,
    check_str,
    describe,
)

# --- plotting/attention.py, relative_position.py, interpret.py: matrices and maps -------------


def _per_matrix(name: str, value: object, count: int) -> list:
    """One entry per panel: ``value`` repeated if None or a string, else checked for length."""
    if value is None or isinstance(value, str):
        return [value] * count
    value = list(value)
    if len(value) != count:
        raise ValueError(f"{name} has {len(value)} entries for {count} matrices")
    return value


def show_matrices(matrices, titles, ncols, rows, cols, cells, xlabel, ylabel) -> tuple:
    """2-D arrays, a panel count per row, and per panel: texts and in-range highlights.

    Returns:
        ``(arrays, ncols, panels)``: one dict of :func:`~vitexplain.plotting.attention.
        matrix_panel` keywords per array.
    """
    arrays = [check_array(f"matrices[{i}]", m, ndim=2) for i, m in enumerate(matrices)]
    if not arrays:
        raise ValueError("matrices is empty: nothing to draw")
    count = len(arrays)
    ncols = count if ncols is None else check_int("ncols", ncols)
    per = {
        "title": _per_matrix("titles", titles, count),
        "xlabel": _per_matrix("xlabel", xlabel, count),
        "ylabel": _per_matrix("ylabel", ylabel, count),
        "rows": _per_matrix("highlight_rows", rows, count),
        "cols": _per_matrix("highlight_cols", cols, count),
        "cells": _per_matrix("highlight_cells", cells, count),
    }
    for n, (height, width) in enumerate(a.shape for a in arrays):
        for i in per["rows"][n] or ():
            check_index(f"highlight_rows[{n}]", i, height, "rows")
        for i in per["cols"][n] or ():
            check_index(f"highlight_cols[{n}]", i, width, "columns")
        for r, c in per["cells"][n] or ():
            check_index(f"highlight_cells[{n}] row", r, height, "rows")
            check_index(f"highlight_cells[{n}] column", c, width, "columns")
    panels = [{key: values[n] for key, values in per.items()} for n in range(count)]
    return arrays, ncols, panels


def show_skew_steps(steps: object, labels: object) -> tuple[list, list]:
    """The six ``(name, tensor)`` steps of ``skew_steps`` on integer codes, and enough labels."""
    if isinstance(steps, str) or not isinstance(steps, Sequence):
        raise TypeError(f"steps must be the list skew_steps returns, got {describe(steps)}")
    if len(steps) != 6:
        raise ValueError(f"steps must hold the 6 steps of skew_steps, got {len(steps)}")
    if not all(isinstance(step, tuple | list) and len(step) == 2 for step in steps):
        raise TypeError("steps must be the (name, tensor) pairs of skew_steps")
    arrays = [check_array(f"steps[{i}]", t) for i, (_, t) in enumerate(steps)]
    if [a.ndim for a in arrays] != [2, 2, 1, 1, 2, 2]:
        raise ValueError(
            f"steps must come from skew_steps on an (L, 2L-1) tensor without leading dims, got "
            f"shapes {[a.shape for a in arrays]}"
        )
    if arrays[0].dtype.kind not in "iu":
        raise TypeError(
            f"steps must be skew_steps of integer codes (1, 2, ... for the cells, 0 for the "
            f"padding), got dtype {arrays[0].dtype}"
        )
    if labels is None:
        labels = [str(v) for v in range(1, arrays[0].size + 1)]
    if len(labels) < int(arrays[0].max()):
        raise ValueError(f"labels has {len(labels)} entries, the codes go up to {arrays[0].max()}")
    return arrays, list(labels)


def class_token_maps(image: object, maps: object, grid_size: object) -> tuple:
    """One picture (H, W) or (1, H, W), its maps as an array (depth, h, N, N), N = 1 + grid."""
    if isinstance(maps, list | tuple):
        if not maps:
            raise ValueError("maps is an empty list: give one (h, N, N) map per block")
        layers = [check_array(f"maps[{i}]", m, ndim=(3, 4)) for i, m in enumerate(maps)]
        for i, layer in enumerate(layers):
            if layer.ndim == 4 and layer.shape[0] != 1:
                raise ValueError(
                    f"maps[{i}] holds {layer.shape[0]} pictures (shape {layer.shape}); the figure "
                    "is of one picture: pass [m[j:j + 1] for m in maps] for picture j"
                )
        layers = [layer[0] if layer.ndim == 4 else layer for layer in layers]
        if len({layer.shape for layer in layers}) != 1:
            raise ValueError(f"maps must share one shape, got {[m.shape for m in layers]}")
        maps = np.stack(layers)  # (depth, h, N, N)
    else:
        maps = check_array("maps", maps, ndim=4)
    rows, cols = check_size2("grid_size", grid_size)
    depth, heads, n, n2 = maps.shape
    if n != n2 or n != 1 + rows * cols:
        raise ValueError(
            f"maps must have shape (depth, h, N, N) with N = 1 + {rows} x {cols} (class token "
            f"and grid_size patches), got {maps.shape}"
        )
    image = check_array("image", image, ndim=(2, 3))
    if image.ndim == 3:
        if image.shape[0] != 1:
            raise ValueError(f"image must have shape (H, W) or (1, H, W), got {image.shape}")
        image = image[0]
    return image, maps, rows, cols


# --- plotting/scramble.py ---------------------------------------------------------------------


def _vmax(vmax: object) -> float | None:
    return None if vmax is None else check_number("vmax", vmax, minimum=0, inclusive=False)


def show_scramble_examples(images, labels, orders, ncols, class_names, by_column) -> tuple:
    """Images (n, H, W) (or (n, 1, H, W)), n labels that index ``class_names``, n orders."""
    images, orders = check_array("images", images), check_array("orders", orders)
    labels = [int(c) for c in check_array("labels", labels)]
    if images.ndim == 4 and images.shape[1] == 1:
        images = images[:, 0]  # (n, H, W)
    if images.ndim != 3:
        raise ValueError(f"images must have shape (n, H, W) or (n, 1, H, W), got {images.shape}")
    n = len(images)
    if len(labels) != n or len(orders) != n:
        raise ValueError(
            f"{n} images need {n} labels and orders, got {len(labels)} and {len(orders)}"
        )
    if any(not 0 <= c < len(class_names) for c in labels):
        raise ValueError(f"labels must index class_names {list(class_names)}, got {labels}")
    return images, labels, orders, check_int("ncols", ncols), check_bool("by_column", by_column)


def show_training_curves(histories: object, chance: object) -> tuple:
    """A non-empty {name: history} of train_classifier's histories, with equal-length lists."""
    if not isinstance(histories, Mapping):
        raise TypeError(
            "histories must be a dict {run name: history} (e.g. {'ViT': history}), got "
            f"{describe(histories)}"
        )
    if not histories:
        raise ValueError("histories is empty: give at least one training run")
    needed = ("epoch", "loss", "train_accuracy", "test_accuracy")
    for name, history in histories.items():
        if not isinstance(history, Mapping):
            raise TypeError(
                f"histories[{name!r}] must be a history dict (train_classifier's), got "
                f"{describe(history)}"
            )
        missing = [key for key in needed if key not in history]
        if missing:
            raise ValueError(f"histories[{name!r}] lacks {missing}")
        lengths = {key: len(history[key]) for key in needed}
        if len(set(lengths.values())) != 1:
            raise ValueError(f"histories[{name!r}] has lists of unequal lengths: {lengths}")
    return histories, check_number("chance", chance, minimum=0, maximum=1)


def show_class_token_attention(image, weights, patch_size, vmax) -> tuple:
    """An image (H, W), weights (h, N) (or (N,)) of its N patches of side ``patch_size``."""
    image = check_image("image", image)
    weights = check_array("weights", weights).astype(np.float64)
    patch_size = check_int("patch_size", patch_size)
    if weights.ndim == 1:
        weights = weights[None]  # (1, N)
    if weights.ndim != 2:
        raise ValueError(f"weights must have shape (h, N) or (N,), got shape {weights.shape}")
    rows, cols = image.shape[0] // patch_size, image.shape[1] // patch_size
    if weights.shape[1] != rows * cols:
        raise ValueError(
            f"weights hold {weights.shape[1]} patches, but a {image.shape[0]} x {image.shape[1]} "
            f"image has {rows} x {cols} = {rows * cols} patches of side {patch_size}"
        )
    return image, weights, patch_size, _vmax(vmax)


def show_attention_by_origin(table: object, vmax: object) -> tuple[np.ndarray, float | None]:
    """A square table (R, R) and an upper colour limit above 0 or None."""
    table = check_array("table", table).astype(np.float64)
    if table.ndim != 2 or table.shape[0] != table.shape[1]:
        raise ValueError(f"table must have shape (R, R), got shape {table.shape}")
    return table, _vmax(vmax)


def show_similarity(similarity, starts) -> tuple:
    """A square similarity matrix (n, n) and positions in [0, n) to start its rows from."""
    similarity = check_array("similarity", similarity)
    if similarity.ndim != 2 or similarity.shape[0] != similarity.shape[1]:
        raise ValueError(f"similarity must be a square matrix, got shape {similarity.shape}")
    n = similarity.shape[0]
    if isinstance(starts, str) or not isinstance(starts, Sequence | np.ndarray):
        raise TypeError(f"starts must be a sequence of positions, got {describe(starts)}")
    starts = [check_int(f"starts[{i}]", a, minimum=0) for i, a in enumerate(starts)]
    if not starts or not all(0 <= a < n for a in starts):
        raise ValueError(f"starts must be positions in [0, {n}), got {starts}")
    return similarity, starts


def show_grid_similarity(maps, titles, reference) -> tuple:
    """One or more (H, W) maps of one shape with a title each, and a patch index of the grid."""
    if isinstance(maps, str) or not isinstance(maps, Sequence):
        raise TypeError(f"maps must be a sequence of (H, W) arrays, got {describe(maps)}")
    maps = [check_array(f"maps[{i}]", m, ndim=2) for i, m in enumerate(maps)]
    shapes = {m.shape for m in maps}
    if not maps or len(titles) != len(maps) or len(shapes) != 1 or maps[0].ndim != 2:
        raise ValueError(
            f"maps must be one or more (H, W) arrays of one shape with one title each, got "
            f"shapes {sorted(shapes)} and {len(titles)} titles"
        )
    rows, cols = maps[0].shape
    reference = check_index("reference", reference, rows * cols, "patches")
    return maps, reference


def show_resized_embedding(before, after, old_grid, new_grid, channels, num_prefix_tokens) -> tuple:
    """Tables (prefix + H * W, D) before and after resizing, each of its grid, as (H, W, D)
    panels with their grids; channels, dimensions of D."""
    grids = {"old_grid": check_size2("old_grid", old_grid)}
    grids["new_grid"] = check_size2("new_grid", new_grid)
    num_prefix_tokens = check_int("num_prefix_tokens", num_prefix_tokens, minimum=0)
    panels = []
    tables = (("before", before, "old_grid"), ("after", after, "new_grid"))
    for name, table, grid_name in tables:
        h, w = grids[grid_name]
        table = check_array(name, table, ndim=(2, 3))
        table = table.reshape(-1, table.shape[-1])[num_prefix_tokens:]  # (H*W, D)
        if table.shape[0] != h * w:
            raise ValueError(
                f"{name} holds {table.shape[0]} grid tokens after num_prefix_tokens="
                f"{num_prefix_tokens}, but {grid_name} is {h} x {w}"
            )
        panels.append((table.reshape(h, w, -1), (h, w)))
    if isinstance(channels, str) or not isinstance(channels, Sequence | np.ndarray):
        raise TypeError(f"channels must be a sequence of dimensions, got {describe(channels)}")
    if len(channels) == 0:
        raise ValueError("channels must name at least one embedding dimension")
    dim = panels[0][0].shape[-1]
    channels = [check_index(f"channels[{i}]", c, dim, "dimensions") for i, c in enumerate(channels)]
    return panels, grids, channels


def show_table_bands(table, parts, column_px) -> tuple:
    """A table (L, D) cut into 1 .. D parts, and at least a pixel per column."""
    table = check_array("table", table)
    if table.ndim != 2:
        raise ValueError(f"table must have shape (L, D), got shape {table.shape}")
    parts = check_int("parts", parts)
    column_px = check_number("column_px", column_px)
    if not 1 <= parts <= table.shape[1] or column_px < 1:
        raise ValueError(f"need 1 <= parts <= D and column_px >= 1, got {parts} and {column_px}")
    return table, parts, column_px


def show_columns(table, columns) -> tuple:
    """A table (L, D) and one or more of its column indices."""
    table = check_array("table", table)
    if table.ndim != 2:
        raise ValueError(f"table must have shape (L, D), got shape {table.shape}")
    if isinstance(columns, str) or not isinstance(columns, Sequence | np.ndarray):
        raise TypeError(f"columns must be a sequence of column indices, got {describe(columns)}")
    columns = [check_int(f"columns[{i}]", c, minimum=0) for i, c in enumerate(columns)]
    if not columns or not all(0 <= c < table.shape[1] for c in columns):
        raise ValueError(
            f"columns must be indices in [0, {table.shape[-1]}) of an (L, D) table, got {columns}"
        )
    return table, columns


def show_tokens_plus_embedding(tokens, embedding, parts) -> tuple:
    """Tokens and a position embedding of one shape (N, D), cut into 1 .. D parts."""
    tokens, embedding = check_array("tokens", tokens), check_array("embedding", embedding)
    if tokens.ndim != 2 or tokens.shape != embedding.shape:
        raise ValueError(
            f"tokens and embedding must have the same shape (N, D), got {tokens.shape} "
            f"and {embedding.shape}"
        )
    parts = check_int("parts", parts)
    if not 1 <= parts <= tokens.shape[1]:
        raise ValueError(f"parts must be in [1, D = {tokens.shape[1]}], got {parts}")
    return tokens, embedding, parts


def show_embedding_bases(tables, bases) -> tuple:
    """One or more tables (L, D), one base above 1 each."""
    for name, value in (("tables", tables), ("bases", bases)):
        if isinstance(value, str) or not isinstance(value, Sequence | np.ndarray):
            raise TypeError(f"{name} must be a sequence, got {describe(value)}")
    if len(tables) != len(bases) or not tables:
        raise ValueError(
            f"need one base per table, got {len(tables)} tables and {len(bases)} bases"
        )
    tables = [check_array(f"tables[{i}]", t, ndim=2) for i, t in enumerate(tables)]
    bases = [
        check_number(f"bases[{i}]", b, minimum=1, inclusive=False) for i, b in enumerate(bases)
    ]
    return tables, bases


def show_frequencies(frequencies) -> dict:
    """A non-empty {base above 1: angular frequencies (d/2,)}."""
    if not isinstance(frequencies, dict):
        raise TypeError(f"frequencies must be a dict {{base: omega}}, got {describe(frequencies)}")
    if not frequencies:
        raise ValueError("frequencies is empty: give at least one {base: omega}")
    frequencies = {
        check_number("frequencies (a base)", base, minimum=1, inclusive=False): check_array(
            f"frequencies[{base!r}]", omega, ndim=1
        )
        for base, omega in frequencies.items()
    }
    return frequencies


def show_relative_distances(index) -> np.ndarray:
    """An integer (L, L) index of table rows (relative_index)."""
    index = check_array("index", index)
    if index.dtype.kind not in "iu":
        raise TypeError(f"index must hold integer table rows (relative_index), got {index.dtype}")
    if index.ndim != 2 or index.shape[0] != index.shape[1]:
        raise ValueError(f"index must have shape (L, L), got shape {index.shape}")
    return index


def show_grid_offsets(image, patch_size, row_offsets, col_offsets, highlight) -> tuple:
    """An image (H, W) cut by patch_size, integer row and column offsets of its grid, a patch."""
    image = check_array("image", image, ndim=2)
    row_offsets = check_array("row_offsets", row_offsets, ndim=2)
    col_offsets = check_array("col_offsets", col_offsets, ndim=2)
    for name, offsets in (("row_offsets", row_offsets), ("col_offsets", col_offsets)):
        if offsets.dtype.kind not in "iu":
            raise TypeError(
                f"{name} must hold integer offsets (grid_offsets'), got {offsets.dtype}"
            )
    patch_size = check_divides("patch_size", check_int("patch_size", patch_size), *image.shape)
    grid_shape = (image.shape[0] // patch_size, image.shape[1] // patch_size)
    for name, offsets in (("row_offsets", row_offsets), ("col_offsets", col_offsets)):
        if offsets.shape != grid_shape:
            raise ValueError(f"{name} must have the grid's shape {grid_shape}, got {offsets.shape}")
    highlight = check_index("highlight", highlight, grid_shape[0] * grid_shape[1], "patches")
    return image, patch_size, row_offsets, col_offsets, highlight


def show_logit_matrices(matrices, titles, outlines) -> list:
    """One or more (L, L) matrices, a title each, an outline or None each when given."""
    if isinstance(matrices, str) or not isinstance(matrices, Sequence):
        raise TypeError(f"matrices must be a sequence of (L, L) arrays, got {describe(matrices)}")
    arrays = [check_array(f"matrices[{i}]", m, ndim=2) for i, m in enumerate(matrices)]
    if len(titles) != len(arrays) or not arrays:
        raise ValueError(
            f"need one title per matrix, got {len(titles)} titles for {len(arrays)} matrices"
        )
    for array in arrays:
        if array.ndim != 2:
            raise ValueError(f"each matrix must have 2 dimensions, got shape {array.shape}")
    if outlines is not None and len(outlines) != len(arrays):
        raise ValueError(
            f"outlines must hold one (row, col, size) or None per matrix, got {len(outlines)} "
            f"for {len(arrays)} matrices"
        )
    return arrays


def show_vit_figure7(components, explained, distances, uniform_distance) -> tuple:
    """k >= 1 components (k, C, P, P), k shares, distances (depth, h), a distance >= 0."""
    components = check_array("components", components, ndim=4)
    explained = check_array("explained", explained, ndim=1)
    distances = check_array("distances", distances, ndim=2)
    uniform_distance = check_number("uniform_distance", uniform_distance, minimum=0)
    k = len(components)
    if len(explained) != k or k == 0:
        raise ValueError(
            f"explained must hold one share per component, got {len(explained)} for {k}"
        )
    return components, explained, distances, uniform_distance


def show_attention_locality(distances, entropy, top_share, references) -> list:
    """Three finite (depth, h) measures of one shape, and {name: (distance, entropy, share)}."""
    names = ("distances", "entropy", "top_share")
    values = [
        check_array(n, a, ndim=2, finite=True)
        for n, a in zip(names, (distances, entropy, top_share), strict=True)
    ]
    depth, heads = values[0].shape
    for name, value in zip(names[1:], values[1:], strict=True):
        if value.shape != (depth, heads):
            raise ValueError(
                f"{name} must have the shape of distances {(depth, heads)}, got {value.shape}"
            )
    if not isinstance(references, dict) or not all(
        isinstance(k, str) and np.shape(v) == (3,) for k, v in references.items()
    ):
        raise TypeError(
            "references must be a dict {name: (distance, entropy, top share)}, "
            f"got {references!r}"
        )
    return values


def show_probe_comparison(black_share, moved_share) -> tuple:
    """Shares (N,) for the black patch and (N, N) for the moved patches (a copy)."""
    black = check_array("black_share", black_share, ndim=1, finite=True)
    moved = check_array("moved_share", moved_share, ndim=2, finite=True).copy()
    count = len(black)
    if moved.shape != (count, count):
        raise ValueError(f"moved_share must have shape {(count, count)}, got {moved.shape}")
    return black, moved


def show_fold_reconstruction(summed, counts, recovered) -> tuple:
    """Three (H, W) arrays of one shape: the fold's sum, its overlap counts, their quotient."""
    summed, counts, recovered = (
        check_array(name, a, ndim=2)
        for name, a in (("summed", summed), ("counts", counts), ("recovered", recovered))
    )
    if not summed.ndim == 2 or not summed.shape == counts.shape == recovered.shape:
        raise ValueError(
            f"summed, counts and recovered must share one (H, W) shape, got {summed.shape}, "
            f"{counts.shape} and {recovered.shape}"
        )
    return summed, counts, recovered


def position_similarity_mosaic(similarity, gap) -> tuple:
    """A similarity grid (H, W, H, W) as float64, and a gap of at least 0 cells."""
    sim = check_array("similarity", similarity).astype(np.float64)
    if sim.ndim != 4 or sim.shape[2:] != sim.shape[:2]:
        raise ValueError(f"similarity must have shape (H, W, H, W), got {sim.shape}")
    gap = check_int("gap", gap, minimum=0)
    return sim, gap


def show_position_similarity(similarities, titles) -> list:
    """One or more (H, W, H, W) arrays of one shape, a title each."""
    if isinstance(similarities, str) or not isinstance(similarities, Sequence):
        raise TypeError(
            f"similarities must be a sequence of (H, W, H, W) arrays, got {describe(similarities)}"
        )
    maps = [check_array(f"similarities[{i}]", s, ndim=4) for i, s in enumerate(similarities)]
    if not maps or len(titles) != len(maps) or len({m.shape for m in maps}) != 1:
        raise ValueError(
            "similarities must be one or more arrays of one shape with one title each, got "
            f"shapes {[m.shape for m in maps]} and {len(titles)} titles"
        )
    return maps


def show_clocks(table, pairs) -> tuple:
    """A table (L, D >= 2) and 1 to 9 of its clock pairs (all pairs' first nine: clock_pairs)."""
    table = check_array("table", table)
    if table.ndim != 2 or table.shape[1] < 2:
        raise ValueError(f"table must have shape (L, D) with D >= 2, got shape {table.shape}")
    from ..position import clock_pairs

    pairs = clock_pairs(table.shape[1]) if pairs is None else list(pairs)
    num_pairs = table.shape[1] // 2
    if not 0 < len(pairs) <= 9 or not all(0 <= p < num_pairs for p in pairs):
        raise ValueError(f"pairs must hold 1 to 9 indices in [0, {num_pairs}), got {pairs}")
    return table, pairs


def show_attention_heads(weights, ncols, labels) -> tuple:
    """Weights (h, N, N), a column count, one label per token (1 .. N when None)."""
    weights = check_array("weights", weights, drawable=True)
    if weights.ndim != 3 or weights.shape[1] != weights.shape[2]:
        raise ValueError(f"weights must have shape (h, N, N), got shape {weights.shape}")
    heads, n, _ = weights.shape
    ncols = check_int("ncols", ncols)
    labels = list(range(1, n + 1)) if labels is None else list(labels)
    if len(labels) != n:
        raise ValueError(f"labels has {len(labels)} entries for {n} tokens")
    return weights, ncols, labels


# --- plotting/core.py -------------------------------------------------------------------------


def show_matrix(matrix, fmt, vmin, vmax, xticklabels, yticklabels) -> tuple:
    """A drawable matrix (R, C), a format string, colour limits (the matrix's range when None),
    and R y-tick and C x-tick labels when given."""
    matrix = check_array("matrix", matrix, ndim=2, drawable=True)
    if not isinstance(fmt, str):
        raise TypeError(f"fmt must be a format string such as '{{:.2f}}', got {fmt!r}")
    vmin = float(np.nanmin(matrix)) if vmin is None else check_number("vmin", vmin)
    vmax = float(np.nanmax(matrix)) if vmax is None else check_number("vmax", vmax)
    for name, labels, count in (
        ("xticklabels", xticklabels, matrix.shape[1]),
        ("yticklabels", yticklabels, matrix.shape[0]),
    ):
        if labels is not None and len(labels) != count:
            raise ValueError(f"{name} has {len(labels)} labels for {count} cells")
    return matrix, vmin, vmax


def annotate_cells(values: object, labels: object) -> np.ndarray:
    """Values (R, C), and one label per cell when given."""
    values = check_array("values", values)
    if values.ndim != 2:
        raise ValueError(f"values must have shape (R, C), got shape {values.shape}")
    if labels is not None and len(labels) != values.size:
        raise ValueError(f"labels has {len(labels)} entries for {values.size} cells")
    return values


# --- plotting/patches.py, plotting/attention.py -----------------------------------------------


def show_patch_grid(image, patch_size, labels, highlight) -> tuple:
    """An image (H, W) cut by ``patch_size``, one label per patch (1 .. N when None), a patch
    to highlight or None."""
    image = check_image("image", image)
    height, width = image.shape
    patch_size = check_divides("patch_size", check_int("patch_size", patch_size), height, width)
    count = (height // patch_size) * (width // patch_size)
    if highlight is not None:
        highlight = check_index("highlight", highlight, count, "patches")
    labels = range(1, count + 1) if labels is None else labels
    if len(labels) != count:
        raise ValueError(f"labels has {len(labels)} entries for {count} patches")
    return image, patch_size, labels, highlight


def show_patch_and_token(patch, number, highlight_row, ncols) -> tuple:
    """A square patch (P, P), its 1-based number or None, a row in 0 .. P - 1 or None, one or
    two columns of axes."""
    ncols = check_int("ncols", ncols, minimum=1)
    if ncols > 2:
        raise ValueError(f"ncols must be 1 (patch above token) or 2 (side by side), got {ncols}")
    patch = check_array("patch", patch)
    if number is not None:
        number = check_int("number", number)  # 1-based
    if highlight_row is not None:
        highlight_row = check_int("highlight_row", highlight_row, minimum=0)
    if patch.ndim != 2 or patch.shape[0] != patch.shape[1]:
        raise ValueError(f"patch must be a square array of shape (P, P), got shape {patch.shape}")
    size = patch.shape[0]
    if highlight_row is not None and not 0 <= highlight_row < size:
        raise ValueError(f"highlight_row must be in 0..{size - 1}, got {highlight_row}")
    return patch, number, highlight_row, ncols


def show_tokenization(image, patch_size, max_labels) -> tuple:
    """An image (H, W), a patch size (patchify checks it divides), a label count >= 0."""
    image = check_array("image", image)
    if image.ndim != 2:
        raise ValueError(f"image must have shape (H, W), got shape {image.shape}")
    patch_size = check_int("patch_size", patch_size)
    return image, patch_size, check_int("max_labels", max_labels, minimum=0)


def show_scrambled_patches(image: object, titles: object) -> np.ndarray:
    """An image (H, W) and two titles (the patch size and order are scramble_patches')."""
    image = check_array("image", image, ndim=2)
    if isinstance(titles, str) or len(titles) != 2:
        raise ValueError(f"titles must be two titles (original, scrambled), got {titles!r}")
    return image


# --- plotting/interpret.py --------------------------------------------------------------------


def pictures(name: str, images: object, count: int | None = None, counted: str = "") -> np.ndarray:
    """Pictures (n, H, W) from (n, H, W) or (n, 1, H, W), ``count`` of them (one per entry of
    the argument named ``counted``) when given."""
    images = check_array(name, images, ndim=(3, 4))
    if images.ndim == 4:
        if images.shape[1] != 1:
            raise ValueError(
                f"{name} must be grey pictures (n, H, W) or (n, 1, H, W), got shape {images.shape}"
            )
        images = images[:, 0]
    if count is not None and len(images) != count:
        raise ValueError(
            f"{name} holds {len(images)} pictures, but {counted} has {count} entries: one each"
        )
    return images  # (n, H, W)


def picture_labels(name: str, values: object, count: int) -> list:
    """``count`` labels (ints or strs) from a sequence, array or tensor."""
    if isinstance(values, str) or not hasattr(values, "__len__"):
        raise TypeError(f"{name} must be a sequence of {count} labels, got {describe(values)}")
    values = list(values) if isinstance(values, list | tuple) else list(check_array(name, values))
    if len(values) != count:
        raise ValueError(f"{name} has {len(values)} entries for {count} pictures")
    return values


def show_digits(images, labels, predictions, ncols) -> tuple:
    """Pictures (n, H, W), n labels, n predictions or None, a column count."""
    images = pictures("images", images)  # (n, H, W)
    labels = picture_labels("labels", labels, len(images))
    if predictions is not None:
        predictions = picture_labels("predictions", predictions, len(images))
    return images, labels, predictions, check_int("ncols", ncols)


def show_looks_and_uses(images, rollout, occlusion, titles) -> tuple:
    """k titles, k pictures (k, H, W), and rollout and occlusion maps of one shape (k, R, C)."""
    if isinstance(titles, str) or not isinstance(titles, Sequence) or not titles:
        raise TypeError(f"titles must be a non-empty sequence of str, got {describe(titles)}")
    titles = [check_str(f"titles[{i}]", t) for i, t in enumerate(titles)]
    k = len(titles)
    images = pictures("images", images, k, "titles")
    rollout = check_array("rollout", rollout, ndim=3)
    occlusion = check_array("occlusion", occlusion, ndim=3)
    for name, maps_ in (("rollout", rollout), ("occlusion", occlusion)):
        if len(maps_) != k:
            raise ValueError(f"{name} holds {len(maps_)} maps for {k} titles: one each")
    if rollout.shape != occlusion.shape:
        raise ValueError(
            f"rollout and occlusion must have one shape (k, rows, cols), got {rollout.shape} "
            f"and {occlusion.shape}"
        )
    return images, rollout, occlusion, titles


def show_logit_lens(probabilities: object, label: object) -> tuple[np.ndarray, int]:
    """One picture's probabilities (depth, K) and a class of K."""
    probs = check_array("probabilities", probabilities)
    if probs.ndim != 2:
        hint = ": pass one picture's, probabilities[i]" if probs.ndim == 3 else ""
        raise ValueError(
            f"probabilities must have shape (depth, K), one picture's, got {probs.shape}{hint}"
        )
    return probs, check_index("label", label, probs.shape[1], "classes")


# --- plotting/core.py, patches.py, t2t.py, t2t_animation.py (continued) -----------------------


def show_image(image: object, vmin: object, vmax: object) -> tuple[np.ndarray, float, float]:
    """A drawable image (H, W) and two colour limits."""
    image = check_array("image", image, ndim=2, drawable=True)
    return image, check_number("vmin", vmin), check_number("vmax", vmax)


def show_token_matrix(tokens: object, colorbar_location: object) -> tuple:
    """Drawable tokens (N, L), a colour bar "bottom" or "right"."""
    tokens = check_array("tokens", tokens, drawable=True)
    if tokens.ndim != 2:
        raise ValueError(f"tokens must have shape (N, L), got shape {tokens.shape}")
    return tokens, check_str("colorbar_location", colorbar_location, ("bottom", "right"))


def show_padded_token(patch: object, from_picture: object, number: object) -> tuple:
    """A patch (k, k), which of its values come from the picture (k * k of them), a number."""
    patch = check_array("patch", patch, ndim=2)
    from_picture = check_array("from_picture", from_picture, ndim=(1, 2))
    if from_picture.size != patch.size:
        raise ValueError(
            f"from_picture must have the patch's {patch.shape} shape (or {patch.size} values), "
            f"got {from_picture.shape}"
        )
    return patch, from_picture, check_int("number", number)


def softsplit_frames(image: object, k: object, s: object, p: object, limit: int) -> np.ndarray:
    """A picture (H, W) whose soft split (count_tokens checks k, s, p) has at most ``limit``
    patches, one frame each."""
    from ..unfold import count_tokens

    image = check_array("image", image, ndim=2)
    count = count_tokens(*image.shape, k, s, p)[2]
    if count > limit:
        raise ValueError(
            f"k={k}, s={s}, p={p} cut {count} patches: an animation of {count} frames would take "
            f"minutes; at most {limit} (use a larger stride)"
        )
    return image


def figure(fig: object) -> object:
    """A ``matplotlib.figure.Figure`` (matplotlib is imported here, on first use)."""
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    return fig


def display(name: object, alt: object, caption: object) -> None:
    """A bare file name or None, alt text (:func:`alt_text`), a numbered caption or None."""
    if name is not None and (
        not isinstance(name, str) or not name or Path(name).name != name or "." in name
    ):
        raise ValueError(
            f"name must be a bare file name without folder or suffix, such as '01_token12' "
            f"(or None: never saved), got {name!r}"
        )
    alt_text(alt)
    caption_text(caption, "Figure 1.2 — Token 12 as a strip of 400 numbers.")


def as_uint8(frame: np.ndarray, index: int) -> np.ndarray:
    """A frame as uint8: floats in [0, 1] are scaled by 255, integers must lie in 0..255."""
    frame = np.asarray(frame)
    if frame.dtype == np.uint8:
        return frame
    if np.issubdtype(frame.dtype, np.floating):
        if frame.min() < 0 or frame.max() > 1:
            raise ValueError(f"frames[{index}] holds floats outside [0, 1]: scale it to 0..1 first")
        return np.round(frame * 255).astype(np.uint8)
    if np.issubdtype(frame.dtype, np.integer) and frame.min() >= 0 and frame.max() <= 255:
        return frame.astype(np.uint8)
    raise ValueError(f"frames[{index}] must be uint8 (or floats in [0, 1]), got {frame.dtype}")


def gif_bytes(frames: object, fps: object) -> tuple[list[np.ndarray], float]:
    """One or more frames (H, W, 3) of one shape, as uint8 (an iterable, a generator too), and
    0 < fps <= 100."""
    if isinstance(frames, str | bytes) or not hasattr(frames, "__iter__"):
        raise TypeError(
            f"frames must be a sequence of (H, W, 3) arrays, got {type(frames).__name__}"
        )
    frames = list(frames)  # a generator of frames too
    if len(frames) == 0:
        raise ValueError("frames is empty: a GIF needs at least one frame")
    shapes = {np.shape(f) for f in frames}
    if len(shapes) != 1 or len(next(iter(shapes))) != 3 or next(iter(shapes))[2] != 3:
        raise ValueError(f"frames must all have one shape (H, W, 3), got shapes {sorted(shapes)}")
    # a GIF counts a frame's time in hundredths of a second: 100 fps is the fastest it can say
    fps = check_number("fps", fps, minimum=0, inclusive=False, maximum=100)
    frames = [as_uint8(f, i) for i, f in enumerate(frames)]
    return frames, fps


def figure_to_png(fig: object, dpi: object) -> float:
    """A figure and a dpi of at least 1 at which its pixels fit in memory."""
    figure(fig)
    dpi = check_number("dpi", dpi, minimum=1)
    width, height = fig.get_size_inches()
    check_elements(
        f"a PNG of a {width:g} x {height:g} inch figure at dpi={dpi:g}",
        int(width * dpi) * int(height * dpi) * 4,
        bytes_per=1,
    )
    return dpi


def show_softsplit_coverage(image: object, p: object, max_outlines: object) -> tuple:
    """A picture (H, W), a padding p >= 0 and an outline count >= 0 (count_tokens checks k, s)."""
    image = check_array("image", image, ndim=2)
    p = check_int("p", p, minimum=0)
    return image, p, check_int("max_outlines", max_outlines, minimum=0)
