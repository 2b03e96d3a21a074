"""Transposed convolution and col2im against torch: `conv_transpose1d`/`conv_transpose2d`
(values, the three gradients, grad_fn; strides, padding, output padding, dilation, groups),
`fold`, and the layers `ConvTranspose1d`/`ConvTranspose2d`, `Fold`, `Unfold`.

The values and gradients are torch's, recorded in tests/data/test_nn_conv_transpose.json
(scripts/record_torch_answers.py from `torch_answers`); each recorded case runs on the default
backend (its window kernels) and on the reference one (the exercise path of windows and
col2im). Gradients are also checked against central differences; errors and reprs are
compared with torch live.
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
    same_error,
)

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import grad_check

TOLERANCE = {"float64": 1e-10, "float32": 2e-5}
BACKENDS = ["fast", "simple"]  # the window kernels, and the exercise path

# (input shape, weight shape, keyword arguments)
TRANSPOSED_1D = [
    ((2, 3, 7), (3, 4, 3), {}),
    ((2, 4, 6), (4, 3, 2), {"stride": 3, "padding": 1, "output_padding": 2}),
    ((1, 4, 5), (4, 2, 3), {"dilation": 2, "groups": 2, "output_padding": 1}),  # op < dilation
    ((3, 9), (3, 2, 4), {"stride": 2, "padding": 2}),  # unbatched
]
TRANSPOSED_2D = [
    ((2, 3, 5, 4), (3, 2, 3, 2), {}),
    ((2, 4, 5, 6), (4, 3, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    (
        (1, 4, 4, 5),
        (4, 2, 3, 2),
        {
            "stride": (2, 3),
            "padding": (1, 2),
            "output_padding": (1, 0),
            "dilation": (1, 2),
            "groups": 2,
        },
    ),  # fmt: skip
    ((1, 6, 3, 4), (6, 1, 2, 3), {"groups": 3, "dilation": 2, "output_padding": 1}),
    ((3, 4, 5), (3, 2, 3, 3), {"stride": 2}),  # unbatched
    ((2, 2, 3, 3), (2, 3, 5, 5), {"padding": 3}),  # padding crops all but the centre
]
FOLDS = [
    ((2, 12, 12), {"output_size": (4, 5), "kernel_size": 2}),
    (
        (18, 12),
        {
            "output_size": (7, 6),
            "kernel_size": (3, 2),
            "dilation": (2, 1),
            "padding": 1,
            "stride": 2,
        },
    ),  # fmt: skip
    ((1, 8, 6), {"output_size": 5, "kernel_size": (2, 1), "stride": (3, 2)}),  # gaps: zeros
]


def transposed_case(name, x_shape, w_shape, kwargs, dtype, bias=True):
    """Case `key` -> (fn, arrays, options): `name` of input, weight (and bias)."""
    key = repr((name, x_shape, w_shape, kwargs, dtype, bias))
    rng = case_rng(key)
    arrays = [rng.normal(size=x_shape), rng.normal(size=w_shape)]
    if bias:
        arrays.append(rng.normal(size=(w_shape[1] * kwargs.get("groups", 1),)))
    options = {"dtype": dtype, "transposed": True}
    return key, (lambda lib, *t: getattr(lib, name)(*t, **kwargs), arrays, options)


def fold_case(shape, kwargs, dtype):
    key = repr(("fold", shape, kwargs, dtype))
    fn = lambda lib, x: lib.nn.functional.fold(x, **kwargs)  # noqa: E731
    return key, (fn, [case_rng(key).normal(size=shape)], {"dtype": dtype, "transposed": True})


def transposed_cases() -> list[tuple]:
    """(name, x_shape, w_shape, kwargs, dtype, bias) of every recorded transposed case."""
    found = [
        (name, *case, dtype, True)
        for name, table in (
            ("conv_transpose1d", TRANSPOSED_1D),
            ("conv_transpose2d", TRANSPOSED_2D),
        )
        for case in table
        for dtype in TOLERANCE
    ]
    return found + [("conv_transpose2d", *TRANSPOSED_2D[1], "float64", False)]


def cases() -> dict[str, tuple]:
    """Every case whose answer is recorded: key -> (fn, arrays, run_case's options)."""
    found = dict(transposed_case(*case) for case in transposed_cases())
    found.update(fold_case(shape, kwargs, dtype) for shape, kwargs in FOLDS for dtype in TOLERANCE)
    return found


CASES = cases()
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    return answers_of(torch, CASES)


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Each test runs on the default backend and on the reference one."""
    previous = minitorch.get_backend().name
    minitorch.set_backend(request.param)
    try:
        yield request.param
    finally:
        minitorch.set_backend(previous)


@pytest.mark.parametrize("case", transposed_cases(), ids=repr)
def test_conv_transpose_matches_torch_values_and_gradients(backend, case):
    key, _ = transposed_case(*case)
    tolerance = 10 * TOLERANCE[case[4]]
    assert_case_as_recorded(CASES, ANSWERS, key, tolerance, tolerance)


@pytest.mark.parametrize("dtype", list(TOLERANCE))
@pytest.mark.parametrize("shape, kwargs", FOLDS)
def test_fold_matches_torch_values_and_gradient(backend, shape, kwargs, dtype):
    key, _ = fold_case(shape, kwargs, dtype)
    assert_case_as_recorded(CASES, ANSWERS, key, TOLERANCE[dtype], TOLERANCE[dtype])


def test_conv_transpose_by_hand_spreads_each_input_over_the_kernel():
    x = minitorch.tensor([[[1.0, 10.0]]])
    w = minitorch.tensor([[[1.0, 2.0, 3.0]]])
    # y[t] = sum_i x[i] w[t - s i]: by hand, not by torch
    assert minitorch.conv_transpose1d(x, w).tolist() == [[[1.0, 12.0, 23.0, 30.0]]]
    assert F.conv_transpose1d(x, w, stride=3, output_padding=1).tolist() == [
        [[1.0, 2.0, 3.0, 10.0, 20.0, 30.0, 0.0]]
    ]
    assert F.conv_transpose1d(x, w, padding=1).tolist() == [[[12.0, 23.0]]]


def test_conv_transpose_is_the_input_gradient_of_conv(backend):
    """<conv_transpose(y, W), x> = <y, conv(x, W)> for every x, y: the adjoint."""
    rng = np.random.default_rng(3)
    x = minitorch.tensor(rng.normal(size=(2, 4, 9, 8)))
    w = minitorch.tensor(rng.normal(size=(6, 2, 3, 2)))
    settings = {"stride": (2, 3), "padding": (1, 0), "dilation": (1, 2), "groups": 2}
    y = minitorch.tensor(rng.normal(size=tuple(F.conv2d(x, w, **settings).shape)))
    back = F.conv_transpose2d(y, w, output_padding=(0, 2), **settings)
    assert back.shape == x.shape
    lhs, rhs = float((back * x).sum()), float((y * F.conv2d(x, w, **settings)).sum())
    assert math.isclose(lhs, rhs, rel_tol=1e-10)


def test_conv_transpose_gradients_pass_central_differences(backend):
    x = minitorch.randn(1, 4, 3, 4, dtype=minitorch.float64, requires_grad=True)
    w = minitorch.randn(4, 1, 2, 3, dtype=minitorch.float64, requires_grad=True)
    b = minitorch.randn(2, dtype=minitorch.float64, requires_grad=True)
    settings = {"stride": 2, "padding": (1, 0), "output_padding": 1, "groups": 2, "dilation": 2}
    assert grad_check(lambda x, w, b: F.conv_transpose2d(x, w, b, **settings), x, w, b)
    x1 = minitorch.randn(2, 2, 5, dtype=minitorch.float64, requires_grad=True)
    w1 = minitorch.randn(2, 3, 3, dtype=minitorch.float64, requires_grad=True)
    assert grad_check(lambda x, w: F.conv_transpose1d(x, w, stride=2, padding=1), x1, w1)


def test_fold_gradient_passes_central_differences_and_is_unfold(backend):
    x = minitorch.randn(1, 12, 10, dtype=minitorch.float64, requires_grad=True)
    settings = {"kernel_size": (3, 2), "padding": 1, "stride": (2, 1)}
    assert grad_check(lambda x: F.fold(x, (4, 4), **settings), x)
    image = minitorch.randn(1, 2, 4, 4, dtype=minitorch.float64)
    # <fold(c), image> = <c, unfold(image)>: fold is unfold's adjoint
    lhs = float((F.fold(x, (4, 4), **settings) * image).sum())
    assert math.isclose(lhs, float((x * F.unfold(image, **settings)).sum()), rel_tol=1e-10)


def test_conv_transpose_node_is_convolution_backward():
    x = minitorch.randn(1, 2, 3, 3, requires_grad=True)
    w = minitorch.randn(2, 3, 2, 2)
    assert F.conv_transpose2d(x, w).grad_fn.name() == "ConvolutionBackward0"
    assert F.conv_transpose2d(x[0], w).grad_fn.name() == "SqueezeBackward1"  # as torch


TRANSPOSED_ERRORS = [
    ("conv_transpose2d", (1, 4, 5, 5), (3, 3, 3, 3), {}),
    ("conv_transpose2d", (1, 4, 5, 5), (4, 3, 3, 3), {"groups": 3}),
    ("conv_transpose2d", (1, 4, 5, 5), (4, 3, 3, 3), {"groups": 0}),
    ("conv_transpose2d", (1, 4, 5, 5), (4, 3, 3, 3), {"output_padding": 1}),
    ("conv_transpose2d", (1, 4, 5, 5), (4, 3, 3, 3), {"stride": 2, "output_padding": (0, 2)}),
    ("conv_transpose2d", (1, 4, 5, 5), (4, 3, 3, 3), {"output_padding": -1}),
    ("conv_transpose2d", (1, 4, 5, 5), (4, 3, 3, 3), {"padding": -1}),
    ("conv_transpose2d", (1, 4, 5, 5), (4, 3, 3, 3), {"padding": 6}),
    ("conv_transpose2d", (1, 4, 5, 5), (4, 3, 3, 3), {"stride": 0}),
    ("conv_transpose2d", (1, 4, 5, 5), (4, 3, 3, 3), {"dilation": (1, 0)}),
    ("conv_transpose2d", (1, 4, 5, 5), (4, 3, 3, 3), {"stride": (1, 1, 1)}),
    ("conv_transpose2d", (5, 5), (4, 3, 3, 3), {}),
    ("conv_transpose2d", (1, 4, 5, 5), (4, 3, 3), {}),
    ("conv_transpose1d", (1, 4, 5, 5), (4, 3, 3), {}),
    ("conv_transpose1d", (1, 4, 5), (4, 3, 3), {"dilation": 0}),
    ("conv_transpose1d", (1, 4, 5), (4, 3, 3), {"output_padding": 1}),
    ("conv_transpose1d", (1, 4, 5), (4, 3, 3), {"padding": 9}),
    ("conv_transpose1d", (1, 4, 5), (4, 3, 3), {"output_padding": (1, 1)}),
]


@pytest.mark.parametrize("name, x_shape, w_shape, kwargs", TRANSPOSED_ERRORS)
def test_conv_transpose_errors_are_torchs(torch, name, x_shape, w_shape, kwargs):
    same_error(lambda lib: getattr(lib, name)(lib.zeros(x_shape), lib.zeros(w_shape), **kwargs))


@pytest.mark.parametrize("w_dtype, bias", [("float64", None), ("float32", (4,))])
def test_conv_transpose_bias_and_dtype_errors_are_torchs(torch, w_dtype, bias):
    same_error(
        lambda lib: lib.conv_transpose2d(
            lib.zeros(1, 4, 5, 5),
            lib.zeros(4, 3, 3, 3, dtype=getattr(lib, w_dtype)),
            None if bias is None else lib.zeros(bias),
        )
    )


def test_conv_transpose_bias_of_another_float_type_takes_the_inputs(torch):
    x, tx = pair(np.ones((1, 2, 3, 3)), "float32")
    w, tw = pair(np.ones((2, 1, 2, 2)), "float32")
    b, tb = pair(np.full(1, 0.5), "float64")
    ours, theirs = minitorch.conv_transpose2d(x, w, b), torch.conv_transpose2d(tx, tw, tb)
    assert ours.dtype is minitorch.float32 and theirs.dtype is torch.float32
    assert_close(ours, theirs, "output", 0)


FOLD_ERRORS = [
    ((1, 12, 6), {"output_size": (4, 5), "kernel_size": 2}),
    ((1, 10, 12), {"output_size": (4, 5), "kernel_size": 2}),
    ((1, 2, 3, 4), {"output_size": (4, 5), "kernel_size": 2}),
]


@pytest.mark.parametrize("shape, kwargs", FOLD_ERRORS)
def test_fold_errors_are_torchs(torch, shape, kwargs):
    same_error(lambda lib: lib.nn.functional.fold(lib.zeros(shape), **kwargs))


# ---------------------------------------------------------------------------
# The layers
# ---------------------------------------------------------------------------

LAYERS = [  # their reprs and parameters: test_nn_conv.py's LAYERS
    ("ConvTranspose2d", (4, 6, (3, 2)), {"stride": 2, "padding": 1, "output_padding": 1}),
    ("ConvTranspose2d", (4, 6, 3), {"groups": 2, "dilation": 2, "bias": False}),
    ("ConvTranspose1d", (2, 3, 3), {"stride": 2, "output_padding": 1}),
]


@pytest.mark.parametrize("name, args, kwargs", LAYERS)
def test_conv_transpose_layer_uses_its_parameters_and_output_size(torch, name, args, kwargs):
    layer = getattr(minitorch.nn, name)(*args, dtype=minitorch.float64, **kwargs)
    theirs = getattr(torch.nn, name)(*args, dtype=torch.float64, **kwargs)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in layer.state_dict().items()})
    shape = (2, args[0], 5, 4)[: 4 if name.endswith("2d") else 3]
    x, tx = pair(np.random.default_rng(0).normal(size=shape))
    assert_close(layer(x), theirs(tx), "output", 1e-10)
    largest = [  # the largest output_size: output padding stride - 1
        n - p + s - 1
        for n, p, s in zip(theirs(tx).shape[2:], layer.output_padding, layer.stride, strict=True)
    ]
    assert_close(layer(x, largest), theirs(tx, largest), "output_size", 1e-10)


def test_conv_transpose_init_is_uniform_within_one_over_sqrt_fan_in():
    layer = minitorch.nn.ConvTranspose2d(16, 8, 3)  # fan_in = out_channels * 9 = 72
    bound = 1 / math.sqrt(72)
    for p in (layer.weight, layer.bias):
        assert np.all(np.abs(p.detach().numpy()) <= bound)
    weights = layer.weight.detach().numpy().ravel()
    assert weights.max() > 0.9 * bound and weights.min() < -0.9 * bound


LAYER_ERRORS = [
    ((3, 4, 3), {"groups": 2}),
    ((4, 3, 3), {"groups": 2}),
    ((4, 4, 3), {"groups": 0}),
    ((4, 4, 3), {"padding_mode": "reflect"}),
]


@pytest.mark.parametrize("args, kwargs", LAYER_ERRORS)
def test_conv_transpose_layer_argument_errors_are_torchs(torch, args, kwargs):
    same_error(lambda lib: lib.nn.ConvTranspose2d(*args, **kwargs))


def test_conv_transpose_layer_refuses_padding_strings_when_made(torch):
    """torch keeps the letters as padding and fails when called; minitorch fails when made,
    with the error that torch's conv_transpose2d gives for a string."""
    with pytest.raises(TypeError) as theirs:
        torch.nn.functional.conv_transpose2d(
            torch.ones(1, 4, 5, 5), torch.ones(4, 2, 3, 3), padding="same"
        )
    with pytest.raises(TypeError) as ours:
        minitorch.nn.ConvTranspose2d(4, 2, 3, padding="same")
    assert str(ours.value) == str(theirs.value)
    layer = torch.nn.ConvTranspose2d(4, 2, 3, padding="same")
    with pytest.raises(TypeError):
        layer(torch.ones(1, 4, 5, 5))
    same_error(
        lambda lib: lib.conv_transpose1d(lib.ones(1, 4, 5), lib.ones(4, 2, 3), padding="same")
    )


@pytest.mark.parametrize("output_size", [(11, 10), [1, 2, 3, 10, 10, 1]])
def test_conv_transpose_output_size_errors_are_torchs(torch, output_size):
    layer = {
        lib: lib.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1) for lib in (torch, minitorch)
    }
    same_error(lambda lib: layer[lib](lib.ones(1, 4, 5, 5), output_size=output_size))
