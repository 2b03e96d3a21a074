"""Softmax and the losses of minitorch.nn against torch: values, dtypes, `grad_fn` names,
gradients of every differentiable input (also by central differences), error texts.

The values, dtypes, node names and gradients are torch's, recorded in
tests/data/test_nn_losses.json (scripts/record_torch_answers.py from `torch_answers`); the
tests of error texts and reprs compare with torch live and are skipped without it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import (
    answers_of,
    assert_case_as_recorded,
    case_rng,
    pair,
    recorded_answers,
)

import minitorch
import minitorch.nn.functional as F

RNG = np.random.default_rng(4)
DTYPES = ["float32", "float64"]
REDUCTIONS = ["mean", "sum", "none"]
TOLERANCE = {"float32": {"rtol": 2e-5, "atol": 2e-6}, "float64": {"rtol": 1e-10, "atol": 1e-12}}


def logits(*shape: int, dtype: str = "float32", scale: float = 2.0, rng=RNG) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(dtype)


def classes(count: int, *shape: int, rng=RNG) -> np.ndarray:
    return rng.integers(0, count, shape)


# Each case: key -> (fn, arrays, run_case's options); `fn(lib, *tensors)` runs in minitorch and
# in torch alike. The builders below make one case from a test's parameters, `cases` all.


def case(key: str, fn, arrays, differentiable) -> tuple[str, tuple]:
    return key, (fn, arrays, {"differentiable": list(differentiable)})


def functional(name: str, *args, **settings):
    """`fn(lib, *tensors)`: nn.functional's `name` of the tensors, then `args`, `settings`."""
    return lambda lib, *tensors: getattr(lib.nn.functional, name)(*tensors, *args, **settings)


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


# ---------------------------------------------------------------------------
# Regression losses and binary cross-entropy
# ---------------------------------------------------------------------------

PAIR_LOSSES = {
    "mse_loss": {},
    "l1_loss": {},
    "smooth_l1_loss": {},
    "smooth_l1_loss(beta=0.5)": {"beta": 0.5},
    "smooth_l1_loss(beta=0)": {"beta": 0.0},
    "huber_loss": {},
    "huber_loss(delta=0.3)": {"delta": 0.3},
}
TARGET_SHAPES = [(3, 4), (3, 1)]
BCE_LOGITS_SETTINGS = [(0, 0), (1, 0), (0, 1), (1, 1)]


def regression_case(name, target_shape, reduction, dtype):
    key = repr(("regression", name, target_shape, reduction, dtype))
    rng = case_rng(key)
    settings = {"reduction": reduction, **PAIR_LOSSES[name]}
    arrays = [logits(3, 4, dtype=dtype, rng=rng), logits(*target_shape, dtype=dtype, rng=rng)]
    return case(key, functional(name.split("(")[0], **settings), arrays, [1, 1])


def bce_case(reduction, weighted, dtype):
    key = repr(("binary_cross_entropy", reduction, weighted, dtype))
    rng = case_rng(key)
    p = (rng.random((3, 4)) * 0.9 + 0.05).astype(dtype)
    y, weight = rng.random((3, 4)).astype(dtype), rng.random(4).astype(dtype)
    if weighted:
        fn = functional("binary_cross_entropy", reduction=reduction)
        return case(key, fn, [p, y, weight], [1, 1, 0])
    return case(key, functional("binary_cross_entropy", None, reduction=reduction), [p, y], [1, 1])


def bce_clamp_case():
    p, y = np.array([0.0, 1.0, 0.5], "float32"), np.array([1.0, 0.0, 1.0], "float32")
    fn = functional("binary_cross_entropy", reduction="none")
    return case("binary_cross_entropy at 0 and 1", fn, [p, y], [1, 0])


