"""Edge cases of reductions and conversions whose answers are torch 2.13's, written out.

`var`/`std` of an empty tensor are NaN with torch's warning; `float()`/`int()` of a tensor of
several elements and `index_select` out of range raise torch's errors. These run without
torch; the `_live` twins compare with torch itself where it is installed.
"""

import math
import warnings

import numpy as np
import pytest

import minitorch

EMPTY_VAR_STD = [  # (op, shape, keywords, result's shape), all NaN and warned in torch 2.13
    ("var", (0,), {}, ()),
    ("std", (0,), {}, ()),
    ("var", (0,), {"correction": 0}, ()),
    ("var", (0, 3), {"dim": 0}, (3,)),
    ("std", (0, 3), {"dim": 1}, (0,)),
    ("var", (0, 3), {"dim": 1, "keepdim": True}, (0, 1)),
    ("std", (2, 0), {"dim": (0, 1)}, ()),
]


def empty_var_std(lib, op: str, shape: tuple, keywords: dict):
    """`op` of an empty float64 tensor: its shape, its values' text and the warnings' texts."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = getattr(lib.zeros(shape, dtype=lib.float64), op)(**keywords)
    # torch's text ends with where in its C++ source it was raised: " (Triggered internally at ...)"
    texts = [
        str(w.message).split(" (Triggered internally")[0]
        for w in caught
        if issubclass(w.category, UserWarning)  # not the CUDA simulator's NumPy RuntimeWarnings
    ]
    return tuple(out.shape), str(out.tolist()), texts


@pytest.mark.parametrize("op, shape, keywords, out_shape", EMPTY_VAR_STD, ids=repr)
def test_var_and_std_of_nothing_are_nan_with_torchs_warning(op, shape, keywords, out_shape):
    """Not -0. (0 / (0 - 1)): the divisor is max(0, n - correction), and n is 0 for any empty
    input, so that torch's warning comes even where the reduced dims are not empty."""
    got_shape, text, warned = empty_var_std(minitorch, op, shape, keywords)
    assert got_shape == out_shape
    assert text == str([math.nan] * int(np.prod(out_shape)) if out_shape else math.nan)
    assert warned == [
        f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the "
        "reduction factor (input numel divided by output numel)."
    ]


@pytest.mark.parametrize("op, shape, keywords", [case[:3] for case in EMPTY_VAR_STD], ids=repr)
def test_var_and_std_of_nothing_like_torch_live(torch, op, shape, keywords):
    assert empty_var_std(minitorch, op, shape, keywords) == empty_var_std(
        torch, op, shape, keywords
    )


CONVERSION_ERRORS = {  # what torch 2.13 raises: (type, text)
    "float": (
        lambda lib: float(lib.ones(2)),
        "ValueError",
        "only one element tensors can be converted to Python scalars",
    ),
    "int": (
        lambda lib: int(lib.ones(0)),
        "ValueError",
        "only one element tensors can be converted to Python scalars",
    ),
    "complex": (
        lambda lib: complex(lib.ones(2)),
        "ValueError",
        "only one element tensors can be converted to Python scalars",
    ),
    "item": (
        lambda lib: lib.ones(2).item(),
        "RuntimeError",
        "a Tensor with 2 elements cannot be converted to Scalar",
    ),
    "bool": (
        lambda lib: bool(lib.ones(2)),
        "RuntimeError",
        "Boolean value of Tensor with more than one value is ambiguous",
    ),
    "bool_empty": (
        lambda lib: bool(lib.ones(0)),
        "RuntimeError",
        "Boolean value of Tensor with no values is ambiguous",
    ),
    "index_select": (
        lambda lib: lib.ones(3).index_select(0, lib.tensor([5])),
        "IndexError",
        "index out of range in self",
    ),
    "index_select_0d": (
        lambda lib: lib.ones(3).index_select(0, lib.tensor(7)),
        "IndexError",
        "index out of range in self",
    ),
    "index_select_dim_1": (
        lambda lib: lib.ones(2, 3).index_select(1, lib.tensor([0, 5])),
        "RuntimeError",
        "INDICES element is out of DATA bounds, id=5 axis_dim=3",  # torch's CPU text off dim 0
    ),
    "index_select_negative": (
        lambda lib: lib.ones(3, 2).index_select(0, lib.tensor([-1])),
        "IndexError",
        "index out of range in self",
    ),
}


def raised(function, lib) -> tuple[str, str]:
    with pytest.raises(Exception) as caught:
        function(lib)
    return caught.type.__name__, str(caught.value)


@pytest.mark.parametrize("name", CONVERSION_ERRORS)
def test_conversion_and_index_select_errors_are_torchs(name):
    """float()/int() of many elements are ValueErrors (item() stays a RuntimeError), and an
    index_select out of range is torch's IndexError, not a NumPy-worded RuntimeError."""
    function, *expected = CONVERSION_ERRORS[name]
    assert raised(function, minitorch) == tuple(expected)


@pytest.mark.parametrize("name", CONVERSION_ERRORS)
def test_conversion_and_index_select_errors_like_torch_live(torch, name):
    function = CONVERSION_ERRORS[name][0]
    assert raised(function, minitorch) == raised(function, torch)
