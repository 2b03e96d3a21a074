"""Convolution against torch: `conv1d`, `conv2d` (values, the three gradients, grad_fn), the
`Conv1d`/`Conv2d` layers (parameters, initialisation, repr, errors) and `pad`.

The values, gradients and node names are torch's, recorded in tests/data/test_nn_conv.json
(scripts/record_torch_answers.py from `torch_answers`); the tests of errors, reprs and layers
compare with torch live and are skipped without it.
"""

from __future__ import annotations

import math

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
from hypothesis import HealthCheck, given, settings
from strategies import conv2d_setting, conv2d_settings

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import grad_check

# tasks 4.1-4.3 grade the exercise path (conftest.py)
pytestmark = pytest.mark.usefixtures("exercise_path")

RNG = np.random.default_rng(4)
TOLERANCE = {"float64": 1e-10, "float32": 2e-5}


# (input shape, weight shape, keyword arguments): 1-D and 2-D, stride, padding, dilation, groups
CONV1D = [
    ((2, 3, 9), (4, 3, 3), {}),
    ((2, 3, 9), (4, 3, 2), {"stride": 2, "padding": 1}),
    ((1, 4, 11), (6, 2, 3), {"dilation": 2, "padding": 2, "groups": 2}),
    ((3, 8), (2, 3, 4), {"padding": "same"}),  # unbatched, even kernel: padding after
    ((2, 2, 5), (3, 2, 5), {"padding": "valid"}),
]
CONV2D = [
    ((2, 3, 7, 6), (4, 3, 3, 2), {}),
    ((2, 3, 7, 6), (4, 3, 3, 3), {"stride": (2, 1), "padding": (1, 2)}),
    ((1, 4, 8, 7), (6, 2, 3, 2), {"dilation": (2, 1), "groups": 2, "stride": 2}),
    ((3, 6, 5), (2, 3, 3, 3), {"padding": "same", "dilation": 2}),  # unbatched
    ((2, 1, 5, 5), (3, 1, 5, 5), {"padding": 2}),
]
GRADIENT_CASES = [("conv2d", *case) for case in CONV2D] + [
    ("conv1d", *case) for case in CONV1D[1:3]
]


def random_conv2d(seed: int) -> tuple[tuple, tuple, dict]:
    """A random setting of strategies.conv2d_setting, drawn by NumPy from `seed`."""
    rng = np.random.default_rng(seed)
    return conv2d_setting(lambda low, high: int(rng.integers(low, high + 1)))


RANDOM_CONV2D = [random_conv2d(seed) for seed in range(8)]
PADS = [
    ((3, 4), (1, 2), None),
    ((2, 3, 4), (1, -1, 0, 2), 5.0),
    ((2, 3, 2), (0, 0, 1, 1, 2, 0), -1.0),
]
UNFOLDS = [
    ((2, 3, 6, 5), {"kernel_size": 2}),
    ((3, 6, 5), {"kernel_size": (3, 2), "dilation": (1, 2), "padding": 1, "stride": 2}),
]


def conv_case(name, x_shape, w_shape, kwargs, dtype="float64", grad=True, transposed=True):
    """Case `key` -> (fn, arrays, options): `name` (conv1d or conv2d) of input, weight, bias."""
    key = repr((name, x_shape, w_shape, kwargs, dtype, grad, transposed))
    rng = case_rng(key)
    arrays = [rng.normal(size=x_shape), rng.normal(size=w_shape), rng.normal(size=w_shape[:1])]
    options = {"differentiable": [grad] * 3, "dtype": dtype, "transposed": transposed}
    return key, (lambda lib, x, w, b: getattr(lib, name)(x, w, b, **kwargs), arrays, options)


def cases() -> dict[str, tuple]:
    """Every case whose answer is recorded: key -> (fn, arrays, run_case's options)."""
    found = dict(
        [
            conv_case("conv1d", *case, dtype, grad=False, transposed=False)
            for case in CONV1D
            for dtype in TOLERANCE
        ]
        + [conv_case("conv2d", *case, grad=False) for case in CONV2D]
        + [conv_case(*case, dtype) for case in GRADIENT_CASES for dtype in TOLERANCE]
        + [conv_case("conv2d", *case) for case in RANDOM_CONV2D]
    )
    for shape, pads, value in PADS:
        key = repr(("pad", shape, pads, value))
        fn = lambda lib, x, pads=pads, value=value: lib.nn.functional.pad(x, pads, value=value)  # noqa: E731
        found[key] = (fn, [case_rng(key).normal(size=shape)], {})
    for shape, kwargs in UNFOLDS:
        key = repr(("unfold", shape, kwargs))
        fn = lambda lib, x, kwargs=kwargs: lib.nn.functional.unfold(x, **kwargs)  # noqa: E731
        found[key] = (fn, [case_rng(key).normal(size=shape)], {"transposed": True})
    return found


