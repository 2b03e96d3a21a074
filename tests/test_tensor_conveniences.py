"""What people type from PyTorch habits: axis=/keepdims=, input=/other=, out=, .data, format.

Each case runs with minitorch; results (or error texts) must be what torch gave, recorded in
tests/data/test_tensor_conveniences.json (scripts/record_torch_answers.py from `torch_answers`).
"""

import warnings

import numpy as np
import pytest
from helpers import (
    assert_outcome_as_recorded,
    outcome_answers,
    recorded_answers,
    x23,
)

import minitorch


def written_out(lib, out):
    result = lib.add(x23(lib), 1, out=out)
    return result, out, result is out


CASES = {
    "axis": lambda lib: x23(lib).sum(axis=0),
    "keepdims": lambda lib: x23(lib).mean(1, keepdims=True),
    "function_axis": lambda lib: lib.sum(x23(lib), axis=1, keepdims=True),
    "max_axis": lambda lib: tuple(x23(lib).max(axis=1)),
    "matmul_keywords": lambda lib: lib.matmul(input=x23(lib), other=x23(lib).t()),
    "add_keywords": lambda lib: lib.add(input=x23(lib), other=2.0, alpha=3),
    "exp_input": lambda lib: lib.exp(input=lib.zeros(2)),
    "out_empty": lambda lib: written_out(lib, lib.empty(0)),
    "out_same_shape": lambda lib: written_out(lib, lib.zeros(2, 3, dtype=lib.float64)),
    "out_resized": lambda lib: written_out(lib, lib.zeros(3, 2)),
    "out_bad_dtype": lambda lib: written_out(lib, lib.zeros(2, 3, dtype=lib.int64)),
    "out_sum": lambda lib: lib.sum(x23(lib), 0, out=lib.empty(3)),
    "out_matmul": lambda lib: lib.matmul(x23(lib), x23(lib).t(), out=lib.empty(2, 2)),
    "out_requires_grad": lambda lib: lib.mul(lib.ones(2, requires_grad=True), 2, out=lib.empty(2)),
    "nelement": lambda lib: (x23(lib).nelement(), x23(lib).ndimension(), x23(lib).size(1)),
    "mT": lambda lib: lib.arange(12).reshape(2, 2, 3).mT,
    "type_as": lambda lib: x23(lib).type_as(lib.tensor([1])),
    "to_other": lambda lib: lib.tensor([1, 2]).to(x23(lib)),
    "conversions": lambda lib: (x23(lib).long(), x23(lib).bool(), x23(lib).double()),
    "format_0d": lambda lib: (format(lib.tensor(3.14159), ".2f"), f"{lib.tensor(2.5)}"),
    "format_int_0d": lambda lib: f"{lib.tensor(7):>4}",
    "format_1d_spec": lambda lib: format(lib.tensor([1.0]), ".2f"),
    # creation
    "legacy_sizes": lambda lib: lib.Tensor(2, 3).shape,
    "legacy_size_object": lambda lib: lib.Tensor(lib.Size([2])).shape,
    "legacy_negative": lambda lib: lib.Tensor(-1),
    "new_tensor": lambda lib: lib.ones(2, dtype=lib.float64).new_tensor([1, 2]),
    "new_zeros": lambda lib: lib.ones(2, dtype=lib.float64).new_zeros(2, 3),
    "new_ones_dtype": lambda lib: lib.ones(2).new_ones((1, 2), dtype=lib.int64),
    "new_full": lambda lib: lib.ones(2).new_full((2,), 3),
    "new_empty": lambda lib: lib.arange(3).new_empty(0),
    "default_dtype_int": lambda lib: lib.set_default_dtype(lib.int64),
    "randperm_empty": lambda lib: lib.randperm(0),
    "normal_shapes": lambda lib: (
        lib.normal(0.0, 1.0, size=(2,)).shape,
        lib.normal(lib.zeros(2, 1), lib.ones(3)).shape,
        lib.normal(lib.zeros(2, dtype=lib.float64), 1.0).dtype,
    ),
}


