"""Figures for the notebooks: pure functions, data in and a ``matplotlib.figure.Figure`` out.

Nothing here calls ``plt.show()`` or touches the global rcParams. Figures are built with
``matplotlib.figure.Figure`` (no pyplot state), so a notebook displays one by leaving it as the
cell's last value; matplotlib is imported when the first figure is drawn (``core.new_figure``),
not by ``import vitexplain``. Colour conventions: ``Purples_r`` for the picture and its tokens, a
diverging map with limits -1..1 for embeddings.

The modules: ``core`` holds the shared building blocks, ``files`` turns figures into PNG and GIF
files; ``patches`` (notebook 01), ``attention`` (02), ``position``, ``clocks`` and
``position_similarity`` (03), ``relative_position`` (04), ``t2t`` and ``t2t_animation`` (05),
``scramble`` (06: the ViT on the scramble task), ``learned_position`` (07), ``interpret`` (08),
``attribution`` (09).
Every name below is importable from ``vitexplain.plotting``; the figure functions also from
``vitexplain``.
"""

from .attention import (
    show_attention_heads,
    show_matrices,
    show_scrambled_patches,
)
from .attribution import (
    show_deletion_curves,
    show_explanation_maps,
    show_lens_accuracy,
    show_marker_hits,
    show_sanity_check,
)
from .clocks import (
    show_clock_explorer,
    show_clocks,
)
from .core import (
    ATTENTION_CMAP,
    EMBEDDING_CMAP,
    PICTURE_CMAP,
    SIMILARITY_CMAP,
    annotate_cells,
    axes_grid,
    fixed_figure,
    new_axes,
    new_figure,
    outline_cells,
    show_embedding,
    show_image,
    show_matrix,
    text_colour,
)
from .files import (
    FIGURES_DIR_VARIABLE,
    display_figure,
    display_gif,
    figure_html,
    figure_to_array,
    figure_to_png,
    gif_bytes,
    save_figure,
    save_gif,
)
from .interpret import (
    show_attention_locality,
    show_class_token_maps,
    show_digits,
    show_logit_lens,
    show_looks_and_uses,
    show_probe_comparison,
    show_vit_figure7,
)
from .learned_position import (
    position_similarity_mosaic,
    show_position_similarity,
)
from .patches import (
    show_patch_and_token,
    show_patch_grid,
    show_token_matrix,
    show_tokenization,
)
from .position import (
    POSITION_CMAP,
    show_columns,
    show_embedding_bases,
    show_frequencies,
    show_table_bands,
    show_tokens_plus_embedding,
)
from .position_similarity import (
    show_grid_similarity,
    show_resized_embedding,
    show_similarity,
)
from .relative_position import (
    show_grid_offsets,
    show_logit_matrices,
    show_relative_distances,
    show_skew_steps,
)
from .scramble import (
    show_attention_by_origin,
    show_class_token_attention,
    show_scramble_examples,
    show_training_curves,
)
from .t2t import (
    show_fold_reconstruction,
    show_padded_token,
    show_softsplit_coverage,
    show_softsplit_explorer,
)
from .t2t_animation import (
    show_softsplit_frame,
    softsplit_frames,
)

__all__ = [
    "show_deletion_curves",
    "show_explanation_maps",
    "show_lens_accuracy",
    "show_marker_hits",
    "show_sanity_check",
    "annotate_cells",
    "ATTENTION_CMAP",
    "axes_grid",
    "display_figure",
    "display_gif",
    "EMBEDDING_CMAP",
    "figure_html",
    "figure_to_array",
    "figure_to_png",
    "FIGURES_DIR_VARIABLE",
    "fixed_figure",
    "gif_bytes",
    "new_axes",
    "new_figure",
    "outline_cells",
    "PICTURE_CMAP",
    "POSITION_CMAP",
    "position_similarity_mosaic",
    "save_figure",
    "save_gif",
    "show_attention_by_origin",
    "show_attention_heads",
    "show_attention_locality",
    "show_class_token_attention",
    "show_class_token_maps",
    "show_clock_explorer",
    "show_clocks",
    "show_columns",
    "show_digits",
    "show_embedding",
    "show_embedding_bases",
    "show_fold_reconstruction",
    "show_frequencies",
    "show_grid_offsets",
    "show_grid_similarity",
    "show_image",
    "show_logit_lens",
    "show_logit_matrices",
    "show_looks_and_uses",
    "show_matrices",
    "show_matrix",
    "show_padded_token",
    "show_patch_and_token",
    "show_patch_grid",
    "show_position_similarity",
    "show_probe_comparison",
    "show_relative_distances",
    "show_resized_embedding",
    "show_scramble_examples",
    "show_scrambled_patches",
    "show_similarity",
    "show_skew_steps",
    "show_softsplit_coverage",
    "show_softsplit_explorer",
    "show_softsplit_frame",
    "show_table_bands",
    "show_token_matrix",
    "show_tokenization",
    "show_tokens_plus_embedding",
    "show_training_curves",
    "show_vit_figure7",
    "SIMILARITY_CMAP",
    "softsplit_frames",
    "text_colour",
]