CASES = cases()
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    return answers_of(torch, CASES)


@pytest.mark.task4_1
@pytest.mark.parametrize("dtype", list(TOLERANCE))
@pytest.mark.parametrize("x_shape, w_shape, kwargs", CONV1D)
def test_conv1d_forward_matches_torch(x_shape, w_shape, kwargs, dtype):
    key, _ = conv_case("conv1d", x_shape, w_shape, kwargs, dtype, grad=False, transposed=False)
    assert_case_as_recorded(CASES, ANSWERS, key, TOLERANCE[dtype], TOLERANCE[dtype])


@pytest.mark.task4_1
@pytest.mark.parametrize("x_shape, w_shape, kwargs", CONV2D)
def test_conv2d_forward_matches_torch_on_non_contiguous_input(x_shape, w_shape, kwargs):
    key, _ = conv_case("conv2d", x_shape, w_shape, kwargs, grad=False)
    assert_case_as_recorded(CASES, ANSWERS, key, 1e-10, 1e-10)


@pytest.mark.task4_1
def test_conv1d_by_hand_is_a_sliding_dot_product():
    x = minitorch.tensor([[[1.0, 2.0, 4.0, 8.0]]])
    w = minitorch.tensor([[[1.0, -1.0]]])
    # y[t] = x[t] - x[t + 1]: computed by hand, not by torch
    assert minitorch.conv1d(x, w).tolist() == [[[-1.0, -2.0, -4.0]]]
    assert minitorch.conv1d(x, w, stride=2, padding=1).tolist() == [[[-1.0, -2.0, 8.0]]]


@pytest.mark.task4_2
@pytest.mark.parametrize("dtype", list(TOLERANCE))
@pytest.mark.parametrize("name, x_shape, w_shape, kwargs", GRADIENT_CASES)
def test_conv_gradients_match_torch(name, x_shape, w_shape, kwargs, dtype):
    key, _ = conv_case(name, x_shape, w_shape, kwargs, dtype)
    tolerance = 10 * TOLERANCE[dtype]
    assert_case_as_recorded(CASES, ANSWERS, key, tolerance, tolerance)


@pytest.mark.task4_2
@pytest.mark.parametrize("x_shape, w_shape, kwargs", RANDOM_CONV2D)
def test_random_conv2d_matches_torch_forward_and_gradients(x_shape, w_shape, kwargs):
    key, _ = conv_case("conv2d", x_shape, w_shape, kwargs)
    assert_case_as_recorded(CASES, ANSWERS, key, 1e-10, 1e-10)


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(conv2d_settings())
def test_random_conv2d_matches_live_torch_forward_and_gradients(torch, case):
    x_shape, w_shape, kwargs = case
    x, tx = pair(RNG.normal(size=x_shape), requires_grad=True, transposed=True)
    w, tw = pair(RNG.normal(size=w_shape), requires_grad=True)
    b, tb = pair(RNG.normal(size=w_shape[:1]), requires_grad=True)
    out, expected = minitorch.conv2d(x, w, b, **kwargs), torch.conv2d(tx, tw, tb, **kwargs)
    assert_close(out, expected, "conv2d", 1e-10)
    g = RNG.normal(size=tuple(expected.shape))
    out.backward(minitorch.tensor(g, dtype=minitorch.float64))
    expected.backward(torch.tensor(g))
    for name, ours, theirs in zip(
        ("input", "weight", "bias"), (x, w, b), (tx, tw, tb), strict=True
    ):
        assert_close(ours.grad, theirs.grad, f"{name} grad", 1e-10)


@pytest.mark.task4_2
def test_conv2d_gradients_pass_central_differences():
    x = minitorch.randn(1, 2, 4, 3, dtype=minitorch.float64, requires_grad=True)
    w = minitorch.randn(2, 2, 2, 2, dtype=minitorch.float64, requires_grad=True)
    b = minitorch.randn(2, dtype=minitorch.float64, requires_grad=True)
    assert grad_check(lambda x, w, b: minitorch.conv2d(x, w, b, stride=2, padding=1), x, w, b)


