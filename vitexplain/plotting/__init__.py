"""Figures for the notebooks: pure functions, data in and a ``matplotlib.figure.Figure`` out.

Nothing here calls ``plt.show()`` or touches the global rcParams. Figures are built with
``matplotlib.figure.Figure`` (no pyplot state), so a notebook displays one by leaving it as the
cell's last value. Colour conventions: ``Purples_r`` for the picture and its tokens, a diverging
map with limits -1..1 for embeddings.

One module per notebook (``core`` holds what they share); every figure function is importable
from ``vitexplain.plotting``.
"""

from .attention import (
    show_attention_heads,
    show_matrices,
    show_scrambled_patches,
)
from .core import (
    EMBEDDING_CMAP,
    PICTURE_CMAP,
    figure_to_array,
    figure_to_png,
    new_axes,
    save_figure,
    save_gif,
    show_embedding,
    show_image,
    show_matrix,
    show_patch_grid,
    text_colour,
)
from .patches import (
    show_patch_and_token,
    show_token_matrix,
    show_tokenization,
)
from .position import (
    POSITION_CMAP,
    show_clock_explorer,
    show_clocks,
    show_embedding_bases,
    show_frequencies,
    show_grid_similarity,
    show_resized_embedding,
    show_similarity,
    show_tokens_plus_embedding,
)
from .relative_position import (
    show_grid_offsets,
    show_logit_matrices,
    show_relative_distances,
    show_skew_steps,
)
from .t2t import (
    show_fold_reconstruction,
    show_softsplit_coverage,
    show_softsplit_explorer,
    show_softsplit_frame,
    softsplit_frames,
)
from .training import (
    show_class_token_attention,
    show_scramble_examples,
    show_training_curves,
)

__all__ = [
    "EMBEDDING_CMAP",
    "figure_to_array",
    "figure_to_png",
    "new_axes",
    "PICTURE_CMAP",
    "POSITION_CMAP",
    "save_figure",
    "save_gif",
    "show_attention_heads",
    "show_class_token_attention",
    "show_clock_explorer",
    "show_clocks",
    "show_embedding",
    "show_embedding_bases",
    "show_fold_reconstruction",
    "show_frequencies",
    "show_grid_offsets",
    "show_grid_similarity",
    "show_image",
    "show_logit_matrices",
    "show_matrices",
    "show_matrix",
    "show_patch_and_token",
    "show_patch_grid",
    "show_relative_distances",
    "show_resized_embedding",
    "show_scramble_examples",
    "show_scrambled_patches",
    "show_similarity",
    "show_skew_steps",
    "show_softsplit_coverage",
    "show_softsplit_explorer",
    "show_softsplit_frame",
    "show_token_matrix",
    "show_tokenization",
    "show_tokens_plus_embedding",
    "show_training_curves",
    "softsplit_frames",
    "text_colour",
]
