"""Writing through indexing as torch 2.13 does: setitem broadcasts the value after dropping its
leading size-1 dims, a bool mask casts a one-element value of another dtype, and scatter and
gather take a 0-dim index as one element.

The expected results are torch 2.13's, written out, so these run without torch; the `_live`
twins compare with torch itself where it is installed.
"""

import numpy as np
import pytest
from helpers import types_named_for_the_test_device

import minitorch


def setitem_outcome(lib, target_shape: tuple, key, value_shape: tuple, dtype=None, mask=None):
    """`zeros(target_shape)[key] = arange(...)` of `value_shape` (and `dtype`; `mask`: key is
    that bool tensor): the values written, or the error's type and text."""
    target = lib.zeros(target_shape)
    n = int(np.prod(value_shape))
    value = lib.arange(1.0, n + 1, dtype=dtype or lib.float32).reshape(value_shape)
    try:
        target[lib.tensor(mask) if mask is not None else key] = value
    except RuntimeError as error:
        return type(error).__name__, str(error).replace("minitorch.", "torch.")
    return target.tolist()


def as_on_the_test_device(outcome):
    """An outcome on the CPU (torch's) with its error's text naming the tensor types as torch
    names them on the test's device."""
    if isinstance(outcome, tuple):
        return outcome[0], types_named_for_the_test_device(outcome[1])
    return outcome


SETITEM_LEADING_ONES = [  # (target shape, key, value shape, what torch 2.13 gives)
    ((3,), ..., (1, 3), [1.0, 2.0, 3.0]),
    ((3,), ..., (1, 1, 3), [1.0, 2.0, 3.0]),
    ((), ..., (1, 1), 1.0),
    ((3, 2), slice(1, None), (1, 1, 2), [[0.0, 0.0], [1.0, 2.0], [1.0, 2.0]]),
    ((3, 2), slice(1, None), (1, 2, 1), [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]),
    ((3, 2), 1, (1, 1, 2), [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]]),
    ((5,), [0, 2], (1, 2), [1.0, 0.0, 2.0, 0.0, 0.0]),
    ((5,), [0, 2], (1, 1, 2), [1.0, 0.0, 2.0, 0.0, 0.0]),
    (
        (3,),
        ...,
        (1, 2, 3),
        (
            "RuntimeError",
            "expand(torch.FloatTensor{[2, 3]}, size=[3]): the number of sizes provided (1) "
            "must be greater or equal to the number of dimensions in the tensor (2)",
        ),
    ),
    (
        (5,),
        [0, 2],
        (1, 2, 2),
        (
            "RuntimeError",
            "shape mismatch: value tensor of shape [2, 2] cannot be broadcast to indexing "
            "result of shape [2]",
        ),
    ),
]


@pytest.mark.parametrize("target_shape, key, value_shape, expected", SETITEM_LEADING_ONES, ids=repr)
def test_setitem_drops_the_values_leading_ones_first(target_shape, key, value_shape, expected):
    """PyTorch views the value without its leading size-1 dims before it broadcasts it."""
    outcome = setitem_outcome(minitorch, target_shape, key, value_shape)
    assert outcome == as_on_the_test_device(expected)


@pytest.mark.parametrize(
    "target_shape, key, value_shape", [case[:3] for case in SETITEM_LEADING_ONES], ids=repr
)
def test_setitem_with_leading_ones_like_torch_live(torch, target_shape, key, value_shape):
    ours = setitem_outcome(minitorch, target_shape, key, value_shape)
    assert ours == as_on_the_test_device(setitem_outcome(torch, target_shape, key, value_shape))


def test_setitem_gradient_reaches_a_value_with_leading_ones():
    value = minitorch.ones(1, 3, requires_grad=True)
    a = minitorch.zeros(2, 3)
    a[1:] = value * 2
    a.sum().backward()
    assert value.grad.tolist() == [[2.0, 2.0, 2.0]]


