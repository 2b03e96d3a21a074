"""Edge cases against torch: empty and repeated dims, infinities under powers, the extremes of
integer division, tensor bounds of clamp, negative sizes, writes to expanded or read-only
memory, and printing a huge expanded tensor.

What torch gives is recorded in tests/data/test_tensor_edge_cases.json
(scripts/record_torch_answers.py from `torch_answers`): the same shape, dtype and values (as
text: NaN equals NaN, -0.0 is not 0.0), or the same error.
"""

import numpy as np
import pytest
from helpers import (
    assert_outcome_as_recorded,
    outcome_answers,
    recorded_answers,
    x23,
)

import minitorch

INF = float("inf")


CASES = {
    "sum_empty_dims": lambda lib: x23(lib).sum(()),
    "mean_empty_dims": lambda lib: lib.mean(x23(lib), ()),
    "squeeze_empty_dims": lambda lib: lib.ones(1, 2, 1).squeeze(()),
    "repeated_dim": lambda lib: x23(lib).sum((0, 0)),
    "repeated_negative_dim": lambda lib: x23(lib).mean((1, -1)),
    "sqrt_power_of_minus_inf": lambda lib: lib.tensor([-INF, 4.0, -1.0, 0.0]) ** 0.5,
    "rsqrt_power": lambda lib: lib.tensor([-INF, 4.0, 0.0]) ** -0.5,
    "tensor_exponent_half": lambda lib: lib.tensor([-INF]) ** lib.tensor([0.5]),
    "int64_min_floordiv": lambda lib: lib.tensor([-(2**63), 7, -7]) // -1,
    "float_floordiv_minus_one": lambda lib: lib.tensor([2.5, -2.5]) // -1,
    "bool_add_alpha": lambda lib: lib.add(
        lib.tensor([True, False, False]), lib.tensor([True, True, False]), alpha=2
    ),
    "clamp_0d_tensor_min": lambda lib: lib.clamp(x23(lib), min=lib.tensor(2.0)),
    "clamp_tensor_bounds": lambda lib: x23(lib).clamp(
        min=lib.tensor([1.0, 2.0, 3.0]), max=lib.tensor(4.0)
    ),
    "clamp_int_by_float_tensor": lambda lib: lib.clamp(lib.arange(4), min=lib.tensor([1.5])),
    "negative_size": lambda lib: lib.ones(2).view(-1, 2).expand(1, -2),
    "expanded_add_": lambda lib: lib.zeros(3).expand(2, 3).add_(1),
}


PRINTED = {
    # 10^10 elements would need 40 GB: printing must read only the shown corners
    "huge_expanded": lambda lib: str(lib.arange(4.0).view(4, 1).expand(4, 10**10)),
}
TABLES = {"cases": CASES, "printed": PRINTED}
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    return outcome_answers(torch, TABLES, as_text=True)


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_torch(case):
    assert_outcome_as_recorded(ANSWERS, "cases", case, CASES[case], as_text=True)


def test_tensor_data_with_a_negative_size_raises():
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        minitorch.TensorData(np.zeros(3), (-1, 2))
    with pytest.raises(RuntimeError, match="negative dimension -2"):
        minitorch.TensorData(np.zeros(3), (3, -2), (1, 1))


def test_inplace_on_read_only_numpy_memory_is_a_short_error():
    array = np.zeros(3)
    array.flags.writeable = False
    with pytest.warns(UserWarning, match="not writable"):
        t = minitorch.from_numpy(array)
    for write in (lambda: t.add_(1), lambda: t.fill_(1), lambda: t.__setitem__([0], 1.0)):
        with pytest.raises(RuntimeError, match="read-only") as error:
            write()
        assert len(str(error.value)) < 200
    assert array.tolist() == [0.0, 0.0, 0.0]


def test_printing_a_huge_expanded_tensor_summarises_without_copying():
    """10^10 elements would need 40 GB: printing must read only the shown corners."""
    function = PRINTED["huge_expanded"]
    assert_outcome_as_recorded(ANSWERS, "printed", "huge_expanded", function, as_text=True)