def bce_logits_case(reduction, weighted, positive, scale, dtype):
    key = repr(("binary_cross_entropy_with_logits", reduction, weighted, positive, scale, dtype))
    rng = case_rng(key)
    weight, pos_weight = rng.random(4).astype(dtype), (rng.random(4) * 3).astype(dtype)
    z, y = logits(3, 4, dtype=dtype, scale=scale, rng=rng), rng.random((3, 4)).astype(dtype)

    def fn(lib, z, y, w, q):
        return lib.nn.functional.binary_cross_entropy_with_logits(
            z, y, w if weighted else None, pos_weight=q if positive else None, reduction=reduction
        )

    return case(key, fn, [z, y, weight, pos_weight], [1, 1, 0, 0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("target_shape", TARGET_SHAPES)
@pytest.mark.parametrize("name", sorted(PAIR_LOSSES))
def test_regression_losses_match_torch(name, target_shape, reduction, dtype):
    key, _ = regression_case(name, target_shape, reduction, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the broadcasting warning, tested below
        assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE[dtype])


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_regression_losses_warn_when_shapes_broadcast(name):
    x, y = minitorch.tensor(logits(3, 1)), minitorch.tensor(logits(3))
    with pytest.warns(UserWarning, match=r"Using a target size \(minitorch.Size\(\[3\]\)\)"):
        assert getattr(F, name)(x, y, reduction="none").shape == (3, 3)


@pytest.mark.parametrize("name", ["smooth_l1_loss", "huber_loss"])
def test_regression_losses_grad_check(name):
    x = minitorch.tensor(logits(2, 3, dtype="float64"), requires_grad=True)
    y = minitorch.tensor(logits(2, 3, dtype="float64"), requires_grad=True)
    assert minitorch.grad_check(lambda a, b: getattr(F, name)(a, b, reduction="none"), x, y)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_matches_torch(reduction, weighted, dtype):
    key, _ = bce_case(reduction, weighted, dtype)
    assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE[dtype])


def test_binary_cross_entropy_clamps_log_at_minus_100():
    """p = 0 against y = 1 costs 100 (ln 0 clamped), not infinity."""
    key, _ = bce_clamp_case()
    assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE["float32"])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(("weighted", "positive"), BCE_LOGITS_SETTINGS)
@pytest.mark.parametrize("scale", [2.0, 1000.0])
def test_binary_cross_entropy_with_logits_matches_torch(
    reduction, weighted, positive, scale, dtype
):
    key, _ = bce_logits_case(reduction, weighted, positive, scale, dtype)
    assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE[dtype])


# ---------------------------------------------------------------------------
# Errors: PyTorch's types and texts
# ---------------------------------------------------------------------------

