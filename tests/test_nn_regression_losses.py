"""The regression losses (mse, l1, smooth l1, huber) and binary cross-entropy (of
probabilities and of logits) of minitorch.nn against torch: values, dtypes, `grad_fn` names,
gradients of every differentiable input (also by central differences).

The values, dtypes, node names and gradients are torch's, recorded in
tests/data/test_nn_regression_losses.json (scripts/record_torch_answers.py from `torch_answers`).
The inputs and tolerances are tests/loss_cases.py's.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import answers_of, assert_case_as_recorded, case_rng, recorded_answers
from loss_cases import DTYPES, REDUCTIONS, TOLERANCE, case, functional, logits

import minitorch
import minitorch.nn.functional as F

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


def cases() -> dict[str, tuple]:
    """Every case whose answer is recorded: key -> (fn, arrays, run_case's options)."""
    found = [bce_clamp_case()]
    for reduction in REDUCTIONS:
        for dtype in DTYPES:
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
    return dict(found)


CASES = cases()
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the broadcasting, tested here
        return answers_of(torch, CASES)
