"""Softmax and log-softmax (task 4.4) and the losses of class indices and probabilities,
nll_loss and cross_entropy (task 4.5), of minitorch.nn against torch: values, dtypes,
`grad_fn` names, gradients of every differentiable input (also by central differences).

The values, dtypes, node names and gradients are torch's, recorded in
tests/data/test_nn_class_losses.json (scripts/record_torch_answers.py from `torch_answers`);
the test of the implicit-dim warning compares with torch live and is skipped without it.
The inputs and tolerances are tests/loss_cases.py's.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import answers_of, assert_case_as_recorded, case_rng, recorded_answers
from loss_cases import DTYPES, REDUCTIONS, TOLERANCE, case, classes, functional, logits

import minitorch
import minitorch.nn.functional as F

# ---------------------------------------------------------------------------
# Task 4.4: stable softmax and log-softmax
# ---------------------------------------------------------------------------

SOFTMAXES = ["softmax", "log_softmax"]
SOFTMAX_SHAPES = [((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 2), -1)]
IMPLICIT_SHAPES = [(4,), (2, 3), (2, 3, 2)]
HUGE = [[1000.0, -1000.0, 0.0], [1000.0, 1000.0, 999.0]]


def softmax_case(name, dtype, shape, dim):
    key = repr(("softmax", name, dtype, shape, dim))
    return case(key, functional(name, dim), [logits(*shape, dtype=dtype, rng=case_rng(key))], [1])


def huge_softmax_case(name, dtype):
    fn = lambda lib, x: getattr(x, name)(1)  # noqa: E731
    return case(repr(("huge softmax", name, dtype)), fn, [np.array(HUGE, dtype=dtype)], [1])


def softmax_dtype_case(name):
    key = repr(("softmax dtype", name))
    fn = lambda lib, x: getattr(lib.nn.functional, name)(x, 0, dtype=lib.float64)  # noqa: E731
    return case(key, fn, [logits(4, rng=case_rng(key))], [1])


def implicit_dim_case(name, shape):
    key = repr(("implicit dim", name, shape))
    return case(key, functional(name), [logits(*shape, rng=case_rng(key))], [1])


@pytest.mark.task4_4
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", SOFTMAXES)
@pytest.mark.parametrize(("shape", "dim"), SOFTMAX_SHAPES)
def test_softmax_matches_torch(name, dtype, shape, dim):
    key, _ = softmax_case(name, dtype, shape, dim)
    assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE[dtype])


@pytest.mark.task4_4
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", SOFTMAXES)
def test_softmax_is_stable_for_huge_inputs(name, dtype):
    """e^1000 overflows: only a max-subtracted softmax gives finite values and gradients."""
    key, _ = huge_softmax_case(name, dtype)
    assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE[dtype])
    out = getattr(minitorch, name)(minitorch.tensor(HUGE, dtype=getattr(minitorch, dtype)), 1)
    assert np.isfinite(out.numpy()).all()


@pytest.mark.task4_4
@pytest.mark.parametrize("name", SOFTMAXES)
def test_softmax_grad_check(name):
    x = minitorch.tensor(logits(2, 3, dtype="float64"), requires_grad=True)
    assert minitorch.grad_check(lambda t: getattr(t, name)(1), x)


@pytest.mark.task4_4
@pytest.mark.parametrize("name", SOFTMAXES)
def test_softmax_dtype_argument(name):
    key, _ = softmax_dtype_case(name)
    assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE["float64"])


@pytest.mark.task4_4
@pytest.mark.parametrize("name", SOFTMAXES)
@pytest.mark.parametrize("shape", IMPLICIT_SHAPES)
def test_softmax_implicit_dim_warns_and_picks_torchs_dim(name, shape):
    key, _ = implicit_dim_case(name, shape)
    message = f"Implicit dimension choice for {name} has been deprecated"
    with pytest.warns(UserWarning, match=message):
        assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE["float32"])


@pytest.mark.parametrize("name", SOFTMAXES)
def test_softmax_implicit_dim_warns_as_torch(torch, name):
    message = f"Implicit dimension choice for {name} has been deprecated"
    with pytest.warns(UserWarning, match=message):
        getattr(torch.nn.functional, name)(torch.zeros(2, 3))


# ---------------------------------------------------------------------------
# Task 4.5: negative log-likelihood and cross-entropy of class indices
# ---------------------------------------------------------------------------

# (input shape, target shape) with classes on dim 1 (on dim 0 for a 1-D input)
CLASS_SHAPES = [((4, 5), (4,)), ((5,), ()), ((2, 3, 4), (2, 4)), ((2, 3, 2, 2), (2, 2, 2))]
NLL_SETTINGS = [(0, None, "float32"), (1, 1, "float64"), (1, -3, "float32"), (0, 1, "float64")]
CROSS_ENTROPY_SETTINGS = [
    (0, None, 0.0, "float32"),
    (1, 2, 0.0, "float64"),
    (0, 0, 0.2, "float64"),
    (1, 2, 0.2, "float32"),
]


def class_case(name, input_shape, target_shape, reduction, weighted, ignore_index, dtype, **more):
    """`name` (nll_loss or cross_entropy) of logits and class indices, with at least one target
    `ignore_index` (when it is not None), of a weight of the classes when `weighted`."""
    key = repr((name, input_shape, target_shape, reduction, weighted, ignore_index, dtype, more))
    rng = case_rng(key)
    count = input_shape[1] if len(input_shape) > 1 else input_shape[0]
    target = classes(count, *target_shape, rng=rng)
    if ignore_index is not None and target.ndim:
        target.reshape(-1)[0] = ignore_index  # at least one ignored target
    weight = rng.random(count).astype(dtype) + 0.5
    settings = {"reduction": reduction, **more}
    if ignore_index is not None:
        settings["ignore_index"] = ignore_index
    arrays = [logits(*input_shape, dtype=dtype, rng=rng), target]
    if weighted:
        return case(key, functional(name, **settings), [*arrays, weight], [1, 0, 0])
    return case(key, functional(name, None, **settings), arrays, [1, 0])


def huge_cross_entropy_case(smoothing):
    x = np.array([[1000.0, -1000.0, 0.0], [-1000.0, -1000.0, -1000.0]], dtype="float32")
    fn = functional("cross_entropy", label_smoothing=smoothing)
    return case(repr(("huge cross_entropy", smoothing)), fn, [x, np.array([1, 2])], [1, 0])


def one_sample_case(reduction):
    key = repr(("nll_loss of one sample", reduction))
    arrays = [logits(4, rng=case_rng(key)), np.array([2])]
    return case(key, functional("nll_loss", reduction=reduction), arrays, [0, 0])


def all_ignored_case(reduction):
    key = repr(("nll_loss, every target ignored", reduction))
    arrays = [logits(3, 4, rng=case_rng(key)), np.full(3, -100)]
    return case(key, functional("nll_loss", reduction=reduction), arrays, [1, 0])


@pytest.mark.task4_5
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(("input_shape", "target_shape"), CLASS_SHAPES)
@pytest.mark.parametrize(("weighted", "ignore_index", "dtype"), NLL_SETTINGS)
def test_nll_loss_matches_torch(
    input_shape, target_shape, reduction, weighted, ignore_index, dtype
):
    key, _ = class_case(
        "nll_loss", input_shape, target_shape, reduction, weighted, ignore_index, dtype
    )
    assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE[dtype])


@pytest.mark.task4_5
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(("input_shape", "target_shape"), CLASS_SHAPES)
@pytest.mark.parametrize(("weighted", "ignore_index", "smoothing", "dtype"), CROSS_ENTROPY_SETTINGS)
def test_cross_entropy_matches_torch(
    input_shape, target_shape, reduction, smoothing, weighted, ignore_index, dtype
):
    key, _ = class_case(
        "cross_entropy",
        input_shape,
        target_shape,
        reduction,
        weighted,
        ignore_index,
        dtype,
        label_smoothing=smoothing,
    )
    assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE[dtype])


@pytest.mark.task4_5
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_is_stable_for_huge_logits(smoothing):
    key, _ = huge_cross_entropy_case(smoothing)
    assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE["float32"])


@pytest.mark.task4_5
def test_cross_entropy_gradient_is_softmax_minus_one_hot():
    x = minitorch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], requires_grad=True)
    F.cross_entropy(x, minitorch.tensor([2, 0]), reduction="sum").backward()
    one_hot = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    expected = x.detach().softmax(1).numpy() - one_hot
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6, atol=1e-7)


@pytest.mark.task4_5
@pytest.mark.parametrize("name", ["nll_loss", "cross_entropy"])
def test_class_losses_grad_check(name):
    x = minitorch.tensor(logits(3, 4, dtype="float64"), requires_grad=True)
    target = minitorch.tensor([0, 3, -100])
    weight = minitorch.tensor([0.5, 1.0, 2.0, 1.5], dtype=minitorch.float64)
    assert minitorch.grad_check(lambda t: getattr(F, name)(t, target, weight), x)


@pytest.mark.task4_5
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_of_one_sample_with_a_one_element_target(reduction):
    """A 1-D input is one sample: its (1,) target counts as the 0-D class index. (Values only:
    torch's own backward fails here for "sum" and "none", a size mismatch.)"""
    key, _ = one_sample_case(reduction)
    assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE["float32"])


