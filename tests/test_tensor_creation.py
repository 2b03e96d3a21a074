"""Creating tensors against torch: the legacy `Tensor(...)` constructor, the `new_*` factories,
`set_default_dtype` and `set_default_device`, and the dtypes NumPy scalars give.

What torch gives is recorded in tests/data/test_tensor_creation.json
(scripts/record_torch_answers.py from `torch_answers`): the same dtype, shape and values, or
the same error.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    assert_outcome_as_recorded,
    outcome_answers,
    recorded_answers,
)

import minitorch

LEGACY_DATA = [([1, 2, 3],), ([[1.5, 2.0], [3.0, 4.0]],), (), ([True, False],)]
LEGACY_SIZES = [(2, 3), (4,)]
NEW_CALLS = [
    lambda t: t.new_tensor([1.5, 2.5]),
    lambda t: t.new_tensor([1, 2], dtype=t.new_zeros(1).bool().dtype),
    lambda t: t.new_zeros(2, 3),
    lambda t: t.new_ones((3,)),
    lambda t: t.new_full((2, 2), 3.5),
    lambda t: t.new_empty(0, 2),
]
DEFAULT_FLOAT64_MAKES = [
    lambda lib: lib.tensor([1.5]),
    lambda lib: lib.zeros(2),
    lambda lib: lib.Tensor([1]),
    lambda lib: lib.arange(0.0, 1.0, 0.5),
    lambda lib: lib.tensor([1, 2]) * 0.5,
]
NUMPY_SCALARS = [
    np.float64(2.5),
    np.float32(2.5),
    [np.float64(1.5)],
    [np.float32(1.5), 2.0],
    [1, np.float64(2.0)],
    np.int64(3),
    np.bool_(True),
]


def with_default_float64(make):
    """`make(lib)` while lib's default dtype is float64 (restored afterwards)."""

    def run(lib):
        lib.set_default_dtype(lib.float64)
        try:
            return make(lib)
        finally:
            lib.set_default_dtype(lib.float32)

    return run


TABLES = {
    "legacy": {repr(args): lambda lib, args=args: lib.Tensor(*args) for args in LEGACY_DATA},
    # torch leaves the values of sizes uninitialised: their shape and dtype
    "legacy sizes": {
        repr(args): lambda lib, args=args: (lib.Tensor(*args).shape, lib.Tensor(*args).dtype)
        for args in LEGACY_SIZES
    },
    "new": {
        f"{dtype} {k}": lambda lib, dtype=dtype, call=call: call(
            lib.tensor([1, 2], dtype=getattr(lib, dtype))
        )
        for dtype in ("int64", "float64")
        for k, call in enumerate(NEW_CALLS)
    },
    "default float64": {
        str(k): with_default_float64(make) for k, make in enumerate(DEFAULT_FLOAT64_MAKES)
    },
    "default int64": {"error": lambda lib: lib.set_default_dtype(lib.int64)},
    # by position: the text of a NumPy scalar differs between NumPy versions
    "numpy": {
        str(k): lambda lib, data=data: lib.tensor(data) for k, data in enumerate(NUMPY_SCALARS)
    },
}
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    return outcome_answers(torch, TABLES)


# PyTorch's legacy constructors make CPU tensors whatever the default device
@pytest.mark.cpu_only
@pytest.mark.parametrize("args", LEGACY_DATA)
def test_legacy_constructor_matches_torch(args):
    assert_outcome_as_recorded(ANSWERS, "legacy", repr(args), TABLES["legacy"][repr(args)])


@pytest.mark.cpu_only
@pytest.mark.parametrize("args", LEGACY_SIZES)
def test_legacy_constructor_of_sizes_matches_torch(args):
    function = TABLES["legacy sizes"][repr(args)]
    assert_outcome_as_recorded(ANSWERS, "legacy sizes", repr(args), function)
    assert not minitorch.Tensor(*args).numpy().any(), "ours are zeros"


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_new_factories_match_torch(dtype):
    for k in range(len(NEW_CALLS)):
        case = f"{dtype} {k}"
        assert_outcome_as_recorded(ANSWERS, "new", case, TABLES["new"][case])
    grad = minitorch.tensor([1, 2]).float().new_zeros(2, requires_grad=True)
    assert grad.requires_grad and grad.is_leaf


@pytest.mark.cpu_only  # among its calls, the legacy constructor's CPU tensor
def test_set_default_dtype_as_torch():
    for case, function in TABLES["default float64"].items():
        assert_outcome_as_recorded(ANSWERS, "default float64", case, function)
    assert minitorch.get_default_dtype() == minitorch.float32
    try:
        minitorch.set_default_dtype(minitorch.float64)
        assert minitorch.get_default_dtype() == minitorch.float64
        assert minitorch.rand(2).dtype == minitorch.float64
    finally:
        minitorch.set_default_dtype(minitorch.float32)
    function = TABLES["default int64"]["error"]
    assert_outcome_as_recorded(ANSWERS, "default int64", "error", function)
    assert ANSWERS["default int64 error"]["outcome"][1] == "TypeError"


@pytest.mark.parametrize("case", [str(k) for k in range(len(NUMPY_SCALARS))])
def test_numpy_scalars_keep_their_dtype(case):
    assert_outcome_as_recorded(ANSWERS, "numpy", case, TABLES["numpy"][case])


def default_device_outcomes(lib) -> list[str]:
    lib.set_default_device("cpu")
    try:
        found = [str(lib.get_default_device()), str(lib.zeros(2).device)]
    finally:
        lib.set_default_device(None)
    return [*found, str(lib.get_default_device())]


def test_set_default_device():
    try:
        assert default_device_outcomes(minitorch) == ["cpu"] * 3
        if not minitorch.cuda.is_available():
            minitorch.set_default_device("cuda")
            with pytest.raises(RuntimeError, match="minitorch.cuda.is_available"):
                minitorch.ones(1)
    finally:
        minitorch.set_default_device(None)


def test_set_default_device_as_torch(torch):
    assert default_device_outcomes(minitorch) == default_device_outcomes(torch)