@pytest.mark.task4_2
def test_conv1d_gradients_pass_central_differences_with_dilation_and_groups():
    x = minitorch.randn(2, 4, 7, dtype=minitorch.float64, requires_grad=True)
    w = minitorch.randn(2, 2, 3, dtype=minitorch.float64, requires_grad=True)
    assert grad_check(lambda x, w: minitorch.conv1d(x, w, dilation=2, groups=2), x, w)


def test_conv_node_is_convolution_backward_and_unbatched_is_squeezed():
    x = minitorch.randn(1, 2, 5, 5, requires_grad=True)
    w = minitorch.randn(3, 2, 3, 3)
    assert F.conv2d(x, w).grad_fn.name() == "ConvolutionBackward0"
    assert F.conv2d(x[0], w).grad_fn.name() == "SqueezeBackward1"  # as torch records it


CONV_ERRORS = [
    ((2, 2, 5, 5), (4, 3, 3, 3), {}),
    ((5, 5), (4, 3, 3, 3), {}),
    ((1, 3, 2, 2), (4, 3, 3, 3), {}),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"stride": 2, "padding": "same"}),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"stride": 0}),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"padding": -1}),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"dilation": 0}),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"padding": "bad"}),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"stride": (1, 1, 1)}),
    ((1, 4, 5, 5), (3, 2, 3, 3), {"groups": 2}),
    ((1, 3, 5, 5), (4, 2, 3, 3), {"groups": 2}),
    ((1, 4, 5, 5), (4, 2, 3, 3), {"groups": 0}),
]


@pytest.mark.parametrize("x_shape, w_shape, kwargs", CONV_ERRORS)
def test_conv2d_errors_are_torchs(torch, x_shape, w_shape, kwargs):
    with pytest.raises(RuntimeError) as theirs:
        torch.conv2d(torch.zeros(x_shape), torch.zeros(w_shape), **kwargs)
    with pytest.raises(RuntimeError) as ours:
        minitorch.conv2d(minitorch.zeros(*x_shape), minitorch.zeros(*w_shape), **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_conv_dtype_and_bias_errors_are_torchs(torch):
    cases = [
        ((minitorch.float64, minitorch.float32, None), (torch.float64, torch.float32, None)),
        ((minitorch.float32, minitorch.float64, None), (torch.float32, torch.float64, None)),
        (
            (minitorch.float32, minitorch.float32, minitorch.float64),
            (torch.float32,) * 2 + (torch.float64,),
        ),
    ]
    for (xd, wd, bd), (txd, twd, tbd) in cases:
        with pytest.raises(RuntimeError) as theirs:
            tb = None if tbd is None else torch.zeros(4, dtype=tbd)
            torch.conv2d(torch.zeros(1, 3, 5, 5, dtype=txd), torch.zeros(4, 3, 3, 3, dtype=twd), tb)
        with pytest.raises(RuntimeError) as ours:
            b = None if bd is None else minitorch.zeros(4, dtype=bd)
            minitorch.conv2d(
                minitorch.zeros(1, 3, 5, 5, dtype=xd), minitorch.zeros(4, 3, 3, 3, dtype=wd), b
            )
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(RuntimeError) as theirs:
        torch.conv2d(torch.zeros(1, 3, 5, 5), torch.zeros(4, 3, 3, 3), torch.zeros(3))
    with pytest.raises(RuntimeError) as ours:
        minitorch.conv2d(
            minitorch.zeros(1, 3, 5, 5), minitorch.zeros(4, 3, 3, 3), minitorch.zeros(3)
        )
    assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------------------
# The layers
# ---------------------------------------------------------------------------


LAYERS = [
    ("Conv2d", (1, 6, 5), {"padding": 2}),
    ("Conv2d", (4, 6, (3, 5)), {"padding": "same", "groups": 2}),
    ("Conv2d", (4, 6, 3), {"padding": "valid", "bias": False, "dilation": 2, "stride": 2}),
    ("Conv1d", (2, 3, 3), {"stride": 2, "padding": 1, "dilation": 2, "bias": False}),
    ("Conv1d", (3, 3, 1), {}),
    ("ConvTranspose2d", (4, 6, (3, 2)), {"stride": 2, "padding": 1, "output_padding": 1}),
    ("ConvTranspose2d", (4, 6, 3), {"groups": 2, "dilation": 2, "bias": False}),
    ("ConvTranspose1d", (2, 3, 3), {"stride": 2, "output_padding": 1}),
    ("ConvTranspose1d", (3, 3, 1), {}),
    ("Fold", ((4, 5), 2), {"padding": 1}),
    ("Unfold", ((2, 3),), {"dilation": 2, "stride": (1, 2)}),
]


@pytest.mark.parametrize("name, args, kwargs", LAYERS)
def test_conv_layer_repr_and_parameters_are_torchs(torch, name, args, kwargs):
    ours, theirs = (
        getattr(minitorch.nn, name)(*args, **kwargs),
        getattr(torch.nn, name)(*args, **kwargs),
    )
    assert repr(ours) == repr(theirs)
    ours_params = {k: tuple(p.shape) for k, p in ours.named_parameters()}
    assert ours_params == {k: tuple(p.shape) for k, p in theirs.named_parameters()}


@pytest.mark.parametrize("name, args, kwargs", LAYERS[:3])
def test_conv_layer_output_uses_its_own_parameters(torch, name, args, kwargs):
    layer = getattr(minitorch.nn, name)(*args, dtype=minitorch.float64, **kwargs)
    theirs = getattr(torch.nn, name)(*args, dtype=torch.float64, **kwargs)
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(layer.weight.detach().numpy()))
        if theirs.bias is not None:
            theirs.bias.copy_(torch.tensor(layer.bias.detach().numpy()))
    x, tx = pair(
        RNG.normal(size=(2, args[0], 9, 8)[: 4 if name == "Conv2d" else 3]), requires_grad=True
    )
    assert_close(layer(x), theirs(tx), "output", 1e-10)


