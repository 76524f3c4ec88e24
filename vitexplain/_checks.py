# only for vitexplain.plotting until its branch lands
"""The argument checks that :mod:`vitexplain.plotting` still imports; the idea modules check
their own arguments (an ``if ...: raise`` beside their code). Deleted once plotting's are too."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch


def check_int(name: str, value: object, minimum: int | None = 1) -> int:
    """Return ``value`` if it is an int (not a bool) of at least ``minimum``.

    Args:
        name: argument name used in the message.
        value: the value to check.
        minimum: smallest allowed value, or None for no bound.

    Returns:
        The value as a Python int.
    """
    # numpy / torch integer scalars are accepted; bool is an int subclass but never a size, and
    # neither is a bool array or tensor (torch.tensor(True).__index__() is 1).
    is_bool = isinstance(value, bool | np.bool_) or getattr(value, "dtype", None) in (
        torch.bool,
        np.dtype(bool),
    )
    if is_bool or not hasattr(value, "__index__"):
        raise TypeError(f"{name} must be an int, got {value!r} of type {type(value).__name__}")
    value = int(value.__index__())
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


def check_size2(name: str, value: object, minimum: int = 1) -> tuple[int, int]:
    """Return ``(height, width)`` from an int or a pair of ints.

    Args:
        name: argument name used in the message.
        value: an int (square) or two ints, height first (a sequence, a NumPy array or a tensor).
        minimum: smallest allowed value for each side.

    Returns:
        The pair (height, width).
    """
    if isinstance(value, torch.Tensor | np.ndarray) and value.ndim == 1:
        value = value.tolist()  # a NumPy array or tensor of two sizes: (H, W)
    if isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) != 2:
            raise ValueError(f"{name} must be an int or a (height, width) pair, got {value!r}")
        return (
            check_int(f"{name}[0]", value[0], minimum),
            check_int(f"{name}[1]", value[1], minimum),
        )
    size = check_int(name, value, minimum)
    return size, size


#: Largest tensor (in elements) a function of the package builds on request: 2**27, 1 GiB of
#: float64. A call past it is a typo far more often than a need.
MAX_ELEMENTS = 2**27


def check_elements(what: str, count: int, bytes_per: int = 8) -> int:
    """Refuse a tensor of more than :data:`MAX_ELEMENTS` elements, saying what it would cost.

    Under ``with torch.device("meta")`` nothing is allocated, so nothing is refused.
    """
    if torch.empty(0).device.type == "meta":
        return count
    if count > MAX_ELEMENTS:
        raise ValueError(
            f"{what} would hold {count:,} numbers ({count * bytes_per / 2**30:.1f} GiB); the limit "
            f"is {MAX_ELEMENTS:,} ({MAX_ELEMENTS * bytes_per / 2**30:g} GiB)"
        )
    return count


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` if it is True or False (NumPy's bool too); a string such as 'no' is not."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(
            f"{name} must be True or False, got {value!r} of type {type(value).__name__}"
        )
    return bool(value)


def describe(value: object) -> str:
    """A short description of a value for a message: its shape and dtype if it is an array."""
    if isinstance(value, torch.Tensor | np.ndarray):
        return f"a {type(value).__name__} of shape {tuple(value.shape)} and dtype {value.dtype}"
    text = repr(value)
    text = text if len(text) <= 80 else text[:77] + "..."
    return f"{text} of type {type(value).__name__}"


def _real_scalar(value: object) -> float | None:
    """``value`` as a float if it is one real number: int, float, a NumPy real scalar, or a 0-d
    (or one-element) tensor or array of a real dtype; None otherwise. Bools are not numbers."""
    from numbers import Real  # int, float and numpy's real scalars

    if isinstance(value, bool | np.bool_):
        return None
    if isinstance(value, Real):
        return float(value)
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        if value.dtype == torch.bool or value.dtype.is_complex:
            return None
        return float(value.item())
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iuf":
        return float(value.item())
    return None


def check_number(
    name: str,
    value: object,
    minimum: float | None = None,
    inclusive: bool = True,
    maximum: float | None = None,
) -> float:
    """Return ``value`` as a float if it is a finite real number in the allowed range.

    Args:
        name: argument name used in the message.
        value: the value to check: an int, a float, a NumPy real scalar, or a 0-d (or
            one-element) tensor or array of a real dtype -- everything :func:`check_int` accepts,
            and the floats; not a bool.
        minimum: smallest allowed value, or None for no bound.
        inclusive: whether ``minimum`` itself is allowed.
        maximum: largest allowed value (inclusive), or None for no bound.

    Returns:
        The value as a Python float.
    """
    import math

    number = _real_scalar(value)
    if number is None:
        raise TypeError(f"{name} must be a number, got {describe(value)}")
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {number}")
    if minimum is not None and (number < minimum or (number == minimum and not inclusive)):
        relation = "at least" if inclusive else "greater than"
        raise ValueError(f"{name} must be {relation} {minimum}, got {number}")
    if maximum is not None and number > maximum:
        raise ValueError(f"{name} must be at most {maximum}, got {number}")
    return number


def check_divides(name: str, value: int, height: int, width: int) -> int:
    """Return ``value`` if it divides both sides of an image (a patch size that tiles it).

    Args:
        name: argument name used in the message, e.g. ``"patch_size"``.
        value: the patch size P, a positive int.
        height: image height H.
        width: image width W.

    Returns:
        The value, unchanged.
    """
    for side, size in (("height", height), ("width", width)):
        if size % value:
            raise ValueError(
                f"{name} {value} does not divide the image {side} {size} "
                f"({size} = {size // value} * {value} + {size % value})"
            )
    return value


def check_image(name: str, value: object) -> np.ndarray:
    """Return ``value`` as a float64 array of shape (H, W): one grey picture.

    Args:
        name: argument name used in the message.
        value: an array-like (numpy array, tensor, nested lists) of two dimensions.

    Returns:
        A float64 numpy array of shape (H, W).
    """
    image = check_array(name, value)
    if image.ndim != 2:
        raise ValueError(f"{name} must have shape (H, W), got shape {image.shape}")
    return image.astype(np.float64)


def check_array(
    name: str,
    value: object,
    ndim: int | tuple[int, ...] | None = None,
    finite: bool = False,
    drawable: bool = False,
) -> np.ndarray:
    """Return ``value`` as a NumPy array of numbers (for a figure), else a clear error.

    Args:
        name: argument name used in the message.
        value: a tensor, an array or nested lists of numbers (bools count as numbers).
        ndim: the number of dimensions required (one int, or a tuple of the allowed ones).
        finite: refuse NaN and infinities.
        drawable: refuse what a figure cannot show: no values, an infinity, or NaN only (a NaN
            among numbers is an empty cell).

    Returns:
        The array (a tensor is detached and copied to the CPU).
    """
    if isinstance(value, torch.Tensor):
        array = value.detach().cpu().numpy()
    elif isinstance(value, str | bytes) or value is None:
        raise TypeError(f"{name} must be an array of numbers, got {describe(value)}")
    else:
        try:
            array = np.asarray(value)
        except (ValueError, TypeError) as error:  # ragged nested lists
            raise ValueError(f"{name} must be a rectangular array of numbers: {error}") from None
    if array.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must hold numbers, got {describe(value)} (NumPy dtype {array.dtype})"
        )
    allowed = (ndim,) if isinstance(ndim, int) else ndim
    if allowed is not None and array.ndim not in allowed:
        wanted = " or ".join(str(n) for n in allowed)
        raise ValueError(f"{name} must have {wanted} dimensions, got shape {array.shape}")
    if finite and array.dtype.kind == "f" and not np.isfinite(array).all():
        raise ValueError(
            f"{name} must be finite, got {int((~np.isfinite(array)).sum())} NaN or inf"
        )
    if drawable and array.size == 0:
        raise ValueError(f"{name} is empty (shape {array.shape}): there is nothing to draw")
    if drawable and array.dtype.kind == "f" and (np.isinf(array).any() or np.isnan(array).all()):
        raise ValueError(f"{name} holds infinities or NaN only: there is nothing to draw")
    return array


def check_str(name: str, value: object, choices: Sequence[str] | None = None) -> str:
    """Return ``value`` if it is a str (one of ``choices`` when given)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {describe(value)}")
    if choices is not None and value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def check_index(
    name: str, value: object, size: int, what: str = "items", negative: bool = False
) -> int:
    """Return ``value`` if it is a 0-based index into ``size`` items; with ``negative``, Python's
    negative indices count from the end (-1 is the last), else they are refused."""
    value = check_int(name, value, minimum=None if negative else 0)
    if negative and not -size <= value < size:
        raise ValueError(
            f"{name} must be in -{size} .. {size - 1} (there are {size} {what}), got {value}"
        )
    if value >= size:
        raise ValueError(f"{name} must be below {size} (there are {size} {what}), got {value}")
    return value
