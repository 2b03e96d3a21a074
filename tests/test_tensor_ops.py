"""The reference backend's kernels on raw layouts against NumPy, and choosing a backend."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import FLOAT_DTYPES, NUMERIC_DTYPES, broadcastable_shapes, shapes, tensors

import minitorch
from minitorch import operators
from minitorch.backends import registry
from minitorch.backends.tensor_data import TensorData
from minitorch.backends.tensor_ops import SimpleBackend

backend = SimpleBackend()


def output_layout(shape, dtype) -> TensorData:
    return TensorData(np.zeros(int(np.prod(shape)), dtype=dtype), shape)


def read(layout: TensorData) -> np.ndarray:
    return np.array(layout.numpy_view())


@pytest.mark.task2_3
@given(st.sampled_from(NUMERIC_DTYPES).flatmap(tensors))
@settings(max_examples=60, deadline=None)
def test_map_negates_any_layout(case):
    a, expected = case
    out = output_layout(expected.shape, expected.dtype)
    backend.map(operators.neg, out, a._layout)
    np.testing.assert_array_equal(read(out), -expected)


@pytest.mark.task2_3
def test_map_writes_through_strided_out():
    """`out` may itself be a view (this is how `t[:, ::2] = x` writes)."""
    storage = np.zeros(12)
    out = TensorData(storage, (3, 2), (4, 2), 1)  # columns 1 and 3 of a (3, 4) matrix
    source = TensorData(np.array([1.0, 2.0]), (2,))  # broadcast along the rows
    backend.map(operators.identity, out, source)
    expected = np.zeros((3, 4))
    expected[:, 1::2] = [1.0, 2.0]
    np.testing.assert_array_equal(storage.reshape(3, 4), expected)


@pytest.mark.task2_3
@given(broadcastable_shapes(), st.data())
@settings(max_examples=60, deadline=None)
def test_zip_adds_with_broadcasting(pair, data):
    shape_a, shape_b = pair
    a, a_values = data.draw(tensors(minitorch.float64, shape_a))
    b, b_values = data.draw(tensors(minitorch.float64, shape_b))
    expected = a_values + b_values
    out = output_layout(expected.shape, np.float64)
    backend.zip(operators.add, out, a._layout, b._layout)
    np.testing.assert_array_equal(read(out), expected)


@pytest.mark.task2_3
@given(st.sampled_from(FLOAT_DTYPES), st.data())
@settings(max_examples=60, deadline=None)
def test_reduce_sums_each_dim(dtype, data):
    shape = data.draw(shapes(min_dims=1))
    a, values = data.draw(tensors(dtype, shape))
    dim = data.draw(st.integers(0, len(shape) - 1))
    expected = values.sum(axis=dim, keepdims=True)
    out = output_layout(expected.shape, dtype.numpy_dtype)
    backend.reduce(operators.add, out, a._layout, dim, 0.0)
    np.testing.assert_allclose(read(out), expected, rtol=1e-6)


@pytest.mark.task2_3
def test_reduce_folds_from_start_in_order():
    # with fn(acc, x) = 10 * acc + x the fold spells out the order: start 1, then 2, 3, 4
    a = TensorData(np.array([2.0, 3.0, 4.0]), (3,))
    out = output_layout((1,), np.float64)
    backend.reduce(lambda acc, x: 10 * acc + x, out, a, 0, 1.0)
    assert read(out)[0] == 1234.0


@pytest.mark.task2_3
def test_reduce_of_empty_dim_is_start():
    a = TensorData(np.zeros(0), (2, 0))
    out = output_layout((2, 1), np.float64)
    backend.reduce(operators.mul, out, a, 1, 1.0)
    np.testing.assert_array_equal(read(out), [[1.0], [1.0]])


def test_arg_reduce_picks_first_winner():
    a = TensorData(np.array([1.0, 5.0, 5.0, 2.0, 7.0, 7.0]), (2, 3))
    values, indices = output_layout((2, 1), np.float64), output_layout((2, 1), np.int64)
    backend.arg_reduce(lambda x, best: x > best, values, indices, a, 1)
    np.testing.assert_array_equal(read(values), [[5.0], [7.0]])
    np.testing.assert_array_equal(read(indices), [[1], [1]])


@given(shapes(min_dims=2, max_dims=2), st.integers(1, 3), st.data())
@settings(max_examples=40, deadline=None)
def test_matmul_kernel_matches_numpy(shape, columns, data):
    a, a_values = data.draw(tensors(minitorch.float64, shape))
    b, b_values = data.draw(tensors(minitorch.float64, (shape[1], columns)))
    out = output_layout((shape[0], columns), np.float64)
    backend.matmul(out, a._layout, b._layout)
    np.testing.assert_allclose(read(out), a_values @ b_values)


def test_cpu_tensors_default_to_fast_and_set_backend_chooses_or_rejects():
    assert minitorch.get_backend().name == "fast", "cpu tensors should default to Numba"
    try:
        minitorch.set_backend("simple")
        assert isinstance(minitorch.get_backend(), SimpleBackend)
        choices = r"\['fast', 'simple', 'student'\]"
        with pytest.raises(ValueError, match=r"unknown backend 'nope'; choose one of " + choices):
            minitorch.set_backend("nope")
        assert minitorch.get_backend().name == "simple", "a rejected name changed the backend"
    finally:
        minitorch.set_backend("fast")


@pytest.mark.parametrize("name", ["simple", "fast"])
def test_tensor_operations_run_on_the_chosen_backend(name, monkeypatch):
    chosen = registry._BACKENDS["cpu"][name]
    calls = []

    def counting_zip(fn, out, a, b):
        calls.append(fn)
        return type(chosen).zip(chosen, fn, out, a, b)

    monkeypatch.setattr(chosen, "zip", counting_zip)
    previous = minitorch.get_backend().name
    try:
        minitorch.set_backend(name)
        total = minitorch.tensor([1.0, 2.0]) + minitorch.tensor([10.0, 20.0])
    finally:
        minitorch.set_backend(previous)
    assert calls == [operators.add], f"the {name} backend's zip ran for {calls}"
    assert total.tolist() == [11.0, 22.0]
