"""Spatial transformers against torch: `affine_grid` (2-D and 3-D) and `grid_sample` (2-D;
bilinear, nearest and bicubic, padding zeros, border and reflection, with and without aligned
corners): values, node names and the gradients of the input, the grid and theta.

The answers are torch's, recorded in tests/data/test_nn_grid_sample.json
(scripts/record_torch_answers.py from `torch_answers`); gradients are also checked against
central differences, and errors and warnings are compared with torch live.
"""

from __future__ import annotations

import warnings

import pytest
from helpers import answers_of, assert_case_as_recorded, case_rng, recorded_answers, same_error

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import grad_check

TOLERANCE = {"float64": 1e-10, "float32": 2e-5}
MODES = ["bilinear", "nearest", "bicubic"]
PADDINGS = ["zeros", "border", "reflection"]
# (theta shape, size)
AFFINE_GRIDS = [((2, 2, 3), (2, 3, 4, 5)), ((1, 3, 4), (1, 2, 2, 3, 4)), ((2, 2, 3), (2, 1, 1, 3))]


def sample_case(mode, padding_mode, align_corners, dtype):
    key = repr(("grid_sample", mode, padding_mode, align_corners, dtype))
    rng = case_rng(key)
    arrays = [rng.normal(size=(2, 3, 4, 5)), rng.uniform(-1.3, 1.3, size=(2, 6, 7, 2))]
    settings = {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}
    fn = lambda lib, x, grid: lib.nn.functional.grid_sample(x, grid, **settings)  # noqa: E731
    return key, (fn, arrays, {"dtype": dtype, "transposed": True})


def affine_case(theta_shape, size, align_corners, dtype):
    key = repr(("affine_grid", theta_shape, size, align_corners, dtype))
    fn = lambda lib, theta: lib.nn.functional.affine_grid(theta, size, align_corners)  # noqa: E731
    return key, (fn, [case_rng(key).normal(size=theta_shape)], {"dtype": dtype})


SAMPLES = [
    (mode, padding, align, dtype)
    for mode in MODES
    for padding in PADDINGS
    for align in (False, True)
    for dtype in TOLERANCE
]
AFFINES = [
    (*case, align, dtype) for case in AFFINE_GRIDS for align in (False, True) for dtype in TOLERANCE
]


def cases() -> dict[str, tuple]:
    """Every case whose answer is recorded: key -> (fn, arrays, run_case's options)."""
    found = dict(sample_case(*case) for case in SAMPLES)
    found.update(affine_case(*case) for case in AFFINES)
    return found


CASES = cases()
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # affine_grid's note on unit-size grids
        return answers_of(torch, CASES)


@pytest.mark.parametrize("case", SAMPLES, ids=repr)
def test_grid_sample_matches_torch_values_and_gradients(case):
    key, _ = sample_case(*case)
    tolerance = 5 * TOLERANCE[case[-1]]
    assert_case_as_recorded(CASES, ANSWERS, key, tolerance, tolerance)


@pytest.mark.filterwarnings("ignore:Since version 1.3.0")
@pytest.mark.parametrize("case", AFFINES, ids=repr)
def test_affine_grid_matches_torch_values_and_gradient(case):
    key, _ = affine_case(*case)
    assert_case_as_recorded(CASES, ANSWERS, key, TOLERANCE[case[-1]], TOLERANCE[case[-1]])


def test_grid_sample_by_hand():
    x = minitorch.tensor([[[[0.0, 10.0], [20.0, 30.0]]]])
    grid = minitorch.tensor([[[[0.0, 0.0], [1.0, -1.0], [-3.0, 0.0]]]])
    # centre: the mean of the four; (1, -1): the top right pixel; x = -3: outside
    out = F.grid_sample(x, grid, align_corners=True)
    assert out.tolist() == [[[[15.0, 10.0, 0.0]]]]
    # border: x = -3 clamps to the left column, halfway down
    assert (
        F.grid_sample(x, grid, padding_mode="border", align_corners=True)[0, 0, 0, 2].item() == 10.0
    )
    # align_corners=False: the corners are the pixels' outer edges, (1, -1) is half outside
    out = F.grid_sample(x, grid[:, :, 1:2], align_corners=False)
    assert out.item() == pytest.approx(10.0 / 4)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("padding_mode", PADDINGS)
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_gradients_pass_central_differences(mode, padding_mode, align_corners):
    rng = case_rng("central", padding_mode, align_corners)
    x = minitorch.tensor(rng.normal(size=(1, 2, 3, 4)), requires_grad=True)
    grid = minitorch.tensor(rng.uniform(-1.4, 1.4, size=(1, 3, 2, 2)), requires_grad=True)
    settings = {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}
    assert grad_check(lambda x, grid: F.grid_sample(x, grid, **settings), x, grid)


