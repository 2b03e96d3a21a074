"""Shared by the tests of PyTorch-surface names: a table row is one call, checked three ways.

A `Case` has a label, `call(lib)` (the same code for minitorch and for torch), and
`expected`, the answer from an independent reference (NumPy, or values written out by
hand from the definition), so the check passes without torch. `check_case` compares
minitorch's result with `expected` (shape, dtype where given, values); `grad_inputs`
names the float64 inputs whose gradient is checked against central differences.
`like_torch` runs the same call in torch and compares everything `helpers.describe`
sees (values, shapes, dtypes, or the same error).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import minitorch


@dataclass
class Case:
    label: str
    call: Callable  # lib -> result (a tensor, a tuple of them, a Size, a number)
    expected: Callable  # () -> the reference (arrays, tuples of arrays, tuples, numbers)
    dtype: str | None = None  # the result's dtype name, where it is part of the behaviour
    grad: Callable | None = None  # (lib, *float64 leaves) -> tensor, with `leaves`' values
    leaves: list = field(default_factory=list)  # NumPy arrays: the gradient's inputs

    def __str__(self) -> str:
        return self.label


def as_array(value):
    if isinstance(value, minitorch.Tensor):
        return value.detach().numpy()
    return value


def tolerances(ours) -> dict:
    """float32 results within float32's rounding, others within float64's."""
    single = isinstance(ours, minitorch.Tensor) and ours.dtype is minitorch.float32
    return {"rtol": 1e-5, "atol": 1e-6} if single else {"rtol": 1e-6, "atol": 1e-9}


def assert_matches(ours, expected, label: str) -> None:
    if isinstance(expected, (tuple, list)) and not isinstance(ours, minitorch.Tensor):
        assert len(ours) == len(expected), f"{label}: {len(ours)} results, {len(expected)}"
        for k, (a, b) in enumerate(zip(ours, expected, strict=True)):
            assert_matches(a, b, f"{label}[{k}]")
        return
    if isinstance(expected, np.ndarray):
        assert isinstance(ours, minitorch.Tensor), f"{label}: {type(ours).__name__}"
        assert tuple(ours.shape) == expected.shape, f"{label}: {ours.shape} vs {expected.shape}"
        if expected.dtype == np.bool_:
            assert ours.dtype is minitorch.bool, f"{label}: dtype {ours.dtype}"
        np.testing.assert_allclose(as_array(ours), expected, err_msg=label, **tolerances(ours))
        return
    if isinstance(ours, minitorch.Tensor):
        np.testing.assert_allclose(as_array(ours), expected, err_msg=label, **tolerances(ours))
        return
    assert ours == expected, f"{label}: {ours} vs {expected}"


def check_case(case: Case) -> None:
    """minitorch's result against the reference (warnings both may give, such as a
    deprecation or NumPy's divide by zero, are not the point here)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        ours, expected = case.call(minitorch), case.expected()
    assert_matches(ours, expected, case.label)
    if case.dtype is not None:
        assert str(ours.dtype) == f"minitorch.{case.dtype}", f"{case.label}: {ours.dtype}"
    if case.grad is not None:
        leaves = [
            minitorch.tensor(x, dtype=minitorch.float64, requires_grad=True) for x in case.leaves
        ]
        minitorch.grad_check(lambda *xs: case.grad(minitorch, *xs), *leaves)


def assert_close_described(ours, theirs, where: str) -> None:
    """`helpers.describe`d results alike: the same structure, dtypes, shapes and errors, and
    values within rounding (a composition may round differently from torch's own kernel)."""
    if isinstance(theirs, tuple) and theirs and theirs[0] == "tensor":
        assert ours[:-1] == theirs[:-1], f"{where}: {ours[:-1]} vs {theirs[:-1]}"
        np.testing.assert_allclose(
            np.asarray(ours[-1], dtype=float), np.asarray(theirs[-1], dtype=float),
            rtol=1e-6, atol=1e-12, err_msg=where,
        )  # fmt: skip
    elif isinstance(theirs, tuple) and not (theirs and theirs[0] == "raised"):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), f"{where}: {ours} vs {theirs}"
        for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_close_described(a, b, f"{where}[{k}]")
    elif isinstance(theirs, float):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, err_msg=where)
    else:
        assert ours == theirs, f"{where}: {ours} vs {theirs}"


def like_torch(case: Case, torch: Any) -> None:
    """The case's call in both libraries: the same results (or errors); gradients alike."""
    from comparisons import compare
    from helpers import describe, outcome

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = (describe(outcome(case.call, lib)) for lib in (minitorch, torch))
    assert_close_described(ours, theirs, case.label)
    if case.grad is not None:
        # compositions record their steps' nodes, not one node named as torch's
        leaves = [np.asarray(x, dtype=np.float64) for x in case.leaves]
        compare(case.grad, leaves, names=False)


def table_tests(cases: list, errors: list, refused: tuple = (RuntimeError,)) -> tuple:
    """The four tests of a file's tables, for it to bind at module level: each case against
    its reference and against torch; each of `errors`' `(label, call(lib))` raising one of
    `refused`, and the same exception type as torch's."""
    import pytest

    @pytest.mark.parametrize("case", cases, ids=str)
    def test_matches_reference(case):
        check_case(case)

    @pytest.mark.parametrize("case", cases, ids=str)
    def test_like_torch(case, torch):
        like_torch(case, torch)

    labels = [label for label, _ in errors]

    @pytest.mark.parametrize(("label", "call"), errors, ids=labels)
    def test_refuses_bad_input(label, call):
        with pytest.raises(refused):
            call(minitorch)

    @pytest.mark.parametrize(("label", "call"), errors, ids=labels)
    def test_errors_like_torch(label, call, torch):
        from helpers import outcome

        ours, theirs = outcome(call, minitorch), outcome(call, torch)
        assert ours[:2] == theirs[:2], f"{ours} vs {theirs}"

    return test_matches_reference, test_like_torch, test_refuses_bad_input, test_errors_like_torch