@pytest.mark.task4_5
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_nll_loss_with_every_target_ignored(reduction):
    """Nothing left to average: the mean is 0 / 0 = nan, the sum 0, as in torch."""
    key, _ = all_ignored_case(reduction)
    assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE["float32"])


# ---------------------------------------------------------------------------
# Cross-entropy of class probabilities
# ---------------------------------------------------------------------------

PROBABILITY_SHAPES = [(4, 5), (5,), (2, 3, 2)]
PROBABILITY_SETTINGS = [(0, 0.0), (1, 0.0), (1, 0.3)]


def probabilities_case(shape, reduction, weighted, smoothing, dtype):
    key = repr(("cross_entropy of probabilities", shape, reduction, weighted, smoothing, dtype))
    rng = case_rng(key)
    count = shape[1] if len(shape) > 1 else shape[0]
    arrays = [logits(*shape, dtype=dtype, rng=rng), rng.random(shape).astype(dtype)]
    settings = {"reduction": reduction, "label_smoothing": smoothing}
    if weighted:
        fn = functional("cross_entropy", **settings)
        return case(key, fn, [*arrays, rng.random(count).astype(dtype)], [1, 1, 0])
    return case(key, functional("cross_entropy", None, **settings), arrays, [1, 1])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", PROBABILITY_SHAPES)