def test_affine_grid_gradient_passes_central_differences():
    theta = minitorch.tensor(case_rng("theta").normal(size=(2, 2, 3)), requires_grad=True)
    assert grad_check(lambda t: F.affine_grid(t, (2, 1, 3, 4), align_corners=False), theta)


def test_grid_sample_of_an_empty_batch_is_empty():
    x = minitorch.zeros(0, 2, 3, 3, requires_grad=True)
    grid = minitorch.zeros(0, 4, 5, 2, requires_grad=True)
    out = F.grid_sample(x, grid, align_corners=False)
    assert out.shape == (0, 2, 4, 5)
    out.sum().backward()
    assert x.grad.shape == x.shape and grid.grad.shape == grid.shape


def test_identity_affine_grid_samples_the_input_back():
    x = minitorch.tensor(case_rng("identity").normal(size=(2, 3, 4, 5)))
    theta = minitorch.eye(2, 3, dtype=minitorch.float64).expand(2, 2, 3)
    for align in (False, True):
        grid = F.affine_grid(theta, (2, 3, 4, 5), align_corners=align)
        assert minitorch.allclose(F.grid_sample(x, grid, align_corners=align), x, atol=1e-12)


@pytest.mark.parametrize("name", ["grid_sample", "affine_grid"])
def test_align_corners_default_warns_as_torch(torch, name):
    messages = []
    for lib in (torch, minitorch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if name == "grid_sample":
                lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 1, 2))
            else:
                lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), (1, 1, 2, 2))
        messages.append([(w.category, str(w.message), w.filename) for w in caught])
    assert messages[0] == messages[1] and messages[1][0][2] == __file__


SAMPLE_ERRORS = [
    ((2, 3, 4, 5), (2, 6, 7, 2), {"mode": "foo"}),
    ((2, 3, 4, 5), (2, 6, 7, 2), {"padding_mode": "foo"}),
    ((2, 3, 4, 5), (1, 6, 7, 2), {}),
    ((2, 3, 4, 5), (2, 6, 7, 3), {}),
    ((3, 4, 5), (6, 7, 2), {}),
    ((2, 3, 4, 5), (2, 6, 7, 1, 3), {}),
    ((2, 3, 0, 5), (2, 6, 7, 2), {}),
]


@pytest.mark.parametrize("x_shape, grid_shape, kwargs", SAMPLE_ERRORS)
def test_grid_sample_errors_are_torchs(torch, x_shape, grid_shape, kwargs):
    kwargs = {"align_corners": False, **kwargs}
    same_error(
        lambda lib: lib.nn.functional.grid_sample(
            lib.zeros(x_shape), lib.zeros(grid_shape), **kwargs
        )
    )


def test_grid_sample_dtype_error_is_torchs(torch):
    same_error(
        lambda lib: lib.nn.functional.grid_sample(
            lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 1, 2, dtype=lib.float64), align_corners=False
        )
    )


AFFINE_ERRORS = [
    ((2, 2, 3), (2, 3, 4)),
    ((2, 2, 3), (2, 3, 4, 5, 6)),
    ((2, 2, 3), (2, 3, 0, 5)),
    ((2, 2, 3), (3, 3, 4, 5)),
]


@pytest.mark.parametrize("theta_shape, size", AFFINE_ERRORS)
def test_affine_grid_errors_are_torchs(torch, theta_shape, size):
    same_error(lambda lib: lib.nn.functional.affine_grid(lib.zeros(theta_shape), size, False))
    same_error(
        lambda lib: lib.nn.functional.affine_grid(
            lib.zeros(2, 2, 3, dtype=lib.int64), (2, 1, 2, 2), False
        )
    )
