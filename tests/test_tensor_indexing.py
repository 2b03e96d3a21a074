"""Advanced indexing against PyTorch: reads, writes, errors, gradients (on every CPU backend).

Each case is a function of the library module (`lib`), run with minitorch and
compared with what torch gave, recorded in tests/data/test_tensor_indexing.json
(scripts/record_torch_answers.py from `torch_answers`): results must agree in shape, dtype and
values, errors in type and message, and gradients with torch's and with central differences.
"""

import numpy as np
import pytest
from helpers import (
    answers_of,
    assert_case_as_recorded,
    assert_outcome_as_recorded,
    outcome_answers,
    recorded_answers,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch


def cube(lib):
    """A 2 x 3 x 4 tensor of 0..23 (float32)."""
    return lib.arange(24.0).reshape(2, 3, 4)


def mask(lib, values):
    return lib.tensor(values, dtype=lib.bool)


READS = {
    "list": lambda lib: cube(lib)[[1, 0, 1]],
    "second_dim": lambda lib: cube(lib)[:, [0, 2]],
    "two_broadcast": lambda lib: cube(lib)[[[0], [1]], [0, 2, 1]],
    "range_and_tensor": lambda lib: cube(lib)[range(2), lib.tensor([2, 0])],
    "int_then_index": lambda lib: cube(lib)[0, :, [0, 1]],  # torch selects the int first
    "separated": lambda lib: cube(lib)[[0, 1], :, [0, 3]],
    "none_and_ellipsis": lambda lib: cube(lib)[None, [0, 1], ..., None, [1, 2]],
    "ellipsis_last": lambda lib: cube(lib)[..., [3, 0]],
    "negative": lambda lib: cube(lib)[[-1], [-3, 2]],
    "slices_mixed": lambda lib: cube(lib)[::2, [1, 2], 1:3],
    "empty_list": lambda lib: cube(lib)[[]],
    "tuple_in_key": lambda lib: cube(lib)[(0, 1),],
    "mask_full": lambda lib: cube(lib)[cube(lib) > 17],
    "mask_dim1": lambda lib: cube(lib)[:, mask(lib, [True, False, True])],
    "mask_and_list": lambda lib: cube(lib)[[1, 0], mask(lib, [True, False, True])],
    "mask_0d_true": lambda lib: cube(lib)[lib.tensor(True)],
    "mask_0d_false": lambda lib: cube(lib)[lib.tensor(False)],
    "permuted": lambda lib: cube(lib).permute(2, 0, 1)[[1, 3], :, [0, 2]],
    "expanded": lambda lib: lib.arange(3).expand(2, 3)[[1, 0], [2, 2]],
    "int64": lambda lib: lib.arange(6).view(2, 3)[[1, 1], [0, 2]],
    "bool_tensor": lambda lib: (lib.arange(6) > 2)[[0, 5]],
}

ERRORS = {
    "out_of_bounds": lambda lib: cube(lib)[[5]],
    "out_of_bounds_dim": lambda lib: cube(lib)[[0, 1], [0, 7]],
    "out_of_bounds_negative": lambda lib: cube(lib)[:, :, [0, -9]],
    "no_broadcast": lambda lib: cube(lib)[[0, 1], [0, 1, 2]],
    "mask_shape": lambda lib: cube(lib)[mask(lib, [True, False, True])],
    "float_index": lambda lib: cube(lib)[lib.tensor([0.0])],
    "too_many": lambda lib: cube(lib)[0, 0, 0, [0]],
}


@pytest.mark.parametrize("case", sorted(READS))
def test_advanced_read(case):
    assert_outcome_as_recorded(ANSWERS, "READS", case, READS[case])


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_advanced_read_errors(case):
    assert_outcome_as_recorded(ANSWERS, "ERRORS", case, ERRORS[case])


def written(key, value):
    """`x[key] = value` on a 3 x 4 float tensor; `x` afterwards, or the error."""

    def write(lib):
        x = lib.arange(12.0).reshape(3, 4)
        k = key(lib) if callable(key) else key
        x[k] = value(lib) if callable(value) else value
        return x

    return write


WRITES = {
    "row_into_both": written([0, 2], lambda lib: lib.tensor([1.0, 2.0, 3.0, 4.0])),
    "number": written((slice(None), [1, 3]), -1.0),
    "column_broadcast": written(
        (slice(None), [1, 3]), lambda lib: lib.tensor([[7.0], [8.0], [9.0]])
    ),
    "mask_number": written(lambda lib: lib.arange(12.0).reshape(3, 4) > 5, 0.0),
    "mask_values": written(
        lambda lib: lib.arange(12.0).reshape(3, 4) > 9, lambda lib: lib.tensor([1.0, 2.0])
    ),
    "pairs": written(([0, 2], [1, 3]), lambda lib: lib.tensor([5.0, 6.0])),
    "int_and_list": written(([1], 2), 5),
}

WRITE_ERRORS = {
    "too_short": written(
        lambda lib: lib.arange(12.0).reshape(3, 4) > 8, lambda lib: lib.tensor([1.0, 2.0])
    ),
    "out_of_bounds": written([0, 9], 1.0),
    "dtype": written(([0, 2], [1, 3]), lambda lib: lib.tensor([5, 6])),
    "bad_row": written([0, 2], lambda lib: lib.tensor([1.0, 2.0, 3.0])),
}


@pytest.mark.parametrize("case", sorted(WRITES))
def test_advanced_write(case):
    assert_outcome_as_recorded(ANSWERS, "WRITES", case, WRITES[case])


@pytest.mark.parametrize("case", sorted(WRITE_ERRORS))
def test_advanced_write_errors_leave_the_tensor_unchanged(case):
    assert_outcome_as_recorded(ANSWERS, "WRITE_ERRORS", case, WRITE_ERRORS[case])
    x = minitorch.arange(12.0).reshape(3, 4)
    with pytest.raises((RuntimeError, IndexError)):
        x[[0, 2], [1, 9]] = minitorch.tensor([7.0, 8.0])
    assert x.tolist() == np.arange(12.0).reshape(3, 4).tolist()


def add_to_expanded(lib):
    e = lib.zeros(3).expand(2, 3)
    e.add_(1)


def copy_into_expanded(lib):
    e = lib.zeros(3).expand(2, 3)
    e[:] = 1.0


EXPANDED = {
    "add_": add_to_expanded,
    "copy": copy_into_expanded,
    "fill_": lambda lib: lib.zeros(3).expand(2, 3).fill_(2.0),
}
ACCUMULATED = {
    "index_put_": lambda lib: lib.zeros(4).index_put_(
        (lib.tensor([0, 2, 0, 0]),), lib.tensor([1.0, 2.0, 3.0, 4.0]), accumulate=True
    )
}


@pytest.mark.parametrize("case", sorted(EXPANDED))
def test_write_into_an_expanded_tensor_raises(case):
    """In-place ops refuse memory that several elements share (torch's text), fill_ does not."""
    assert_outcome_as_recorded(ANSWERS, "EXPANDED", case, EXPANDED[case])


def test_index_put_accumulate_adds_repeats():
    function = ACCUMULATED["index_put_"]
    assert_outcome_as_recorded(ANSWERS, "ACCUMULATED", "index_put_", function)


GRAD_CASES = {
    "read": (lambda x: x[[0, 2, 0], 1:], "IndexBackward0"),
    "read_two": (lambda x: x[[[0], [2]], [1, 1, 3]], "IndexBackward0"),
    "read_mask": (lambda x: x[x > 0], "IndexBackward0"),
    "read_transposed": (lambda x: x.t()[[3, 1, 3]], "IndexBackward0"),
}


def put(lib, x, v):
    z = x * 1
    z[[0, 4]] = v
    return z


GRADIENTS = {
    **{
        f"read {case}": (
            lambda lib, x, fn=fn: fn(x),
            [np.random.default_rng(1).standard_normal((3, 4))],
            {},
        )
        for case, (fn, _) in GRAD_CASES.items()
    },
    "write": (put, [np.random.default_rng(2).standard_normal(6), np.array([5.0, 6.0])], {}),
}
TABLES = {
    "READS": READS,
    "ERRORS": ERRORS,
    "WRITES": WRITES,
    "WRITE_ERRORS": WRITE_ERRORS,
    "EXPANDED": EXPANDED,
    "ACCUMULATED": ACCUMULATED,
}
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    return {**outcome_answers(torch, TABLES), **answers_of(torch, GRADIENTS)}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_read_gradient(case):
    fn, name = GRAD_CASES[case]
    assert ANSWERS[f"read {case}"]["output grad_fn"] == name
    assert_case_as_recorded(GRADIENTS, ANSWERS, f"read {case}", 1e-12, 1e-12)
    values = GRADIENTS[f"read {case}"][1][0]
    assert minitorch.grad_check(fn, minitorch.tensor(values, requires_grad=True))


def test_write_gradient():
    """`z[idx] = v` records IndexPutBackward0: overwritten elements get no gradient, `v` theirs."""
    assert ANSWERS["write"]["output grad_fn"] == "IndexPutBackward0"
    assert_case_as_recorded(GRADIENTS, ANSWERS, "write", 1e-12, 1e-12)
    x, v = (minitorch.tensor(a, requires_grad=True) for a in GRADIENTS["write"][1])
    assert minitorch.grad_check(lambda a, b: put(minitorch, a, b), x, v)


@settings(max_examples=10, deadline=None)
@given(
    st.lists(st.integers(1, 3), min_size=1, max_size=3),
    st.data(),
)
def test_random_index_tensors_match_numpy(shape, data):
    """Random shapes, index tensors at random dims (others full slices): values as NumPy's."""
    array = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    key = []
    for size in shape:
        if data.draw(st.booleans()):
            key.append(data.draw(st.lists(st.integers(-size, size - 1), min_size=1, max_size=3)))
        else:
            key.append(slice(None))
    lengths = {len(k) for k in key if isinstance(k, list)}
    if len(lengths) > 1:  # keep the index lists broadcastable
        key = [k[:1] if isinstance(k, list) else k for k in key]
    expected = array[tuple(key)]
    got = minitorch.tensor(array)[tuple(key)]
    assert tuple(got.shape) == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected)
