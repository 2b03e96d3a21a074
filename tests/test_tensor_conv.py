"""Convolution and pooling on every CPU backend (they are built from the backends' existing
kernels): one tiny case each, forward and input gradient, against torch's answers (recorded in
tests/data/test_tensor_conv.json by scripts/record_torch_answers.py)."""

from __future__ import annotations

import pytest
from helpers import (
    answers_of,
    assert_case_as_recorded,
    case_rng,
    recorded_answers,
)

OPERATIONS = {"conv2d": [(2, 2, 2, 2)], "max_pool2d": [2, 1, 1], "avg_pool2d": [2, 1, 1]}


def operation_case(name: str) -> tuple:
    """`name` of a (1, 2, 3, 4) input and its arguments (a shape: a random weight)."""
    rng = case_rng(name)
    weights = [rng.normal(size=a) for a in OPERATIONS[name] if isinstance(a, tuple)]
    numbers = [a for a in OPERATIONS[name] if isinstance(a, int)]

    def fn(lib, x, *tensors):
        return getattr(lib.nn.functional, name)(x, *tensors, *numbers)

    arrays = [rng.normal(size=(1, 2, 3, 4)), *weights]
    return fn, arrays, {"differentiable": [True] + [False] * len(weights)}


CASES = {name: operation_case(name) for name in OPERATIONS}
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    return answers_of(torch, CASES)


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_conv_and_pooling_run_on_the_backend(name):
    assert_case_as_recorded(CASES, ANSWERS, name, 1e-12, 1e-12)