@pytest.mark.parametrize(("weighted", "smoothing"), PROBABILITY_SETTINGS)
def test_cross_entropy_with_probabilities(shape, reduction, weighted, smoothing, dtype):
    key, _ = probabilities_case(shape, reduction, weighted, smoothing, dtype)
    assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE[dtype])


def cases() -> dict[str, tuple]:
    """Every case whose answer is recorded: key -> (fn, arrays, run_case's options)."""
    found = [
        softmax_case(name, dtype, shape, dim)
        for name in SOFTMAXES
        for dtype in DTYPES
        for shape, dim in SOFTMAX_SHAPES
    ]
    found += [huge_softmax_case(name, dtype) for name in SOFTMAXES for dtype in DTYPES]
    found += [softmax_dtype_case(name) for name in SOFTMAXES]
    found += [implicit_dim_case(name, shape) for name in SOFTMAXES for shape in IMPLICIT_SHAPES]
    for reduction in REDUCTIONS:
        for shapes in CLASS_SHAPES:
            found += [class_case("nll_loss", *shapes, reduction, *s) for s in NLL_SETTINGS]
            found += [
                class_case("cross_entropy", *shapes, reduction, w, i, d, label_smoothing=smoothing)
                for w, i, smoothing, d in CROSS_ENTROPY_SETTINGS
            ]
        found += [one_sample_case(reduction)]
        found += [
            probabilities_case(shape, reduction, *settings, dtype)
            for dtype in DTYPES
            for shape in PROBABILITY_SHAPES
            for settings in PROBABILITY_SETTINGS
        ]
    found += [huge_cross_entropy_case(smoothing) for smoothing in (0.0, 0.1)]
    found += [all_ignored_case(reduction) for reduction in ("mean", "sum")]
    return dict(found)


CASES = cases()
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the implicit dims, tested here
        return answers_of(torch, CASES)
