"""The leftovers of the tensor API against PyTorch: searchsorted with `sorter=`/`side=`,
bucketize, scatter's reductions, nonzero/unique on the backend's kernels, and second
derivatives through gather, index_select and take: values, dtypes, errors, gradients.

Runs on every CPU backend. Each case is a function of the library module (`lib`), run
with minitorch and with torch (`assert_same`).
"""

import numpy as np
import pytest
from torch_compare import assert_same

import minitorch

torch = pytest.importorskip("torch")


def t(lib, values, **kwargs):
    return lib.tensor(values, **kwargs)


NAN = float("nan")

SEARCHSORTED = {
    "batched": lambda lib: lib.searchsorted(t(lib, [1, 3, 5, 7]), t(lib, [[3, 6], [0, 9]])),
    "sorter": lambda lib: lib.searchsorted(
        t(lib, [5, 1, 7, 3]), t(lib, [[3, 6], [0, 9]]), sorter=t(lib, [1, 3, 0, 2])
    ),
    "sorter_right": lambda lib: lib.searchsorted(
        t(lib, [5, 1, 7, 3]), t(lib, [3, 5, 6]), sorter=t(lib, [1, 3, 0, 2]), right=True
    ),
    "sorter_2d_side": lambda lib: lib.searchsorted(
        t(lib, [[3, 1], [4, 2]]),
        t(lib, [[2, 3, 0], [4, 4, 1]]),
        sorter=t(lib, [[1, 0], [1, 0]]),
        side="right",
    ),  # fmt: skip
    "side_right": lambda lib: lib.searchsorted(t(lib, [1, 3, 3, 7]), t(lib, [3]), side="right"),
    "transposed": lambda lib: lib.searchsorted(
        t(lib, [[1, 2], [3, 4]]).t(), t(lib, [[2, 3], [3, 5]])
    ),
    "nan_left": lambda lib: lib.searchsorted(
        t(lib, [1.0, 3.0, NAN]), t(lib, [2.0, NAN, float("inf"), 3.0])
    ),
    "nan_right": lambda lib: lib.searchsorted(
        t(lib, [1.0, 3.0, NAN, NAN]), t(lib, [2.0, NAN, float("inf"), 3.0]), right=True
    ),
    "duplicates": lambda lib: lib.searchsorted(lib.arange(40) // 3, lib.arange(-1, 15), right=True),
    "scalar": lambda lib: lib.searchsorted(t(lib, [1, 3, 5, 7]), 4.5),
    "zero_dim_value": lambda lib: lib.searchsorted(t(lib, [1, 3, 5, 7]), t(lib, 5)),
    "mixed_dtypes": lambda lib: lib.searchsorted(t(lib, [1.0, 3.0]), t(lib, [2, 3])),
    "empty_sequence": lambda lib: lib.searchsorted(t(lib, []), t(lib, [2.0])),
    "empty_values": lambda lib: lib.searchsorted(t(lib, [1, 3]), t(lib, [], dtype=lib.int64)),
    "bucketize": lambda lib: lib.bucketize(t(lib, [[0.5, 3.0], [1.0, 9.0]]), t(lib, [1.0, 3.0])),
    "bucketize_right": lambda lib: lib.bucketize(
        t(lib, [[0.5, 3.0], [1.0, 9.0]]), t(lib, [1.0, 3.0]), right=True
    ),
    "bucketize_scalar": lambda lib: lib.bucketize(2, t(lib, [1, 3])),
    # errors
    "bad_side": lambda lib: lib.searchsorted(t(lib, [1, 3]), t(lib, [3]), side="middle"),
    "opposite_sides": lambda lib: lib.searchsorted(
        t(lib, [1, 3]), t(lib, [3]), side="left", right=True
    ),
    "sorter_size": lambda lib: lib.searchsorted(t(lib, [5, 1]), t(lib, [3]), sorter=t(lib, [1])),
    "sorter_dtype": lambda lib: lib.searchsorted(
        t(lib, [5, 1]), t(lib, [3]), sorter=t(lib, [1.0, 0.0])
    ),
    "sorter_range": lambda lib: lib.searchsorted(
        t(lib, [5, 1]), t(lib, [3]), sorter=t(lib, [1, 2])
    ),
    "sorter_negative": lambda lib: lib.searchsorted(
        t(lib, [5, 1]), t(lib, [3]), sorter=t(lib, [1, -1])
    ),
    "leading_dims": lambda lib: lib.searchsorted(t(lib, [[1, 3], [2, 4]]), t(lib, [[1], [2], [3]])),
    "ndim": lambda lib: lib.searchsorted(t(lib, [[1, 3], [2, 4]]), t(lib, [1, 2])),
    "scalar_2d": lambda lib: lib.searchsorted(t(lib, [[1, 3], [2, 4]]), 4),
    "zero_dim_sequence": lambda lib: lib.searchsorted(t(lib, 1), t(lib, [1])),
    "bool": lambda lib: lib.searchsorted(t(lib, [False, True]), t(lib, [True])),
    "bucketize_2d": lambda lib: lib.bucketize(t(lib, [1.0]), t(lib, [[1.0, 3.0]])),
}


@pytest.mark.parametrize("case", sorted(SEARCHSORTED))
def test_searchsorted_like_torch(case):
    assert_same(SEARCHSORTED[case], quiet=True)


def test_searchsorted_random_against_torch():
    """Sorted lines with repeats and trailing NaNs, values with NaN: torch's binary search."""
    rng = np.random.default_rng(0)
    for _ in range(12):
        lead = tuple(rng.integers(1, 3, size=rng.integers(0, 3)))
        sequence = np.sort(rng.integers(0, 6, size=(*lead, rng.integers(0, 9))), axis=-1)
        sequence = sequence.astype(float)
        if sequence.shape[-1] and rng.random() < 0.5:
            sequence[..., -1] = np.nan
        values = rng.integers(-1, 7, size=(*lead, 4)).astype(float)
        values[..., 0] = np.nan
        right = bool(rng.random() < 0.5)
        found = [
            lib.searchsorted(lib.tensor(sequence), lib.tensor(values), right=right).tolist()
            for lib in (minitorch, torch)
        ]
        assert found[0] == found[1], (sequence, values, right)