def data_assignment(lib):
    """`w.data -= lr * w.grad` (the hand-written SGD step), then `w.data = t`."""
    w = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    (w * w).sum().backward()
    w.data -= 0.1 * w.grad
    stepped = w.detach().numpy().tolist()
    w.data = lib.zeros(2)
    return stepped, w.detach().numpy().tolist(), w.requires_grad, w.is_leaf


# The legacy constructor's tensors, which stay on the CPU whatever the default device.
LEGACY = {
    "legacy_data": lambda lib: lib.Tensor([[1, 2], [True, 2.5]]),
    "legacy_empty": lambda lib: lib.Tensor(),
}
# `type()` with a dtype, a legacy type or its name (code written for torch says `torch.`)
LEGACY_TYPES = {
    "type_name": lambda lib: lib.ones(2, dtype=lib.int16).type().split(".", 1)[1],
    "to_named_type": lambda lib: lib.tensor([1.5, -2.5]).type("torch.IntTensor"),
    "to_legacy_type": lambda lib: lib.tensor([1, 2]).type(lib.DoubleTensor),
    "to_dtype": lambda lib: lib.tensor([1, 2]).type(lib.float64),
    "own_type_is_itself": lambda lib: (lambda x: x.type("torch.FloatTensor") is x)(lib.ones(2)),
    "unknown_name": lambda lib: lib.ones(2).type("torch.FooTensor"),
    "name_without_library": lambda lib: lib.ones(2).type("DoubleTensor"),
    "not_a_type": lambda lib: lib.ones(2).type(3),
}
TABLES = {
    "cases": CASES,
    "legacy": LEGACY,
    "legacy types": LEGACY_TYPES,
    "data": {"assignment": data_assignment},
}
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    return outcome_answers(torch, TABLES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_torch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the warnings both libraries may give
        assert_outcome_as_recorded(ANSWERS, "cases", case, CASES[case])


@pytest.mark.cpu_only
@pytest.mark.parametrize("case", sorted(LEGACY))
def test_legacy_constructor_matches_torch(case):
    assert_outcome_as_recorded(ANSWERS, "legacy", case, LEGACY[case])


@pytest.mark.cpu_only  # a legacy type is a CPU type: test_cuda_devices.py checks cuda's names
@pytest.mark.parametrize("case", sorted(LEGACY_TYPES))
def test_legacy_types_match_torch(case):
    assert_outcome_as_recorded(ANSWERS, "legacy types", case, LEGACY_TYPES[case])


def test_data_assignment_updates_a_leaf_in_place():
    """`w.data -= lr * w.grad` and `w.data = t` act on the leaf in place, as in torch."""
    assert_outcome_as_recorded(ANSWERS, "data", "assignment", data_assignment)
    stepped = data_assignment(minitorch)[0]
    np.testing.assert_allclose(stepped, [0.8, -1.6, 2.4], rtol=1e-6)


def test_set_default_dtype_changes_new_float_tensors():
    try:
        minitorch.set_default_dtype(minitorch.float64)
        assert minitorch.tensor([1.5]).dtype is minitorch.float64
        assert minitorch.Tensor([1]).dtype is minitorch.float64
    finally:
        minitorch.set_default_dtype(minitorch.float32)
    assert minitorch.tensor([1.5]).dtype is minitorch.float32


def test_random_permutation_and_normal_samples():
    minitorch.manual_seed(0)
    assert sorted(minitorch.randperm(7).tolist()) == list(range(7))
    samples = minitorch.normal(minitorch.tensor([0.0, 100.0]).expand(4000, 2), 2.0)
    means = samples.mean(0).tolist()
    assert abs(means[0]) < 0.3 and abs(means[1] - 100.0) < 0.3
