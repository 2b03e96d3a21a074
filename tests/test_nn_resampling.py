"""Resizing and rearranging images against torch: `interpolate` (every mode, sizes and scale
factors, aligned corners, antialias), its deprecated forms `upsample*`, the layers `Upsample`,
`UpsamplingNearest2d`, `UpsamplingBilinear2d`, and `pixel_shuffle`, `pixel_unshuffle`,
`channel_shuffle` with their layers.

The values, gradients and node names are torch's, recorded in tests/data/test_nn_resampling.json
(scripts/record_torch_answers.py from `torch_answers`); gradients are also checked against
central differences, and errors, warnings and reprs are compared with torch live.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import (
    answers_of,
    assert_as_recorded,
    assert_case_as_recorded,
    case_rng,
    pair,
    recorded_answers,
    run_case,
    same_error,
)

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import grad_check

TOLERANCE = {"float64": 1e-10, "float32": 2e-5}

# (input shape, keyword arguments of interpolate)
INTERPOLATIONS = [
    ((2, 3, 5), {"size": 11}),
    ((2, 3, 5), {"scale_factor": 2.3}),
    ((2, 3, 7), {"scale_factor": 0.6}),
    ((2, 3, 7), {"scale_factor": 0.6, "recompute_scale_factor": True}),
    ((1, 2, 5, 4), {"size": (7, 9)}),
    ((1, 2, 5, 4), {"scale_factor": (1.5, 0.7)}),
    ((1, 2, 3, 4, 2), {"scale_factor": 2}),
    ((2, 3, 7), {"scale_factor": 1.7, "mode": "nearest-exact"}),
    ((1, 2, 5, 4), {"size": (7, 3), "mode": "nearest-exact"}),
    ((2, 3, 5), {"size": 11, "mode": "linear"}),
    ((2, 3, 5), {"size": 11, "mode": "linear", "align_corners": True}),
    ((2, 3, 9), {"scale_factor": 0.45, "mode": "linear"}),
    ((2, 3, 4), {"scale_factor": 1.1, "mode": "linear"}),  # same size: a copy, as torch
    ((1, 2, 5, 4), {"size": (7, 9), "mode": "bilinear"}),
    ((1, 2, 5, 4), {"scale_factor": (1.5, 0.7), "mode": "bilinear", "align_corners": True}),
    ((1, 2, 5, 4), {"size": (1, 6), "mode": "bilinear", "align_corners": True}),
    ((1, 2, 5, 4), {"size": (7, 9), "mode": "bicubic"}),
    ((1, 2, 5, 4), {"size": (3, 9), "mode": "bicubic", "align_corners": True}),
    ((1, 2, 4, 4), {"scale_factor": 2.5, "mode": "bicubic"}),
    ((1, 2, 3, 4, 2), {"size": (5, 3, 4), "mode": "trilinear"}),
    ((1, 2, 3, 4, 2), {"scale_factor": (0.7, 1, 2), "mode": "trilinear", "align_corners": True}),
    ((1, 2, 9, 11), {"size": (4, 3), "mode": "bilinear", "antialias": True}),
    ((1, 2, 9, 11), {"size": (4, 3), "mode": "bicubic", "antialias": True, "align_corners": True}),
    ((1, 2, 5, 6), {"size": (9, 13), "mode": "bicubic", "antialias": True}),  # growing: plain
    ((1, 2, 12, 7), {"scale_factor": (0.4, 1), "mode": "bilinear", "antialias": True}),
    ((2, 3, 5, 4), {"size": (3, 2), "mode": "area"}),
    ((2, 3, 7), {"scale_factor": 0.5, "mode": "area"}),
    ((1, 2, 5, 7, 6), {"size": (3, 4, 2), "mode": "area"}),
    ((1, 1, 3, 4, 5), {"size": (5, 6, 7), "mode": "area"}),
]
# torch's gradient differs here (test_same_size_bicubic_gradient_is_the_forwards_where_...)
SAME_SIZE_BICUBIC = ((1, 2, 4, 4), {"scale_factor": 1.1, "mode": "bicubic"}, "float64")
# (function, input shape, factor)
SHUFFLES = [
    ("pixel_shuffle", (2, 8, 3, 5), 2),
    ("pixel_shuffle", (9, 2, 3), 3),  # unbatched
    ("pixel_shuffle", (2, 3, 4, 1, 2), 2),  # two batch dims
    ("pixel_unshuffle", (2, 3, 4, 6), 2),
    ("pixel_unshuffle", (2, 6, 3), 3),
    ("channel_shuffle", (2, 6, 3, 2), 3),
    ("channel_shuffle", (3, 8, 5), 2),
    ("channel_shuffle", (1, 6, 2, 1, 2), 6),
]


def interpolation_case(shape, kwargs, dtype):
    key = repr(("interpolate", shape, kwargs, dtype))
    fn = lambda lib, x: lib.nn.functional.interpolate(x, **kwargs)  # noqa: E731
    return key, (fn, [case_rng(key).normal(size=shape)], {"dtype": dtype, "transposed": True})


def shuffle_case(name, shape, factor, dtype):
    key = repr((name, shape, factor, dtype))
    fn = lambda lib, x: getattr(lib.nn.functional, name)(x, factor)  # noqa: E731
    return key, (fn, [case_rng(key).normal(size=shape)], {"dtype": dtype, "transposed": True})


def cases() -> dict[str, tuple]:
    """Every case whose answer is recorded: key -> (fn, arrays, run_case's options)."""
    found = dict(
        interpolation_case(shape, kwargs, dtype)
        for shape, kwargs in INTERPOLATIONS
        for dtype in TOLERANCE
    )
    found.update([interpolation_case(*SAME_SIZE_BICUBIC)])
    found.update(shuffle_case(*case, dtype) for case in SHUFFLES for dtype in TOLERANCE)
    return found


CASES = cases()
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    return answers_of(torch, CASES)


@pytest.mark.parametrize("dtype", list(TOLERANCE))
@pytest.mark.parametrize("shape, kwargs", INTERPOLATIONS, ids=repr)
def test_interpolate_matches_torch_values_and_gradient(shape, kwargs, dtype):
    key, _ = interpolation_case(shape, kwargs, dtype)
    assert_case_as_recorded(CASES, ANSWERS, key, TOLERANCE[dtype], TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", list(TOLERANCE))
@pytest.mark.parametrize("name, shape, factor", SHUFFLES)
def test_shuffles_match_torch_values_and_gradient(name, shape, factor, dtype):
    key, _ = shuffle_case(name, shape, factor, dtype)
    assert_case_as_recorded(CASES, ANSWERS, key, 0, 0)


def test_same_size_bicubic_gradient_is_the_forwards_where_torchs_is_a_copy():
    """With equal sizes and a scale factor other than 1, torch's bicubic forward resamples but
    its backward copies the gradient through; minitorch's gradient is the forward's."""
    key, (fn, arrays, options) = interpolation_case(*SAME_SIZE_BICUBIC)
    recorded = ANSWERS[key]
    ours = run_case(minitorch, fn, arrays, **options)
    assert_as_recorded(
        {k: v for k, v in ours.items() if k != "grad 0"},
        {k: v for k, v in recorded.items() if k != "grad 0"},
        key,
        1e-10,
        1e-10,
    )
    weights = np.random.default_rng(0).standard_normal(recorded["output"].shape)  # run_case's
    np.testing.assert_allclose(recorded["grad 0"], weights, rtol=1e-12)  # torch: a copy
    assert not np.allclose(ours["grad 0"], weights)
    x = minitorch.tensor(arrays[0], requires_grad=True)
    assert grad_check(lambda x: F.interpolate(x, **SAME_SIZE_BICUBIC[1]), x)


def test_interpolation_by_hand():
    x = minitorch.tensor([[[0.0, 4.0]]])
    # half-pixel centres: output i samples input (i + 1/2) / 2 - 1/2, clamped at 0
    assert F.interpolate(x, size=4, mode="linear").tolist() == [[[0.0, 1.0, 3.0, 4.0]]]
    assert F.interpolate(x, size=3, mode="linear", align_corners=True).tolist() == [
        [[0.0, 2.0, 4.0]]
    ]
    assert F.interpolate(x, scale_factor=2).tolist() == [[[0.0, 0.0, 4.0, 4.0]]]
    y = minitorch.tensor([[[1.0, 2.0, 3.0]]])
    assert F.interpolate(y, size=2).tolist() == [[[1.0, 2.0]]]  # floor(i * 3 / 2)
    assert F.interpolate(y, size=2, mode="nearest-exact").tolist() == [[[1.0, 3.0]]]
    # a cubic through a line is the line, away from the clamped borders
    line = minitorch.arange(8.0, dtype=minitorch.float64).view(1, 1, 1, 8)
    out = F.interpolate(line, size=(1, 15), mode="bicubic", align_corners=True)
    assert out[0, 0, 0, 4:11].tolist() == pytest.approx([i / 2 for i in range(4, 11)])


def test_pixel_shuffle_by_hand_and_unshuffle_inverts_it():
    x = minitorch.arange(8.0).view(1, 8, 1, 1)
    assert minitorch.pixel_shuffle(x, 2)[0].tolist() == [
        [[0.0, 1.0], [2.0, 3.0]],
        [[4.0, 5.0], [6.0, 7.0]],
    ]
    assert minitorch.equal(minitorch.pixel_unshuffle(minitorch.pixel_shuffle(x, 2), 2), x)
    shuffled = minitorch.channel_shuffle(minitorch.arange(6.0).view(1, 6, 1), 3)
    assert shuffled.flatten().tolist() == [0.0, 2.0, 4.0, 1.0, 3.0, 5.0]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"size": (2, 3), "mode": "bicubic", "antialias": True},
        {"size": (4, 3), "mode": "bicubic"},
        {"scale_factor": (1.5, 2), "mode": "bilinear", "align_corners": True},
        {"size": (5, 2), "mode": "nearest-exact"},
    ],
)
def test_interpolate_gradient_passes_central_differences(kwargs):
    x = minitorch.randn(1, 2, 3, 4, dtype=minitorch.float64, requires_grad=True)
    assert grad_check(lambda x: F.interpolate(x, **kwargs), x)


