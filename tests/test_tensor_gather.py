"""Gather, scatter and selection against PyTorch: values, dtypes, errors, gradients.

Runs on every CPU backend. Each case is a function of the library module
(`lib`), run with minitorch and compared with what torch gave, recorded in
tests/data/test_tensor_gather.json (scripts/record_torch_answers.py from `torch_answers`).
"""

import numpy as np
import pytest
from helpers import (
    answers_of,
    assert_case_as_recorded,
    assert_outcome_as_recorded,
    outcome_answers,
    recorded_answers,
    x23,
)

import minitorch


def idx(lib, values):
    return lib.tensor(values)


CASES = {
    "gather_dim1": lambda lib: x23(lib).gather(1, idx(lib, [[0, 0], [2, 1]])),
    "gather_dim0": lambda lib: x23(lib).gather(0, idx(lib, [[1, 0, 1]])),
    "gather_transposed": lambda lib: x23(lib).t().gather(1, idx(lib, [[1, 0], [0, 0], [1, 1]])),
    "gather_int": lambda lib: lib.gather(lib.arange(6).reshape(2, 3), 1, idx(lib, [[2], [0]])),
    "gather_negative": lambda lib: x23(lib).gather(0, idx(lib, [[0, -1]])),
    "gather_out_of_bounds": lambda lib: x23(lib).gather(0, idx(lib, [[0, 5]])),
    "gather_ndim": lambda lib: x23(lib).gather(0, idx(lib, [0, 1])),
    "gather_too_big": lambda lib: x23(lib).gather(0, idx(lib, [[0, 1, 0, 1]])),
    "gather_float_index": lambda lib: x23(lib).gather(0, lib.tensor([[0.0]])),
    "scatter_src": lambda lib: x23(lib).scatter(0, idx(lib, [[1, 0, 1]]), lib.ones(1, 3) * 7),
    "scatter_value": lambda lib: x23(lib).scatter(1, idx(lib, [[2], [0]]), 5.0),
    "scatter_small_src": lambda lib: x23(lib).scatter(0, idx(lib, [[0, 1]]), lib.ones(2, 3)),
    "scatter_reduce_add": lambda lib: x23(lib).scatter(0, idx(lib, [[1, 1, 1]]), 2.0, reduce="add"),
    "scatter_bad_reduce": lambda lib: x23(lib).scatter(0, idx(lib, [[1]]), 2.0, reduce="max"),
    "scatter_src_too_small": lambda lib: x23(lib).scatter(0, idx(lib, [[0, 1, 0]]), lib.ones(1, 2)),
    "scatter_out_of_bounds": lambda lib: x23(lib).scatter(0, idx(lib, [[0, 1, 4]]), 1.0),
    "scatter_": lambda lib: x23(lib).scatter_(0, idx(lib, [[1, 0, 1]]), lib.ones(1, 3)),
    "scatter_add": lambda lib: x23(lib).scatter_add(
        0, idx(lib, [[1, 1, 1], [1, 0, 1]]), lib.arange(6.0).reshape(2, 3)
    ),
    "scatter_add_": lambda lib: lib.zeros(4).scatter_add_(0, idx(lib, [0, 2, 0, 0]), lib.ones(4)),
    "index_select": lambda lib: x23(lib).index_select(1, idx(lib, [2, 0, 2])),
    "index_select_0d": lambda lib: x23(lib).index_select(1, idx(lib, 2)),
    "index_select_bad": lambda lib: x23(lib).index_select(1, idx(lib, [0, 5])),
    "index_select_2d": lambda lib: x23(lib).index_select(1, idx(lib, [[0]])),
    "index_add_": lambda lib: x23(lib).index_add_(0, idx(lib, [0, 0]), lib.ones(2, 3), alpha=2),
    "index_add_shape": lambda lib: x23(lib).index_add_(0, idx(lib, [0, 0]), lib.ones(2, 2)),
    "index_add_negative": lambda lib: x23(lib).index_add_(0, idx(lib, [-1]), lib.ones(1, 3)),
    "index_fill_": lambda lib: x23(lib).index_fill_(1, idx(lib, [0, -1]), -1.0),
    "take": lambda lib: x23(lib).take(idx(lib, [[0, -1], [3, 2]])),
    "take_transposed": lambda lib: lib.take(x23(lib).t(), idx(lib, [1, 2])),
    "take_out_of_range": lambda lib: x23(lib).take(idx(lib, [10])),
    "masked_fill": lambda lib: x23(lib).masked_fill(x23(lib) > 2, 0.5),
    "masked_fill_broadcast": lambda lib: x23(lib).masked_fill(idx(lib, [True, False, True]), -1.0),
    "masked_fill_tensor": lambda lib: x23(lib).masked_fill(x23(lib) > 2, lib.tensor(9.0)),
    "masked_fill_float_mask": lambda lib: x23(lib).masked_fill(x23(lib), 1.0),
    "masked_fill_1d_value": lambda lib: x23(lib).masked_fill(x23(lib) > 1, lib.tensor([1.0])),
    "masked_fill_": lambda lib: x23(lib).masked_fill_(x23(lib) < 2, 0.0),
    "masked_select": lambda lib: x23(lib).masked_select(x23(lib) > 2),
    "masked_select_broadcast": lambda lib: x23(lib).masked_select(idx(lib, [True, False, True])),
    "nonzero": lambda lib: lib.nonzero(x23(lib)),
    "nonzero_tuple": lambda lib: lib.nonzero(x23(lib), as_tuple=True),
    "nonzero_0d": lambda lib: lib.nonzero(lib.tensor(3.0)),
    "argwhere": lambda lib: lib.argwhere(x23(lib) > 3),
    "where_one_argument": lambda lib: lib.where(x23(lib) > 2),
    "unique": lambda lib: lib.unique(
        idx(lib, [3, 1, 3, 2]), return_inverse=True, return_counts=True
    ),
    "unique_dim": lambda lib: lib.unique(idx(lib, [[1, 2], [1, 2], [0, 5]]), dim=0),
    "unique_float": lambda lib: lib.tensor([[3.0, 1.0], [3.0, -2.0]]).unique(),
    "searchsorted": lambda lib: lib.searchsorted(
        idx(lib, [1, 3, 5, 7]), idx(lib, [[3, 6], [0, 9]])
    ),
    "searchsorted_right": lambda lib: lib.searchsorted(idx(lib, [1, 3, 5, 7]), 5, right=True),
    "searchsorted_batched": lambda lib: lib.searchsorted(
        idx(lib, [[1, 3, 5], [2, 4, 6]]), idx(lib, [[3, 6], [3, 6]]), side="right"
    ),
    "searchsorted_opposites": lambda lib: lib.searchsorted(
        idx(lib, [1, 3]), idx(lib, [2]), side="left", right=True
    ),
    "bincount": lambda lib: lib.bincount(idx(lib, [1, 3, 3, 0])),
    "bincount_weights": lambda lib: lib.bincount(idx(lib, [1, 3, 3, 0]), idx(lib, [1.0, 2, 3, 4])),
    "bincount_int_weights": lambda lib: lib.bincount(idx(lib, [1, 3]), idx(lib, [1, 2])),
    "bincount_minlength": lambda lib: lib.bincount(idx(lib, [1, 3, 3, 0]), minlength=7),
    "bincount_negative": lambda lib: lib.bincount(idx(lib, [-1, 2])),
    "bincount_float": lambda lib: lib.bincount(idx(lib, [1.0])),
    "histc": lambda lib: lib.histc(idx(lib, [1.0, 2, 1, 4, 5]), bins=4, min=0, max=3),
    "histc_range_of_data": lambda lib: lib.histc(idx(lib, [1.0, 2, 1, 4, 5]), bins=4),
    "histc_edges": lambda lib: lib.histc(idx(lib, [0.0, 0.25, 0.5, 1.0, -0.1]), bins=4, max=1),
    "histc_int": lambda lib: lib.histc(idx(lib, [1, 2]), bins=4),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_torch(case):
    assert_outcome_as_recorded(ANSWERS, "cases", case, CASES[case])


def index(lib, values):
    return lib.tensor(values)


GRADIENTS = {
    "gather": (
        lambda lib, x, s: x.gather(1, index(lib, [[0, 0], [3, 1], [2, 2]])),
        "GatherBackward0",
    ),
    "scatter": (
        lambda lib, x, s: x.scatter(0, index(lib, [[2, 0, 1, 0], [1, 1, 2, 2]]), s),
        "ScatterBackward0",
    ),
    "scatter_value": (
        lambda lib, x, s: x.scatter(0, index(lib, [[2, 0, 1, 0]]), 3.0),
        "ScatterBackward1",
    ),
    "scatter_add": (
        lambda lib, x, s: x.scatter_add(0, index(lib, [[2, 0, 2, 0], [2, 2, 1, 1]]), s),
        "ScatterAddBackward0",
    ),
    "index_select": (
        lambda lib, x, s: x.index_select(0, index(lib, [2, 0, 2])),
        "IndexSelectBackward0",
    ),
    "index_add": (
        lambda lib, x, s: (x * 1).index_add_(0, index(lib, [2, 2]), s),
        "IndexAddBackward0",
    ),
    "index_fill": (
        lambda lib, x, s: (x * 1).index_fill_(1, index(lib, [0, 3]), -1.0),
        "IndexFillBackward0",
    ),
    "take": (lambda lib, x, s: x.take(index(lib, [[0, 5], [5, -1]])), "TakeBackward0"),
    "masked_fill": (lambda lib, x, s: x.masked_fill(x > 0, 0.5), "MaskedFillBackward0"),
    "masked_select": (lambda lib, x, s: x.masked_select(x > 0), "MaskedSelectBackward0"),
}


GRADIENT_INPUTS = [np.random.default_rng(0).standard_normal(shape) for shape in ((3, 4), (2, 4))]
GRADIENT_CASES = {
    f"gradient {case}": (fn, GRADIENT_INPUTS, {}) for case, (fn, _) in GRADIENTS.items()
}
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    return {**outcome_answers(torch, {"cases": CASES}), **answers_of(torch, GRADIENT_CASES)}


@pytest.mark.parametrize("case", sorted(GRADIENTS))
def test_gradients(case):
    """grad_fn named as torch's; gradients equal torch's and central differences."""
    fn, name = GRADIENTS[case]
    assert ANSWERS[f"gradient {case}"]["output grad_fn"] == name
    assert_case_as_recorded(GRADIENT_CASES, ANSWERS, f"gradient {case}", 1e-7, 1e-10)
    x, s = (minitorch.tensor(a, requires_grad=True) for a in GRADIENT_INPUTS)
    assert minitorch.grad_check(lambda a, b: fn(minitorch, a, b), x, s)


def test_scatter_add_adds_repeated_positions():
    """Duplicates add up (the accumulating `put`), on every backend."""
    counts = minitorch.zeros(3).scatter_add_(0, minitorch.tensor([2, 2, 2, 0]), minitorch.ones(4))
    assert counts.tolist() == [1.0, 0.0, 3.0]
