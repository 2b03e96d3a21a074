"""Pooling against torch: `max_pool1d/2d` (values, indices, gradient to the arg-max),
`avg_pool1d/2d` (padding counted or not, ceil_mode), `adaptive_avg_pool2d`, the layers' reprs
and the errors.

Skipped when torch is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_close, pair

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import grad_check

torch = pytest.importorskip("torch")
TF = torch.nn.functional
# tasks 4.1-4.3 grade the exercise path (conftest.py)
pytestmark = [pytest.mark.torch, pytest.mark.usefixtures("exercise_path")]


RNG = np.random.default_rng(5)
DTYPES = {
    "float64": (minitorch.float64, torch.float64, 1e-12),
    "float32": (minitorch.float32, torch.float32, 1e-6),
}


def check_against_torch(fn, torch_fn, shape, args, kwargs, dtype="float64", transposed=True):
    """Output, indices (if returned), grad_fn and input gradient of `fn` and of `torch_fn`."""
    x, tx = pair(RNG.normal(size=shape), dtype, requires_grad=True, transposed=transposed)
    out, expected = fn(x, *args, **kwargs), torch_fn(tx, *args, **kwargs)
    if isinstance(expected, tuple):
        assert out[1].dtype is minitorch.int64
        assert out[1].tolist() == expected[1].tolist(), "indices"
        out, expected = out[0], expected[0]
    tol = DTYPES[dtype][2]
    assert_close(out, expected, "output", tol)
    assert out.grad_fn.name() == expected.grad_fn.name()
    g = RNG.normal(size=tuple(expected.shape))
    out.backward(minitorch.tensor(g, dtype=DTYPES[dtype][0]))
    expected.backward(torch.tensor(g, dtype=DTYPES[dtype][1]))
    assert_close(x.grad, tx.grad, "input grad", tol)


MAX_POOL2D = [
    ((2, 3, 6, 6), (2,), {}),
    ((2, 3, 7, 6), (3, 2, 1), {"return_indices": True}),  # overlapping windows
    ((3, 7, 6), ((3, 2), (2, 1), (1, 1), 2), {"ceil_mode": True, "return_indices": True}),
    ((1, 2, 7, 5), (2,), {"ceil_mode": True, "return_indices": True}),
]
MAX_POOL1D = [((2, 3, 9), (3, 2, 1), {"return_indices": True}), ((3, 7), (2,), {"ceil_mode": True})]
AVG_POOL2D = [
    ((2, 3, 6, 6), (2,), {}),
    ((2, 3, 7, 6), (3, 2, 1), {"ceil_mode": True, "count_include_pad": False}),
    ((3, 7, 6), (3, 2, 1), {"ceil_mode": True}),
    ((1, 2, 5, 5), ((3, 2), 1, (1, 0)), {"divisor_override": 2}),
]
AVG_POOL1D = [
    ((2, 3, 9), (3, 2, 1), {"ceil_mode": True}),
    ((3, 7), (2,), {"count_include_pad": False}),
]


@pytest.mark.task4_3
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape, args, kwargs", MAX_POOL2D)
def test_max_pool2d_matches_torch(shape, args, kwargs, dtype):
    check_against_torch(F.max_pool2d, TF.max_pool2d, shape, args, kwargs, dtype)


@pytest.mark.task4_3
@pytest.mark.parametrize("shape, args, kwargs", MAX_POOL1D)
def test_max_pool1d_matches_torch(shape, args, kwargs):
    check_against_torch(minitorch.max_pool1d, TF.max_pool1d, shape, args, kwargs)


@pytest.mark.task4_3
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape, args, kwargs", AVG_POOL2D)
def test_avg_pool2d_matches_torch(shape, args, kwargs, dtype):
    check_against_torch(F.avg_pool2d, TF.avg_pool2d, shape, args, kwargs, dtype)


@pytest.mark.task4_3
@pytest.mark.parametrize("shape, args, kwargs", AVG_POOL1D)
def test_avg_pool1d_matches_torch(shape, args, kwargs):
    check_against_torch(minitorch.avg_pool1d, TF.avg_pool1d, shape, args, kwargs)


@pytest.mark.task4_3
def test_max_pool_gradient_goes_to_the_first_maximum_only():
    # by hand: the window [[1, 3], [3, 0]] has its maximum twice; the first one wins
    x = minitorch.tensor([[[[1.0, 3.0], [3.0, 0.0]]]], requires_grad=True)
    values, indices = F.max_pool2d(x, 2, return_indices=True)
    values.sum().backward()
    assert values.tolist() == [[[[3.0]]]] and indices.tolist() == [[[[1]]]]
    assert x.grad.tolist() == [[[[0.0, 1.0], [0.0, 0.0]]]]


@pytest.mark.task4_3
def test_pooling_gradients_pass_central_differences():
    x = minitorch.randn(1, 2, 5, 4, dtype=minitorch.float64, requires_grad=True)
    assert grad_check(lambda x: F.max_pool2d(x, 3, 2, 1), x)
    assert grad_check(lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True), x)


@pytest.mark.parametrize(
    "shape, size", [((2, 3, 7, 6), (3, 4)), ((3, 7, 6), 1), ((3, 7, 6), (None, 4))]
)
def test_adaptive_avg_pool2d_matches_torch(shape, size):
    check_against_torch(F.adaptive_avg_pool2d, TF.adaptive_avg_pool2d, shape, (size,), {})


def test_adaptive_avg_pool2d_to_nothing_is_empty_as_torchs():
    assert tuple(F.adaptive_avg_pool2d(minitorch.zeros(1, 3, 5, 5), 0).shape) == (1, 3, 0, 0)


def test_adaptive_avg_pool_gradient_passes_central_differences():
    x = minitorch.randn(1, 2, 5, 4, dtype=minitorch.float64, requires_grad=True)
    assert grad_check(lambda x: F.adaptive_avg_pool2d(x, (3, 3)), x)


POOL_ERRORS = [
    ("max_pool2d", (1, 3, 5, 5), (2,), {"padding": 2}),
    ("max_pool2d", (1, 3, 1, 1), (2,), {}),
    ("max_pool2d", (1, 3, 5, 5), (2,), {"stride": 0}),
    ("max_pool2d", (1, 3, 5, 5), (3,), {"dilation": 0}),
    ("max_pool2d", (1, 3, 5, 5), ((2, 2, 2),), {}),
    ("max_pool2d", (1, 3, 5, 5), (2,), {"padding": -1}),
    ("max_pool2d", (1, 0, 5, 5), (2,), {}),
    ("avg_pool2d", (1, 3, 5, 5), (2,), {"padding": 2}),
    ("avg_pool2d", (1, 3, 1, 1), (2,), {}),
    ("avg_pool2d", (1, 3, 5, 5), (2,), {"divisor_override": 0}),
    ("max_pool1d", (1, 3, 5, 5), (2,), {}),
    ("max_pool1d", (1, 3, 5), (6,), {}),
    ("max_pool1d", (1, 3, 5), (0,), {}),
    ("avg_pool1d", (1, 3, 5, 5), (2,), {}),
    ("adaptive_avg_pool2d", (5,), (2,), {}),
]


@pytest.mark.parametrize("name, shape, args, kwargs", POOL_ERRORS)
def test_pooling_errors_are_torchs(name, shape, args, kwargs):
    with pytest.raises(RuntimeError) as theirs:
        getattr(TF, name)(torch.zeros(shape), *args, **kwargs)
    with pytest.raises(RuntimeError) as ours:
        getattr(F, name)(minitorch.zeros(*shape), *args, **kwargs)
    assert str(ours.value) == str(theirs.value)


LAYERS = [
    ("MaxPool2d", (2,), {}),
    ("MaxPool2d", (3, 2, 1), {"ceil_mode": True, "return_indices": True}),
    ("MaxPool1d", (3, 2), {}),
    ("AvgPool2d", (2,), {}),
    ("AvgPool2d", ((3, 2), 1, 1), {"ceil_mode": True, "count_include_pad": False}),
    ("AvgPool1d", (3,), {}),
    ("AdaptiveAvgPool2d", ((5, 7),), {}),
    ("AdaptiveAvgPool2d", (1,), {}),
]


@pytest.mark.parametrize("name, args, kwargs", LAYERS)
def test_pooling_layers_print_and_pool_as_torchs(name, args, kwargs):
    ours, theirs = (
        getattr(minitorch.nn, name)(*args, **kwargs),
        getattr(torch.nn, name)(*args, **kwargs),
    )
    assert repr(ours) == repr(theirs)
    shape = (2, 3, 9) if name.endswith("1d") else (2, 3, 9, 8)
    x, tx = pair(RNG.normal(size=shape), requires_grad=True)
    out, expected = ours(x), theirs(tx)
    if isinstance(expected, tuple):
        assert out[1].tolist() == expected[1].tolist()
        out, expected = out[0], expected[0]
    assert_close(out, expected, name, 1e-12)