X = logits(3, 5)
ERRORS = {
    "target out of range": (lambda f, m: f.nll_loss(m(X), m(np.array([0, 5, 1])))),
    "negative target": (lambda f, m: f.cross_entropy(m(X), m(np.array([0, -1, 1])))),
    "float target": (lambda f, m: f.nll_loss(m(X), m(np.array([0.0, 1.0, 1.0], "float32")))),
    "int32 target": (lambda f, m: f.cross_entropy(m(X), m(np.array([0, 1, 1], "int32")))),
    "batch mismatch": (lambda f, m: f.cross_entropy(m(X), m(np.array([0, 1])))),
    "2-D target": (lambda f, m: f.nll_loss(m(X), m(np.zeros((3, 1), "int64")))),
    "spatial target": (lambda f, m: f.nll_loss(m(logits(2, 3, 4)), m(np.zeros((2, 5), "int64")))),
    "4-D target dims": (
        lambda f, m: f.nll_loss(m(logits(2, 3, 2, 2)), m(np.zeros((2, 2), "int64")))
    ),
    "1-D input, two targets": (lambda f, m: f.nll_loss(m(X[0]), m(np.array([1, 2])))),
    "0-D input": (lambda f, m: f.nll_loss(m(np.float32(1.0)), m(np.array(0)))),
    "weight size": (lambda f, m: f.nll_loss(m(X), m(np.array([0, 1, 1])), m(np.ones(4, "f4")))),
    "weight dtype": (lambda f, m: f.nll_loss(m(X), m(np.array([0, 1, 1])), m(np.ones(5)))),
    "reduction": (lambda f, m: f.cross_entropy(m(X), m(np.array([0, 1, 1])), reduction="avg")),
    "label smoothing": (
        lambda f, m: f.cross_entropy(m(X), m(np.array([0, 1, 1])), label_smoothing=1.5)
    ),
    "probabilities, weight size": (lambda f, m: f.cross_entropy(m(X), m(X), m(np.ones(4, "f4")))),
    "probabilities, ignore_index": (lambda f, m: f.cross_entropy(m(X), m(X), ignore_index=1)),
    "probabilities, label smoothing": (
        lambda f, m: f.cross_entropy(m(X), m(X), label_smoothing=1.5)
    ),
    "probabilities of ints": (lambda f, m: f.cross_entropy(m(X), m(np.ones((3, 5), "int64")))),
    "integer logits": (
        lambda f, m: f.cross_entropy(m(np.ones((3, 5), "int64")), m(np.zeros(3, "int64")))
    ),
    "mse of ints": (lambda f, m: f.mse_loss(m(np.ones(3, "int64")), m(np.ones(3, "int64")))),
    "mse shapes": (lambda f, m: f.mse_loss(m(X), m(X[:, :4]))),
    "smooth_l1 beta": (lambda f, m: f.smooth_l1_loss(m(X), m(X), beta=-1.0)),
    "huber delta": (lambda f, m: f.huber_loss(m(X), m(X), delta=0.0)),
    "bce range": (lambda f, m: f.binary_cross_entropy(m(X), m(X))),
    "bce dtype": (lambda f, m: f.binary_cross_entropy(m(X * 0), m(X.astype("float64")))),
    "bce logits pos_weight": (
        lambda f, m: f.binary_cross_entropy_with_logits(m(X), m(X), pos_weight=m(X[0, :4]))
    ),
    "bce logits weight": (lambda f, m: f.binary_cross_entropy_with_logits(m(X), m(X), m(X[0, :4]))),
}


@pytest.mark.filterwarnings("ignore:Using a target size")  # "mse shapes" warns, then fails
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(torch, case):
    def ours(a):
        return pair(a)[0]

    def theirs(a):
        return pair(a)[1]

    with pytest.raises(Exception) as expected:
        ERRORS[case](torch.nn.functional, theirs)
    with pytest.raises(type(expected.value)) as raised:
        ERRORS[case](F, ours)
    assert str(raised.value) == str(expected.value)


@pytest.mark.parametrize("name", ["binary_cross_entropy", "binary_cross_entropy_with_logits"])
def test_binary_losses_need_the_shape_of_the_input(name):
    x, y = minitorch.tensor(RNG.random((3, 1)).astype("float32")), minitorch.zeros(3)
    with pytest.raises(ValueError, match=r"\(minitorch.Size\(\[3\]\)\)"):
        getattr(F, name)(x, y)


# ---------------------------------------------------------------------------
# The loss layers
# ---------------------------------------------------------------------------

WEIGHT = np.array([0.5, 1.0, 2.0, 1.5, 1.0], "float32")
MODULES = {
    "CrossEntropyLoss": ({"label_smoothing": 0.1, "ignore_index": 2}, "classes"),
    "NLLLoss": ({"ignore_index": 1, "reduction": "sum"}, "classes"),
    "MSELoss": ({"reduction": "none"}, "values"),
    "L1Loss": ({}, "values"),
    "SmoothL1Loss": ({"beta": 0.5}, "values"),
    "HuberLoss": ({"delta": 0.5}, "values"),
    "BCEWithLogitsLoss": ({}, "probabilities"),
}
WEIGHTED_MODULES = ["CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss"]


