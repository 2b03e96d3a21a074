"""The loss layers of minitorch.nn (CrossEntropyLoss, NLLLoss, MSELoss, ..., BCEWithLogitsLoss)
against torch: values and gradients, reprs (live, skipped without torch), weights kept as
buffers, the legacy `size_average`/`reduce` arguments.

The values, dtypes, node names and gradients are torch's, recorded in
tests/data/test_nn_loss_modules.json (scripts/record_torch_answers.py from `torch_answers`).
The inputs and tolerances are tests/loss_cases.py's.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import answers_of, assert_case_as_recorded, case_rng, recorded_answers
from loss_cases import TOLERANCE, case, classes, logits

import minitorch

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
    found = [module_case(name) for name in MODULES]
    found += [weighted_module_case(name) for name in WEIGHTED_MODULES]
    found += [pos_weight_case()]
    return dict(found)


CASES = cases()
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    return answers_of(torch, CASES)
