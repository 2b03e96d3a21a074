"""The Numba backends' kernels against NumPy, the reference backend, and each other: map (copies,
conversions, functions), zip and where.

Both backends, on both code paths, as tests/fast_ops_checks.py describes.
"""

import numpy as np
import pytest
from fast_ops_checks import (
    BACKENDS_3_1,
    FEW,
    NUMBA_BACKENDS,
    PATHS,
    bool_,
    check,
    code_path,
    float32,
    float64,
    int64,
    output_layout,
    read,
    run_both,
)
from hypothesis import given
from hypothesis import strategies as st
from strategies import DTYPES, broadcastable_shapes, shapes, tensors

from minitorch import operators
from minitorch.backends.tensor_data import TensorData

# (source, destination) dtypes of map(identity): every same-dtype copy and the
# conversions type promotion and `.to()` use most.
CONVERSIONS = [(d, d) for d in DTYPES] + [
    (int64, float32),
    (bool_, float64),
    (float32, float64),
    (float64, int64),
    (float32, bool_),
]
PARALLEL_CONVERSIONS = [(float32, float32), (int64, float64)]


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
@pytest.mark.parametrize(
    "path, source, destination",
    [("serial", s, d) for s, d in CONVERSIONS]
    + [("parallel", s, d) for s, d in PARALLEL_CONVERSIONS],
)
@given(data=st.data())
@FEW
def test_map_copies_and_converts_any_layout(backend_name, path, source, destination, data):
    a, values = data.draw(tensors(source))
    strided_out = data.draw(st.booleans())
    expected = values.astype(destination.numpy_dtype)
    with code_path(path):
        (got,), (reference,) = run_both(
            backend_name,
            "map",
            operators.identity,
            lambda: [output_layout(values.shape, destination, strided_out)],
            a._layout,
        )
    check(got, expected)
    check(reference, expected)


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", [float32, float64])
@given(data=st.data())
@FEW
def test_map_applies_the_function(backend_name, path, dtype, data):
    a, values = data.draw(tensors(dtype))
    with code_path(path):
        (got,), (reference,) = run_both(
            backend_name,
            "map",
            operators.exp,
            lambda: [output_layout(values.shape, dtype)],
            a._layout,
        )
    check(got, np.exp(values))
    check(got, reference)


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
def test_map_writes_a_broadcast_row_into_strided_columns(backend_name):
    """`t[:, 1::2] = row` is map(identity) into a strided view, the row broadcast."""
    storage = np.zeros(12)
    out = TensorData(storage, (3, 2), (4, 2), 1)  # columns 1 and 3 of a (3, 4) matrix
    NUMBA_BACKENDS[backend_name].map(
        operators.identity, out, TensorData(np.array([1.0, 2.0]), (2,))
    )
    expected = np.zeros((3, 4))
    expected[:, 1::2] = [1.0, 2.0]
    np.testing.assert_array_equal(storage.reshape(3, 4), expected)


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
def test_division_by_zero_gives_ieee_values_not_an_exception(backend_name):
    """Kernels use NumPy's error model: 1/0 is inf, as in PyTorch (Numba's default raises)."""
    a = TensorData(np.array([0.0, -0.0, 2.0]), (3,))
    out = output_layout((3,), float64)
    NUMBA_BACKENDS[backend_name].map(operators.inv, out, a)
    np.testing.assert_array_equal(read(out), [np.inf, -np.inf, 0.5])


# ---------------------------------------------------------------------------
# zip and where
# ---------------------------------------------------------------------------

ZIP_CASES = [("serial", d) for d in DTYPES] + [("parallel", float32), ("parallel", int64)]


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
@pytest.mark.parametrize("path, dtype", ZIP_CASES)
@given(pair=broadcastable_shapes(), data=st.data())
@FEW
def test_zip_multiplies_with_broadcasting(backend_name, path, dtype, pair, data):
    a, a_values = data.draw(tensors(dtype, pair[0]))
    b, b_values = data.draw(tensors(dtype, pair[1]))
    expected = a_values * b_values  # for bools: logical and
    with code_path(path):
        (got,), (reference,) = run_both(
            backend_name,
            "zip",
            operators.mul,
            lambda: [output_layout(expected.shape, dtype)],
            a._layout,
            b._layout,
        )
    check(got, expected)
    check(reference, expected)


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
@pytest.mark.parametrize("path", PATHS)
@given(pair=broadcastable_shapes(), data=st.data())
@FEW
def test_zip_compares_into_bool(backend_name, path, pair, data):
    a, a_values = data.draw(tensors(float32, pair[0]))
    b, b_values = data.draw(tensors(float32, pair[1]))
    expected = a_values < b_values
    with code_path(path):
        out = output_layout(expected.shape, bool_)
        NUMBA_BACKENDS[backend_name].zip(operators.lt, out, a._layout, b._layout)
    check(read(out), expected)


@pytest.mark.parametrize("path", PATHS)
@given(data=st.data())
@FEW
def test_where_picks_with_broadcasting(path, data):
    common = data.draw(shapes())
    drawn = [data.draw(tensors(d, tuple(1 if data.draw(st.booleans()) else n for n in common)))
             for d in (bool_, float64, float64)]  # fmt: skip
    (condition, c_values), (a, a_values), (b, b_values) = drawn
    expected = np.where(c_values, a_values, b_values)
    with code_path(path):
        (got,), (reference,) = run_both(
            "fast",
            "where",
            None,
            lambda: [output_layout(expected.shape, float64, strided=True)],
            condition._layout,
            a._layout,
            b._layout,
        )
    check(got, expected)
    check(reference, expected)
