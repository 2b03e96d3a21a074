"""Pooling against torch: `max_pool1d/2d` (values, indices, gradient to the arg-max),
`avg_pool1d/2d` (padding counted or not, ceil_mode), `adaptive_avg_pool2d`, the layers' reprs
and the errors.

The values, indices, gradients and node names are torch's, recorded in
tests/data/test_nn_pooling.json (scripts/record_torch_answers.py from `torch_answers`); the tests
of errors and layers compare with torch live and are skipped without it.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    answers_of,
    assert_case_as_recorded,
    assert_close,
    case_rng,
    pair,
    recorded_answers,
)

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import grad_check

# tasks 4.1-4.3 grade the exercise path (conftest.py)
pytestmark = pytest.mark.usefixtures("exercise_path")


RNG = np.random.default_rng(5)
TOLERANCE = {"float64": 1e-12, "float32": 1e-6}


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


ADAPTIVE = [((2, 3, 7, 6), (3, 4)), ((3, 7, 6), 1), ((3, 7, 6), (None, 4))]


def pool_case(name, shape, args, kwargs, dtype="float64"):
    """Case `key` -> (fn, arrays, options): `name` (of nn.functional) of a non-contiguous input."""
    key = repr((name, shape, args, kwargs, dtype))
    fn = lambda lib, x: getattr(lib.nn.functional, name)(x, *args, **kwargs)  # noqa: E731
    return key, (fn, [case_rng(key).normal(size=shape)], {"dtype": dtype, "transposed": True})


def cases() -> dict[str, tuple]:
    """Every case whose answer is recorded: key -> (fn, arrays, run_case's options)."""
    return dict(
        [pool_case("max_pool2d", *case, dtype) for case in MAX_POOL2D for dtype in TOLERANCE]
        + [pool_case("max_pool1d", *case) for case in MAX_POOL1D]
        + [pool_case("avg_pool2d", *case, dtype) for case in AVG_POOL2D for dtype in TOLERANCE]
        + [pool_case("avg_pool1d", *case) for case in AVG_POOL1D]
        + [pool_case("adaptive_avg_pool2d", shape, (size,), {}) for shape, size in ADAPTIVE]
    )


CASES = cases()
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    return answers_of(torch, CASES)


def assert_pooling_as_recorded(name, shape, args, kwargs, dtype="float64"):
    """Output, indices (if returned), grad_fn and input gradient are torch's."""
    key, _ = pool_case(name, shape, args, kwargs, dtype)
    assert_case_as_recorded(CASES, ANSWERS, key, TOLERANCE[dtype], TOLERANCE[dtype])


@pytest.mark.task4_3
@pytest.mark.parametrize("dtype", list(TOLERANCE))
@pytest.mark.parametrize("shape, args, kwargs", MAX_POOL2D)
def test_max_pool2d_matches_torch(shape, args, kwargs, dtype):
    assert_pooling_as_recorded("max_pool2d", shape, args, kwargs, dtype)


@pytest.mark.task4_3
@pytest.mark.parametrize("shape, args, kwargs", MAX_POOL1D)
def test_max_pool1d_matches_torch(shape, args, kwargs):
    assert_pooling_as_recorded("max_pool1d", shape, args, kwargs)


@pytest.mark.task4_3
@pytest.mark.parametrize("dtype", list(TOLERANCE))
@pytest.mark.parametrize("shape, args, kwargs", AVG_POOL2D)
def test_avg_pool2d_matches_torch(shape, args, kwargs, dtype):
    assert_pooling_as_recorded("avg_pool2d", shape, args, kwargs, dtype)


@pytest.mark.task4_3
@pytest.mark.parametrize("shape, args, kwargs", AVG_POOL1D)
def test_avg_pool1d_matches_torch(shape, args, kwargs):
    assert_pooling_as_recorded("avg_pool1d", shape, args, kwargs)


@pytest.mark.task4_3
def test_top_level_pool1d_are_the_functional_ones():
    x = minitorch.tensor(case_rng("pool1d").normal(size=(2, 3, 9)))
    assert minitorch.max_pool1d(x, 3, 2).tolist() == F.max_pool1d(x, 3, 2).tolist()
    assert minitorch.avg_pool1d(x, 3, 2).tolist() == F.avg_pool1d(x, 3, 2).tolist()


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


@pytest.mark.parametrize("shape, size", ADAPTIVE)
def test_adaptive_avg_pool2d_matches_torch(shape, size):
    assert_pooling_as_recorded("adaptive_avg_pool2d", shape, (size,), {})


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
def test_pooling_errors_are_torchs(torch, name, shape, args, kwargs):
    with pytest.raises(RuntimeError) as theirs:
        getattr(torch.nn.functional, name)(torch.zeros(shape), *args, **kwargs)
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
def test_pooling_layers_print_and_pool_as_torchs(torch, name, args, kwargs):
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
