"""The picture of the series: an original rendition of *Mountain at Dusk*, painted by code.

The notebooks of ``vitexplain`` all work on one small single-channel picture, a 60 x 100 pixel-art
landscape in 8 grey levels. It is our own rendition of the composition of *Mountain at Dusk* by
Luis Zuno (@ansimuz), released CC0 on OpenGameArt; no pixel of the artwork is used. The scene is
composed from a few simple shapes, painted back to front in integer grey levels 0..7:

* sky: a dark upper band and a brighter band of dusk light above the horizon, joined by
  ordered (Bayer) dithering, which gives the checkerboard transitions of pixel art;
* a moon (white): a disc centred on the top edge, so only its lower half shows;
* distant hills on the left, one level darker than the low sky;
* the mountain: a peak at about 35 % of the width and 45 % of the height, its lit face on the
  left of a crest line running down from the peak (with a one-pixel rim of moonlight along its
  top edge, dithered darker towards its foot) and its shadow face on the right;
* a dark ridge rising from the foot of the mountain to the right edge;
* a black foreground along the bottom, rising into a hill at each side.

Every shape is described in coordinates relative to the image size, so other sizes give the
same scene; 60 x 100 is the size the series uses and ships as ``data/mountains.npy``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["LEVELS", "MOUNTAINS_PATH", "load_mountains", "mountain_at_dusk", "save_mountains"]

#: Number of grey levels: the picture's values are k / (LEVELS - 1) for k = 0..LEVELS-1.
LEVELS = 8

#: Where the repository keeps the saved 60 x 100 picture (absent in an installed package).
MOUNTAINS_PATH = Path(__file__).resolve().parent.parent / "data" / "mountains.npy"

# Smallest accepted height/width: below this the shapes collapse into a few pixels.
_MIN_SIZE = 8

# Grey levels of the shapes (0 = black, 7 = white).
_FOREGROUND = 0
_RIDGE = 1
_SHADOW = 2
_SKY_HIGH = 3
_HILLS = 3
_SKY_LOW = 4
_LIT = 5
_RIM = 6
_MOON = 7

# 4 x 4 Bayer matrix: thresholds in (0, 1) for ordered dithering. At a 50 % mix it draws a
# checkerboard, at 25 % and 75 % the sparse grids of pixel-art gradients.
_BAYER4 = (
    np.array(
        [[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]],
        dtype=np.float64,
    )
    + 0.5
) / 16.0

# Outlines as (u, v) points, u = x / width and v = y / height, both in [0, 1] (v grows down).
# Each outline is the top edge of a shape, linearly interpolated between the points.
_HILLS_TOP = ((0.0, 0.50), (0.08, 0.47), (0.16, 0.50), (0.24, 0.56), (0.34, 0.60))
_MOUNTAIN_TOP = (
    (0.0, 0.71),
    (0.10, 0.64),
    (0.18, 0.56),
    (0.26, 0.48),
    (0.35, 0.45),
    (0.41, 0.49),
    (0.50, 0.57),
    (0.62, 0.63),
    (0.75, 0.66),
    (1.0, 0.72),
)
_RIDGE_TOP = ((0.40, 1.05), (0.55, 0.80), (0.70, 0.62), (0.85, 0.48), (1.0, 0.36))
_FOREGROUND_TOP = (
    (0.0, 0.74),
    (0.10, 0.79),
    (0.22, 0.86),
    (0.32, 0.92),
    (0.42, 0.96),
    (0.62, 0.96),
    (0.76, 0.90),
    (0.88, 0.76),
    (1.0, 0.58),
)
# Crest of the mountain as (v, u): the lit face lies left of it, the shadow face right.
_CREST = ((0.45, 0.35), (0.55, 0.385), (0.65, 0.395), (0.80, 0.37), (1.0, 0.30))
# Sky bands: (v where the band above starts to mix in the band below, v where the mix is complete).
_SKY_TRANSITION = (0.12, 0.55)
# The lit face darkens towards its foot: dithered from the lit level to the hills' level here.
_LIT_SHADE = (0.68, 0.90)


def _outline(points: tuple[tuple[float, float], ...], t: np.ndarray) -> np.ndarray:
    """Interpolate an outline given as (t, value) points at positions ``t``.

    Args:
        points: Points (t, value), t increasing; outside their range the end values hold.
        t: Positions, any shape.

    Returns:
        The interpolated values, same shape as ``t``.
    """
    table = np.asarray(points, dtype=np.float64)
    return np.interp(t, table[:, 0], table[:, 1])


def _dither(mix: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Ordered dithering: where a pixel shows the second of two levels.

    Args:
        mix: Fraction in [0, 1] of the second level wanted around each pixel, shape (H, W)
            or broadcastable to it.
        rows: Row indices, shape (H, 1).
        cols: Column indices, shape (1, W).

    Returns:
        Boolean mask of shape (H, W), True where the pixel takes the second level.
    """
    return _BAYER4[rows % 4, cols % 4] < mix


