"""Softmax and the losses of minitorch.nn against torch: values, dtypes, `grad_fn` names,
gradients of every differentiable input (also by central differences), error texts.

Skipped when torch is not installed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import assert_close, pair

import minitorch
import minitorch.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

pytestmark = pytest.mark.torch

RNG = np.random.default_rng(4)
DTYPES = ["float32", "float64"]
REDUCTIONS = ["mean", "sum", "none"]
TOLERANCE = {"float32": {"rtol": 2e-5, "atol": 2e-6}, "float64": {"rtol": 1e-10, "atol": 1e-12}}


def node_name(t) -> str | None:
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def compare(our_fn, their_fn, arrays, differentiable, dtype: str = "float32") -> None:
    """Run both functions on the same inputs; compare output, dtype, node and input grads."""
    ours_in, theirs_in = zip(
        *(pair(a, requires_grad=grad) for a, grad in zip(arrays, differentiable, strict=True)),
        strict=True,
    )
    ours, theirs = our_fn(*ours_in), their_fn(*theirs_in)
    assert_close(ours, theirs, "output", **TOLERANCE[dtype])
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    assert node_name(ours) == node_name(theirs)
    if not theirs.requires_grad:
        return
    weights = RNG.standard_normal(tuple(theirs.shape)).astype(dtype)
    (ours * pair(weights)[0]).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    for i, (a, b) in enumerate(zip(ours_in, theirs_in, strict=True)):
        if b.requires_grad:
            assert_close(a.grad, b.grad, f"gradient of input {i}", **TOLERANCE[dtype])


def logits(*shape: int, dtype: str = "float32", scale: float = 2.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(dtype)


def classes(count: int, *shape: int) -> np.ndarray:
    return RNG.integers(0, count, shape)


# ---------------------------------------------------------------------------
# Task 4.4: stable softmax and log-softmax
# ---------------------------------------------------------------------------


@pytest.mark.task4_4
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize(("shape", "dim"), [((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 2), -1)])
def test_softmax_matches_torch(name, dtype, shape, dim):
    compare(
        lambda x: getattr(minitorch, name)(x, dim),
        lambda x: getattr(torch, name)(x, dim),
        [logits(*shape, dtype=dtype)],
        [True],
        dtype,
    )


@pytest.mark.task4_4
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_is_stable_for_huge_inputs(name, dtype):
    """e^1000 overflows: only a max-subtracted softmax gives finite values and gradients."""
    values = np.array([[1000.0, -1000.0, 0.0], [1000.0, 1000.0, 999.0]], dtype=dtype)
    compare(lambda x: getattr(x, name)(1), lambda x: getattr(x, name)(1), [values], [True], dtype)
    out = getattr(minitorch, name)(minitorch.tensor(values, dtype=getattr(minitorch, dtype)), 1)
    assert np.isfinite(out.numpy()).all()


@pytest.mark.task4_4
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_grad_check(name):
    x = minitorch.tensor(logits(2, 3, dtype="float64"), requires_grad=True)
    assert minitorch.grad_check(lambda t: getattr(t, name)(1), x)


@pytest.mark.task4_4
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_dtype_argument(name):
    compare(
        lambda x: getattr(F, name)(x, 0, dtype=minitorch.float64),
        lambda x: getattr(TF, name)(x, 0, dtype=torch.float64),
        [logits(4)],
        [True],
        "float64",
    )


@pytest.mark.task4_4
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 3, 2)])
def test_softmax_implicit_dim_warns_and_picks_torchs_dim(name, shape):
    values = logits(*shape)
    message = f"Implicit dimension choice for {name} has been deprecated"
    with pytest.warns(UserWarning, match=message):
        ours = getattr(F, name)(pair(values)[0])
    with pytest.warns(UserWarning, match=message):
        theirs = getattr(TF, name)(torch.tensor(values))
    assert_close(ours, theirs, "output", **TOLERANCE["float32"])


# ---------------------------------------------------------------------------
# Task 4.5: negative log-likelihood and cross-entropy of class indices
# ---------------------------------------------------------------------------

# (input shape, target shape) with classes on dim 1 (on dim 0 for a 1-D input)
CLASS_SHAPES = [((4, 5), (4,)), ((5,), ()), ((2, 3, 4), (2, 4)), ((2, 3, 2, 2), (2, 2, 2))]


def class_case(input_shape, target_shape, dtype, ignore_index):
    count = input_shape[1] if len(input_shape) > 1 else input_shape[0]
    target = classes(count, *target_shape)
    if ignore_index is not None and target.ndim:
        target.reshape(-1)[0] = ignore_index  # at least one ignored target
    weight = RNG.random(count).astype(dtype) + 0.5
    return logits(*input_shape, dtype=dtype), target, weight


def settings_of(ignore_index, weighted, label_smoothing=None):
    settings = {} if ignore_index is None else {"ignore_index": ignore_index}
    if label_smoothing is not None:
        settings["label_smoothing"] = label_smoothing
    return settings, weighted


@pytest.mark.task4_5
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(("input_shape", "target_shape"), CLASS_SHAPES)
@pytest.mark.parametrize(
    ("weighted", "ignore_index", "dtype"),
    [(0, None, "float32"), (1, 1, "float64"), (1, -3, "float32"), (0, 1, "float64")],
)
def test_nll_loss_matches_torch(
    input_shape, target_shape, reduction, weighted, ignore_index, dtype
):
    x, target, weight = class_case(input_shape, target_shape, dtype, ignore_index)
    settings = {"reduction": reduction}
    if ignore_index is not None:
        settings["ignore_index"] = ignore_index
    compare(
        lambda x, t, w: F.nll_loss(x, t, w if weighted else None, **settings),
        lambda x, t, w: TF.nll_loss(x, t, w if weighted else None, **settings),
        [x, target, weight],
        [True, False, False],
        dtype,
    )


@pytest.mark.task4_5
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(("input_shape", "target_shape"), CLASS_SHAPES)
@pytest.mark.parametrize(
    ("weighted", "ignore_index", "smoothing", "dtype"),
    [
        (0, None, 0.0, "float32"),
        (1, 2, 0.0, "float64"),
        (0, 0, 0.2, "float64"),
        (1, 2, 0.2, "float32"),
    ],
)
def test_cross_entropy_matches_torch(
    input_shape, target_shape, reduction, smoothing, weighted, ignore_index, dtype
):
    x, target, weight = class_case(input_shape, target_shape, dtype, ignore_index)
    settings = {"reduction": reduction, "label_smoothing": smoothing}
    if ignore_index is not None:
        settings["ignore_index"] = ignore_index
    compare(
        lambda x, t, w: F.cross_entropy(x, t, w if weighted else None, **settings),
        lambda x, t, w: TF.cross_entropy(x, t, w if weighted else None, **settings),
        [x, target, weight],
        [True, False, False],
        dtype,
    )


@pytest.mark.task4_5
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_is_stable_for_huge_logits(smoothing):
    x = np.array([[1000.0, -1000.0, 0.0], [-1000.0, -1000.0, -1000.0]], dtype="float32")
    target = np.array([1, 2])
    compare(
        lambda x, t: F.cross_entropy(x, t, label_smoothing=smoothing),
        lambda x, t: TF.cross_entropy(x, t, label_smoothing=smoothing),
        [x, target],
        [True, False],
    )


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
    compare(
        lambda x, t: F.nll_loss(x, t, reduction=reduction),
        lambda x, t: TF.nll_loss(x, t, reduction=reduction),
        [logits(4), np.array([2])],
        [False, False],
    )


@pytest.mark.task4_5
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_nll_loss_with_every_target_ignored(reduction):
    """Nothing left to average: the mean is 0 / 0 = nan, the sum 0, as in torch."""
    compare(
        lambda x, t: F.nll_loss(x, t, reduction=reduction),
        lambda x, t: TF.nll_loss(x, t, reduction=reduction),
        [logits(3, 4), np.full(3, -100)],
        [True, False],
    )


# ---------------------------------------------------------------------------
# Cross-entropy of class probabilities
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(4, 5), (5,), (2, 3, 2)])
@pytest.mark.parametrize(("weighted", "smoothing"), [(0, 0.0), (1, 0.0), (1, 0.3)])
def test_cross_entropy_with_probabilities(shape, reduction, weighted, smoothing, dtype):
    count = shape[1] if len(shape) > 1 else shape[0]
    probabilities = RNG.random(shape).astype(dtype)
    weight = RNG.random(count).astype(dtype)
    settings = {"reduction": reduction, "label_smoothing": smoothing}
    compare(
        lambda x, p, w: F.cross_entropy(x, p, w if weighted else None, **settings),
        lambda x, p, w: TF.cross_entropy(x, p, w if weighted else None, **settings),
        [logits(*shape, dtype=dtype), probabilities, weight],
        [True, True, False],
        dtype,
    )


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


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("target_shape", [(3, 4), (3, 1)])
@pytest.mark.parametrize("case", sorted(PAIR_LOSSES))
def test_regression_losses_match_torch(case, target_shape, reduction, dtype):
    name, settings = case.split("(")[0], {"reduction": reduction, **PAIR_LOSSES[case]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the broadcasting warning, tested below
        compare(
            lambda x, y: getattr(F, name)(x, y, **settings),
            lambda x, y: getattr(TF, name)(x, y, **settings),
            [logits(3, 4, dtype=dtype), logits(*target_shape, dtype=dtype)],
            [True, True],
            dtype,
        )


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_regression_losses_warn_when_shapes_broadcast(name):
    x, y = pair(logits(3, 1))[0], pair(logits(3))[0]
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
    p = (RNG.random((3, 4)) * 0.9 + 0.05).astype(dtype)
    y = RNG.random((3, 4)).astype(dtype)
    weight = RNG.random(4).astype(dtype)
    settings = {"reduction": reduction}
    compare(
        lambda p, y, w: F.binary_cross_entropy(p, y, w if weighted else None, **settings),
        lambda p, y, w: TF.binary_cross_entropy(p, y, w if weighted else None, **settings),
        [p, y, weight],
        [True, True, False],
        dtype,
    )


def test_binary_cross_entropy_clamps_log_at_minus_100():
    """p = 0 against y = 1 costs 100 (ln 0 clamped), not infinity."""
    compare(
        lambda p, y: F.binary_cross_entropy(p, y, reduction="none"),
        lambda p, y: TF.binary_cross_entropy(p, y, reduction="none"),
        [np.array([0.0, 1.0, 0.5], "float32"), np.array([1.0, 0.0, 1.0], "float32")],
        [True, False],
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(("weighted", "positive"), [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("scale", [2.0, 1000.0])
def test_binary_cross_entropy_with_logits_matches_torch(
    reduction, weighted, positive, scale, dtype
):
    weight = RNG.random(4).astype(dtype)
    pos_weight = (RNG.random(4) * 3).astype(dtype)
    settings = {"reduction": reduction}
    compare(
        lambda z, y, w, q: F.binary_cross_entropy_with_logits(
            z, y, w if weighted else None, pos_weight=q if positive else None, **settings
        ),
        lambda z, y, w, q: TF.binary_cross_entropy_with_logits(
            z, y, w if weighted else None, pos_weight=q if positive else None, **settings
        ),
        [
            logits(3, 4, dtype=dtype, scale=scale),
            RNG.random((3, 4)).astype(dtype),
            weight,
            pos_weight,
        ],
        [True, True, False, False],
        dtype,
    )


def test_binary_cross_entropy_grad_check():
    p = minitorch.tensor(RNG.random((2, 3)) * 0.8 + 0.1, requires_grad=True)
    y = minitorch.tensor(RNG.random((2, 3)), requires_grad=True)
    z = minitorch.tensor(logits(2, 3, dtype="float64"), requires_grad=True)
    q = minitorch.tensor([0.5, 2.0, 3.0], dtype=minitorch.float64)
    assert minitorch.grad_check(lambda a, b: F.binary_cross_entropy(a, b), p, y)
    assert minitorch.grad_check(
        lambda a, b: F.binary_cross_entropy_with_logits(a, b, pos_weight=q), z, y
    )


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
def test_errors_match_torch(case):
    def ours(a):
        return pair(a)[0]

    def theirs(a):
        return pair(a)[1]

    with pytest.raises(Exception) as expected:
        ERRORS[case](TF, theirs)
    with pytest.raises(type(expected.value)) as raised:
        ERRORS[case](F, ours)
    assert str(raised.value) == str(expected.value)


@pytest.mark.parametrize("name", ["binary_cross_entropy", "binary_cross_entropy_with_logits"])
def test_binary_losses_need_the_shape_of_the_input(name):
    x, y = pair(RNG.random((3, 1)).astype("float32"))[0], pair(np.zeros(3, "float32"))[0]
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


@pytest.mark.parametrize("name", sorted(MODULES))
def test_loss_modules_match_torch(name):
    settings, kind = MODULES[name]
    target = {
        "classes": classes(5, 4),
        "values": logits(4, 5),
        "probabilities": RNG.random((4, 5)).astype("float32"),
    }[kind]
    ours, theirs = getattr(minitorch.nn, name)(**settings), getattr(torch.nn, name)(**settings)
    assert repr(ours) == repr(theirs)
    compare(ours, theirs, [logits(4, 5), target], [True, False])


@pytest.mark.parametrize("name", ["CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss"])
def test_loss_module_weights_are_buffers(name):
    ours = getattr(minitorch.nn, name)(weight=pair(WEIGHT)[0])
    assert [n for n, _ in ours.named_buffers()] == ["weight"]
    assert list(ours.parameters()) == []
    target = classes(5, 4) if "BCE" not in name else RNG.random((4, 5)).astype("float32")
    inputs = RNG.random((4, 5)).astype("float32") * 0.9 + 0.05
    theirs = getattr(torch.nn, name)(weight=torch.tensor(WEIGHT))
    compare(ours, theirs, [inputs, target], [True, False])


def test_bce_with_logits_module_keeps_pos_weight():
    pos_weight = pair(np.array([1.0, 2.0, 3.0], "float32"))
    ours = minitorch.nn.BCEWithLogitsLoss(pos_weight=pos_weight[0])
    theirs = torch.nn.BCEWithLogitsLoss(pos_weight=pos_weight[1])
    compare(ours, theirs, [logits(2, 3), RNG.random((2, 3)).astype("float32")], [True, True])


@pytest.mark.parametrize(
    ("size_average", "reduce", "reduction"),
    [(False, None, "sum"), (None, False, "none"), (True, True, "mean")],
)
def test_legacy_reduction_arguments(size_average, reduce, reduction):
    with pytest.warns(UserWarning, match=f"please use reduction='{reduction}' instead"):
        loss = minitorch.nn.NLLLoss(size_average=size_average, reduce=reduce)
    assert loss.reduction == reduction