def test_shuffle_gradients_pass_central_differences():
    x = minitorch.randn(2, 8, 2, 3, dtype=minitorch.float64, requires_grad=True)
    assert grad_check(lambda x: F.pixel_shuffle(x, 2), x)
    assert grad_check(
        lambda x: F.pixel_unshuffle(x, 2),
        minitorch.randn(1, 2, 4, 6, dtype=minitorch.float64, requires_grad=True),
    )
    assert grad_check(lambda x: F.channel_shuffle(x, 4), x)


def test_interpolate_of_nan_stays_where_it_is():
    x = minitorch.zeros(1, 1, 6)
    x[0, 0, 0] = float("nan")
    out = F.interpolate(x, size=12, mode="linear")
    # outputs 0-2 read input 0 (output 2 at 0.75), the others do not
    assert out.isnan().tolist()[0][0] == [True] * 3 + [False] * 9
    assert out[0, 0, 3:].eq(0).all().item()


INTERPOLATE_ERRORS = [
    ((1, 2, 4, 4), {"size": 0}),
    ((1, 2, 4, 4), {"scale_factor": 0.1}),
    ((1, 2, 4), {"scale_factor": 0.1}),
    ((1, 2, 4, 4, 4), {"size": (2, 0, 1)}),
    ((1, 2, 4, 4), {"size": (2, 3), "align_corners": True}),
    ((1, 2, 4, 4), {"size": (2, 3), "mode": "linear"}),
    ((1, 2, 4, 4), {"size": (2, 3), "mode": "trilinear"}),
    ((1, 2, 4), {"size": 3, "mode": "bilinear"}),
    ((1, 2, 4), {"size": 3, "mode": "bicubic"}),
    ((1, 2, 4, 4), {"size": (2, 3), "mode": "foo"}),
    ((2, 2), {"size": (2, 3)}),
    ((1, 2, 4, 4), {"size": (2, 3, 3)}),
    ((1, 2, 4, 4), {"scale_factor": (2, 3, 3)}),
    ((1, 2, 4, 4), {"size": (2.0, 3)}),
    ((1, 2, 4, 4), {"size": (2, 3), "scale_factor": 2}),
    ((1, 2, 4, 4), {}),
    ((1, 2, 4, 4), {"size": (2, 3), "recompute_scale_factor": True}),
    ((1, 2, 4, 4), {"size": (2, 3), "antialias": True}),
]