def module_case(name):
    settings, kind = MODULES[name]
    key = repr(("module", name))
    rng = case_rng(key)
    if kind == "classes":
        target = classes(5, 4, rng=rng)
    elif kind == "values":
        target = logits(4, 5, rng=rng)
    else:
        target = rng.random((4, 5)).astype("float32")
    fn = lambda lib, x, t: getattr(lib.nn, name)(**settings)(x, t)  # noqa: E731
    return case(key, fn, [logits(4, 5, rng=rng), target], [1, 0])


def weighted_module_case(name):
    key = repr(("weighted module", name))
    rng = case_rng(key)
    target = classes(5, 4, rng=rng) if "BCE" not in name else rng.random((4, 5)).astype("float32")
    inputs = rng.random((4, 5)).astype("float32") * 0.9 + 0.05
    fn = lambda lib, x, t: getattr(lib.nn, name)(weight=lib.tensor(WEIGHT))(x, t)  # noqa: E731
    return case(key, fn, [inputs, target], [1, 0])


def pos_weight_case():
    key = "BCEWithLogitsLoss(pos_weight)"
    rng = case_rng(key)
    fn = lambda lib, z, y: lib.nn.BCEWithLogitsLoss(pos_weight=lib.tensor([1.0, 2.0, 3.0]))(z, y)  # noqa: E731
    return case(key, fn, [logits(2, 3, rng=rng), rng.random((2, 3)).astype("float32")], [1, 1])


@pytest.mark.parametrize("name", sorted(MODULES))
def test_loss_modules_match_torch(name):
    key, _ = module_case(name)
    assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE["float32"])


@pytest.mark.parametrize("name", sorted(MODULES))
def test_loss_modules_print_as_torchs(torch, name):
    settings, _ = MODULES[name]
    assert repr(getattr(minitorch.nn, name)(**settings)) == repr(
        getattr(torch.nn, name)(**settings)
    )


@pytest.mark.parametrize("name", WEIGHTED_MODULES)
def test_loss_module_weights_are_buffers(name):
    ours = getattr(minitorch.nn, name)(weight=minitorch.tensor(WEIGHT))
    assert [n for n, _ in ours.named_buffers()] == ["weight"]
    assert list(ours.parameters()) == []
    key, _ = weighted_module_case(name)
    assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE["float32"])


def test_bce_with_logits_module_keeps_pos_weight():
    key, _ = pos_weight_case()
    assert_case_as_recorded(CASES, ANSWERS, key, **TOLERANCE["float32"])


@pytest.mark.parametrize(
    ("size_average", "reduce", "reduction"),
    [(False, None, "sum"), (None, False, "none"), (True, True, "mean")],
)
def test_legacy_reduction_arguments(size_average, reduce, reduction):
    with pytest.warns(UserWarning, match=f"please use reduction='{reduction}' instead"):
        loss = minitorch.nn.NLLLoss(size_average=size_average, reduce=reduce)
    assert loss.reduction == reduction


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
        for dtype in DTYPES:
            found += [
                probabilities_case(shape, reduction, *settings, dtype)
                for shape in PROBABILITY_SHAPES
                for settings in PROBABILITY_SETTINGS
            ]
            found += [
                regression_case(name, target_shape, reduction, dtype)
                for name in PAIR_LOSSES
                for target_shape in TARGET_SHAPES
            ]
            found += [bce_case(reduction, weighted, dtype) for weighted in (False, True)]
            found += [
                bce_logits_case(reduction, *settings, scale, dtype)
                for settings in BCE_LOGITS_SETTINGS
                for scale in (2.0, 1000.0)
            ]
    found += [huge_cross_entropy_case(smoothing) for smoothing in (0.0, 0.1)]
    found += [all_ignored_case(reduction) for reduction in ("mean", "sum")]
    found += [bce_clamp_case(), pos_weight_case()]
    found += [module_case(name) for name in MODULES]
    found += [weighted_module_case(name) for name in WEIGHTED_MODULES]
    return dict(found)


CASES = cases()
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the implicit dims and broadcasting, tested here
        return answers_of(torch, CASES)