MASK_FILLS = [  # (target shape, key, value, value's dtype, what torch 2.13 gives)
    ((3,), "mask", 2.5, "float64", [2.5, 0.0, 2.5]),
    ((3,), "mask", [2.5], "float64", [2.5, 0.0, 2.5]),
    ((3,), "mask", 2, "int64", [2.0, 0.0, 2.0]),
    ((3, 2), "mask", 2.5, "float64", [[2.5, 2.5], [0.0, 0.0], [2.5, 2.5]]),
    ((2, 3), "columns", 2.5, "float64", [[2.5, 0.0, 2.5], [2.5, 0.0, 2.5]]),
    (
        (3,),
        "mask",
        [1.5, 2.5],
        "float64",
        (
            "RuntimeError",
            "Index put requires the source and destination dtypes match, got Float for the "
            "destination and Double for the source.",
        ),
    ),
    (
        (3,),
        "indices",
        2.5,
        "float64",
        (
            "RuntimeError",
            "Index put requires the source and destination dtypes match, got Float for the "
            "destination and Double for the source.",
        ),
    ),
]


def mask_fill_outcome(lib, target_shape: tuple, key: str, value, dtype: str):
    """`zeros(target_shape)[key] = tensor(value, dtype)`: the float32 values, or the error."""
    target, mask = lib.zeros(target_shape), lib.tensor([True, False, True])
    keys = {"mask": mask, "columns": (slice(None), mask), "indices": lib.tensor([0, 2])}
    source = lib.tensor(value, dtype=getattr(lib, dtype), requires_grad=dtype == "float64")
    try:
        target[keys[key]] = source
    except RuntimeError as error:
        return type(error).__name__, str(error)
    assert target.dtype == lib.float32
    if source.requires_grad:
        target.sum().backward()
        assert source.grad.dtype == lib.float64
        written = (target != 0).sum().item()  # each written element adds 1 to the gradient
        assert source.grad.sum().item() == written
    return target.tolist()


@pytest.mark.parametrize("target_shape, key, value, dtype, expected", MASK_FILLS, ids=repr)
def test_mask_setitem_casts_one_value_of_another_dtype(target_shape, key, value, dtype, expected):
    """One element where a bool mask is True is PyTorch's masked_fill_, which casts it; other
    advanced writes still need the destination's dtype."""
    assert mask_fill_outcome(minitorch, target_shape, key, value, dtype) == expected


@pytest.mark.parametrize(
    "target_shape, key, value, dtype", [case[:4] for case in MASK_FILLS], ids=repr
)
def test_mask_setitem_of_another_dtype_like_torch_live(torch, target_shape, key, value, dtype):
    ours = mask_fill_outcome(minitorch, target_shape, key, value, dtype)
    assert ours == mask_fill_outcome(torch, target_shape, key, value, dtype)


def scatter_gather_of_a_0d_index(lib) -> dict:
    """The data-transforms tutorial's one-hot label, and the other ops along a dim, with a
    0-dim index: values and shapes (and scatter's gradients)."""
    one = lib.tensor(1)
    results = {
        "one_hot": lib.zeros(10).scatter_(0, lib.tensor(3), value=1),
        "src_0d": lib.zeros(4).scatter(0, one, lib.tensor(5.0)),
        "src_1d": lib.zeros(4).scatter(0, one, lib.tensor([5.0, 6.0])),
        "add": lib.zeros(3).scatter_add(0, one, lib.tensor(4.0)),
        "prod": lib.ones(3).scatter_reduce(0, one, lib.tensor(4.0), "prod"),
        "gather": lib.tensor([1.0, 2.0, 3.0]).gather(0, one),
    }
    x, s = lib.zeros(3, requires_grad=True), lib.tensor(4.0, requires_grad=True)
    (x.scatter(0, one, s) * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
    results["grads"] = (x.grad, s.grad)
    return {
        name: [(t.tolist(), tuple(t.shape)) for t in (r if isinstance(r, tuple) else (r,))]
        for name, r in results.items()
    }


def test_scatter_and_gather_take_a_0d_index_as_one_element():
    assert scatter_gather_of_a_0d_index(minitorch) == {  # torch 2.13
        "one_hot": [([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], (10,))],
        "src_0d": [([0.0, 5.0, 0.0, 0.0], (4,))],
        "src_1d": [([0.0, 5.0, 0.0, 0.0], (4,))],
        "add": [([0.0, 4.0, 0.0], (3,))],
        "prod": [([1.0, 4.0, 1.0], (3,))],
        "gather": [(2.0, ())],
        "grads": [([1.0, 0.0, 3.0], (3,)), (2.0, ())],
    }


def test_scatter_and_gather_of_a_0d_index_like_torch_live(torch):
    assert scatter_gather_of_a_0d_index(minitorch) == scatter_gather_of_a_0d_index(torch)