def mountain_at_dusk(height: int = 60, width: int = 100) -> np.ndarray:
    """Paint the series' picture, an original rendition of *Mountain at Dusk*.

    The scene is painted back to front from simple shapes in integer grey levels 0..7 and
    returned as level / 7, so every value lies on the grid k / 7. The painting is fully
    deterministic (no randomness). For 60 x 100 the moon fills most of patch 3 of the
    3 x 5 grid of 20 x 20 patches, the bottom row of patches is dark and patch 12 shows the
    lit face, the shadow face and the foreground.

    Args:
        height: Number of rows H, an int of at least 8.
        width: Number of columns W, an int of at least 8.

    Returns:
        Array of shape (H, W), dtype float64, values k / 7 for k in 0..7 (0 black, 1 white).

    Raises:
        TypeError: If ``height`` or ``width`` is not an int.
        ValueError: If ``height`` or ``width`` is smaller than 8.
    """
    if min(height, width) < _MIN_SIZE:
        raise ValueError(f"height and width must be at least {_MIN_SIZE}, got {height} x {width}")

    rows = np.arange(height)[:, None]
    cols = np.arange(width)[None, :]
    # Relative coordinates of pixel centres: u across (0 left, 1 right), v down (0 top, 1 bottom).
    v = (rows + 0.5) / height
    u = (cols + 0.5) / width

    # Sky: a dark upper band dithered into a brighter band of dusk light above the horizon.
    level = np.full((height, width), _SKY_HIGH, dtype=np.int64)
    v0, v1 = _SKY_TRANSITION
    mix = np.clip((v - v0) / (v1 - v0), 0.0, 1.0)
    level[_dither(mix, rows, cols)] = _SKY_LOW

    # Moon: a disc centred on the top edge at mid-width; the top edge cuts it in half.
    radius = 0.2 * min(height, 0.6 * width)
    dist = np.hypot(cols + 0.5 - width / 2, rows + 0.5)
    level[dist <= radius] = _MOON

    # Distant hills on the left, behind the mountain.
    level[v >= _outline(_HILLS_TOP, u)] = _HILLS

    # Mountain: lit face left of the crest, shadow face right of it.
    # The lit face catches a one-pixel rim of moonlight along its top edge and darkens
    # (dithered) towards its foot.
    top = _outline(_MOUNTAIN_TOP, u)
    mountain = v >= top
    lit = mountain & (u < _outline(_CREST, v))
    level[lit] = _LIT
    s0, s1 = _LIT_SHADE
    level[lit & _dither(np.clip((v - s0) / (s1 - s0), 0.0, 1.0), rows, cols)] = _HILLS
    rim = max(1, round(height / 60))
    level[lit & (v < top + rim / height)] = _RIM
    level[mountain & ~lit] = _SHADOW

    # Dark ridge rising to the right, in front of the mountain.
    level[v >= _outline(_RIDGE_TOP, u)] = _RIDGE

    # Black foreground along the bottom.
    level[v >= _outline(_FOREGROUND_TOP, u)] = _FOREGROUND

    return level.astype(np.float64) / (LEVELS - 1)


def load_mountains() -> np.ndarray:
    """Load the series' 60 x 100 picture.

    Reads ``data/mountains.npy`` from the repository the package lives in; when that file is
    absent (an installed, non-editable package) it paints the picture instead. Both give the
    same array.

    Returns:
        Array of shape (60, 100), dtype float64, values k / 7 for k in 0..7.
    """
    if MOUNTAINS_PATH.is_file():
        return np.load(MOUNTAINS_PATH, allow_pickle=False)
    return mountain_at_dusk()


def save_mountains(path: str | Path | None = None) -> Path:
    """Paint the 60 x 100 picture and save it as a ``.npy`` file.

    The file is written with ``np.save`` (float64, no pickle), so the same picture gives the
    same bytes on every run. The path is used as given (``np.save`` would append ``.npy`` to a
    file name without it; writing through a file handle avoids that).

    Args:
        path: Where to write; defaults to the repository's ``data/mountains.npy``.

    Returns:
        The path written.
    """
    target = MOUNTAINS_PATH if path is None else Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as handle:
        np.save(handle, mountain_at_dusk(), allow_pickle=False)
    return target