@pytest.mark.parametrize(
    "mode", ["nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area"]
)
@pytest.mark.parametrize("dims", [1, 2, 3])
def test_interpolate_of_integers_is_refused_as_torch_refuses_it(torch, mode, dims):
    shape = (1, 2) + (3,) * dims
    same_error(
        lambda lib: lib.nn.functional.interpolate(
            lib.zeros(shape, dtype=lib.int64), size=5, mode=mode
        )
    )


def test_interpolate_of_an_empty_batch_is_empty():
    out = F.interpolate(minitorch.zeros(0, 2, 3, 3, requires_grad=True), size=5, mode="bicubic")
    assert out.shape == (0, 2, 5, 5)
    out.sum().backward()


@pytest.mark.parametrize("shape, kwargs", INTERPOLATE_ERRORS)
def test_interpolate_errors_are_torchs(torch, shape, kwargs):
    same_error(lambda lib: lib.nn.functional.interpolate(lib.zeros(shape), **kwargs))


SHUFFLE_ERRORS = [
    ("pixel_shuffle", (2, 8, 3, 4), 3),
    ("pixel_shuffle", (3, 4), 2),
    ("pixel_shuffle", (2, 8, 3, 4), 0),
    ("pixel_shuffle", (2, 8, 3, 4), 2.0),
    ("pixel_unshuffle", (2, 8, 3, 4), 2),
    ("pixel_unshuffle", (2, 8, 4, 3), 2),
    ("pixel_unshuffle", (2, 8, 4, 4), -1),
    ("pixel_unshuffle", (4, 4), 2),
    ("channel_shuffle", (2, 8, 3), 3),
    ("channel_shuffle", (2, 8, 3), 0),
    ("channel_shuffle", (2, 6), 3),
]