def test_conv_init_is_uniform_within_one_over_sqrt_fan_in():
    layer = minitorch.nn.Conv2d(8, 16, 3)  # fan_in = 8 * 9 = 72
    bound = 1 / math.sqrt(72)
    for p in (layer.weight, layer.bias):
        values = p.detach().numpy().ravel()
        assert np.all(np.abs(values) <= bound)
    weights = layer.weight.detach().numpy().ravel()  # 1152 draws spread over the range
    assert weights.max() > 0.9 * bound and weights.min() < -0.9 * bound
    assert abs(weights.std() - bound / math.sqrt(3)) < 0.1 * bound


LAYER_ERRORS = [
    ((3, 4, 3), {"groups": 2}),
    ((4, 3, 3), {"groups": 2}),
    ((3, 4, 3), {"stride": 2, "padding": "same"}),
    ((3, 4, 3), {"padding": "foo"}),
]


@pytest.mark.parametrize("args, kwargs", LAYER_ERRORS)
def test_conv_layer_argument_errors_are_torchs(torch, args, kwargs):
    with pytest.raises(ValueError) as theirs:
        torch.nn.Conv2d(*args, **kwargs)
    with pytest.raises(ValueError) as ours:
        minitorch.nn.Conv2d(*args, **kwargs)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize(
    "name, shape",
    [("Conv2d", (2, 2, 5, 5)), ("Conv2d", (5, 5)), ("Conv1d", (2, 3, 5, 5)), ("Conv1d", (5,))],
)
def test_conv_layer_input_errors_are_torchs(torch, name, shape):
    with pytest.raises(RuntimeError) as theirs:
        getattr(torch.nn, name)(3, 4, 3)(torch.zeros(shape))
    with pytest.raises(RuntimeError) as ours:
        getattr(minitorch.nn, name)(3, 4, 3)(minitorch.zeros(*shape))
    assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------------------
# pad
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape, pads, value", PADS)
def test_pad_matches_torch_values_and_gradient(shape, pads, value):
    assert_case_as_recorded(CASES, ANSWERS, repr(("pad", shape, pads, value)), 0, 0)


@pytest.mark.parametrize(
    "shape, pads", [((3, 3), (1,)), ((3, 3), (1, 1, 1, 1, 1, 1)), ((3, 3), (-2, -2))]
)
def test_pad_errors_are_torchs(torch, shape, pads):
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.functional.pad(torch.zeros(shape), pads)
    with pytest.raises(RuntimeError) as ours:
        F.pad(minitorch.zeros(*shape), pads)
    assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------------------
# unfold (im2col)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape, kwargs", UNFOLDS)
def test_unfold_matches_torch_values_and_gradient(shape, kwargs):
    assert_case_as_recorded(CASES, ANSWERS, repr(("unfold", shape, kwargs)), 1e-12, 1e-12)


@pytest.mark.parametrize("kwargs", [{"kernel_size": 3}, {"kernel_size": 2, "stride": 0}])
def test_unfold_errors_are_torchs(torch, kwargs):
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.functional.unfold(torch.zeros(1, 1, 2, 2), **kwargs)
    with pytest.raises(RuntimeError) as ours:
        F.unfold(minitorch.zeros(1, 1, 2, 2), **kwargs)
    assert str(ours.value) == str(theirs.value)
