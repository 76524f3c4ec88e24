"""vitexplain._checks: the argument checks every entry point uses."""

import math

import numpy as np
import pytest
import torch

from vitexplain._checks import (
    MAX_ELEMENTS,
    check_array,
    check_elements,
    check_int,
    check_number,
    check_same_dtype,
)


@pytest.mark.parametrize(
    "value", [3, np.int64(3), torch.tensor(3), torch.tensor([3]), np.array(3), np.array([3])]
)
def test_check_number_accepts_every_int_form_check_int_accepts(value):
    assert check_number("base", value) == 3.0 and isinstance(check_number("base", value), float)
    if not isinstance(value, np.ndarray) or value.ndim == 0:  # check_int refuses a (1,) array
        assert check_int("base", value) == 3


@pytest.mark.parametrize("value", [2.5, np.float32(2.5), torch.tensor(2.5), np.array(2.5)])
def test_check_number_accepts_real_scalars_and_one_element_tensors(value):
    assert check_number("scale", value) == 2.5


@pytest.mark.parametrize(
    "value", [True, "2", None, torch.tensor(True), torch.zeros(2), np.zeros(2), 1j]
)
def test_check_number_refuses_what_is_not_one_real_number(value):
    with pytest.raises(TypeError, match="scale must be a number"):
        check_number("scale", value)


def test_check_number_bounds_and_nan():
    with pytest.raises(ValueError, match="scale must be finite, got nan"):
        check_number("scale", torch.tensor(math.nan))
    with pytest.raises(ValueError, match="chance must be at most 1"):
        check_number("chance", 1.5, minimum=0, maximum=1)
    with pytest.raises(ValueError, match="lr must be greater than 0"):
        check_number("lr", 0, minimum=0, inclusive=False)


def test_check_elements_refuses_past_the_limit_with_the_cost_but_not_on_the_meta_device():
    assert check_elements("a table", MAX_ELEMENTS) == MAX_ELEMENTS
    with pytest.raises(ValueError, match=r"a table would hold 134,217,729 numbers \(1.0 GiB\)"):
        check_elements("a table", MAX_ELEMENTS + 1)
    with torch.device("meta"):  # nothing is allocated there: counting a big model is fine
        assert check_elements("a table", 10 * MAX_ELEMENTS) == 10 * MAX_ELEMENTS


def test_check_array_names_the_argument():
    assert check_array("image", torch.ones(2, 3), ndim=2).shape == (2, 3)
    with pytest.raises(TypeError, match="image must be an array of numbers, got 'x'"):
        check_array("image", "x")
    with pytest.raises(TypeError, match="image must hold numbers"):
        check_array("image", [["a", "b"]])
    with pytest.raises(ValueError, match="image must be a rectangular array"):
        check_array("image", [[1, 2], [3]])
    with pytest.raises(ValueError, match=r"image must have 2 or 3 dimensions, got shape \(4,\)"):
        check_array("image", np.zeros(4), ndim=(2, 3))
    with pytest.raises(ValueError, match="image must be finite"):
        check_array("image", [1.0, math.nan], finite=True)


def test_check_same_dtype_names_each_tensor():
    q, k = torch.zeros(2, dtype=torch.float64), torch.zeros(2)
    assert check_same_dtype(q=k, k=k) == torch.float32
    with pytest.raises(TypeError, match="q, k must share one dtype, got q float64, k float32"):
        check_same_dtype(q=q, k=k)