@pytest.mark.parametrize("name, shape, factor", SHUFFLE_ERRORS)
def test_shuffle_errors_are_torchs(torch, name, shape, factor):
    same_error(lambda lib: getattr(lib.nn.functional, name)(lib.zeros(shape), factor))


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("upsample", {"scale_factor": 2, "mode": "bilinear"}),
        ("upsample_nearest", {"size": (3, 5)}),
        ("upsample_bilinear", {"scale_factor": 1.5}),
    ],
)
def test_deprecated_upsample_warns_and_interpolates_as_torch(torch, name, kwargs):
    x, tx = pair(case_rng(name).normal(size=(1, 2, 3, 4)))
    with pytest.warns(UserWarning) as ours:
        out = getattr(F, name)(x, **kwargs)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        expected = getattr(torch.nn.functional, name)(tx, **kwargs)
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert ours[0].filename == __file__  # the warning points at the caller
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-12, atol=1e-12)


LAYERS = [
    ("Upsample", (), {"scale_factor": (2, 3), "mode": "bilinear"}),
    ("Upsample", (), {"size": 5, "mode": "bicubic", "align_corners": True}),
    ("Upsample", ((3, 5),), {}),
    ("Upsample", (), {"scale_factor": 0.5, "mode": "nearest", "recompute_scale_factor": True}),
    ("UpsamplingNearest2d", (), {"size": (3, 5)}),
    ("UpsamplingBilinear2d", (), {"scale_factor": 2}),
    ("PixelShuffle", (2,), {}),
    ("PixelUnshuffle", (2,), {}),
    ("ChannelShuffle", (2,), {}),
]


@pytest.mark.parametrize("name, args, kwargs", LAYERS)
def test_layers_print_and_compute_as_torchs(torch, name, args, kwargs):
    ours, theirs = (
        getattr(minitorch.nn, name)(*args, **kwargs),
        getattr(torch.nn, name)(*args, **kwargs),
    )
    assert repr(ours) == repr(theirs)
    x, tx = pair(case_rng(name, args).normal(size=(1, 4, 4, 6)))
    out, expected = ours(x), theirs(tx)
    assert tuple(out.shape) == tuple(expected.shape)
    assert out.flatten().tolist() == pytest.approx(
        expected.flatten().tolist(), rel=1e-12, abs=1e-12
    )
