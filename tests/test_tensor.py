"""Tensor operations against NumPy on strided inputs, for every dtype they support."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import (
    DTYPES,
    FLOAT_DTYPES,
    NUMERIC_DTYPES,
    assert_matches,
    broadcastable_shapes,
    examples,
    shapes,
    tensors,
)

import minitorch

# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------

# name -> (minitorch function, NumPy reference, dtypes it accepts)
UNARY = {
    "neg": (minitorch.neg, np.negative, NUMERIC_DTYPES),
    "abs": (minitorch.abs, np.abs, NUMERIC_DTYPES),
    "exp": (minitorch.exp, np.exp, DTYPES),
    "log": (minitorch.log, np.log, FLOAT_DTYPES),
    "sqrt": (minitorch.sqrt, np.sqrt, FLOAT_DTYPES),
    "sigmoid": (minitorch.sigmoid, lambda x: 1 / (1 + np.exp(-x)), FLOAT_DTYPES),
    "tanh": (minitorch.tanh, np.tanh, FLOAT_DTYPES),
    "relu": (minitorch.relu, lambda x: np.maximum(x, 0), NUMERIC_DTYPES),
}


def unary_cases(names):
    return [(name, dtype) for name in names for dtype in UNARY[name][2]]


def check_unary(name, dtype, data):
    function, reference, _ = UNARY[name]
    a, values = data.draw(tensors(dtype))
    with np.errstate(all="ignore"):
        expected = reference(values.astype(np.float64) if name in ("exp",) else values)
    if not dtype.is_floating_point and name in ("exp",):
        expected = expected.astype(np.float32)  # integers and bools give the default float
    result_dtype = dtype if dtype.is_floating_point or name not in ("exp",) else minitorch.float32
    assert_matches(function(a), expected.astype(result_dtype.numpy_dtype), result_dtype)


@pytest.mark.task2_4
@pytest.mark.parametrize("name, dtype", unary_cases(["neg", "exp"]))
@given(data=st.data())
@settings(max_examples=examples(25), deadline=None)
def test_neg_and_exp(name, dtype, data):
    check_unary(name, dtype, data)


@pytest.mark.parametrize(
    "name, dtype", unary_cases(["abs", "log", "sqrt", "sigmoid", "tanh", "relu"])
)
@given(data=st.data())
@settings(max_examples=examples(25), deadline=None)
def test_unary(name, dtype, data):
    check_unary(name, dtype, data)


def test_unary_float_results_of_integers():
    """Integer inputs to exp/log/sqrt/sigmoid/tanh give float32, as in PyTorch."""
    ints = minitorch.tensor([1, 4])
    for function in (
        minitorch.exp,
        minitorch.log,
        minitorch.sqrt,
        minitorch.sigmoid,
        minitorch.tanh,
    ):
        assert function(ints).dtype is minitorch.float32, function.__name__
    np.testing.assert_allclose(minitorch.sqrt(ints).numpy(), [1.0, 2.0])


def test_sigmoid_is_stable_for_large_inputs():
    result = minitorch.tensor([-1000.0, 0.0, 1000.0]).sigmoid().numpy()
    np.testing.assert_array_equal(result, [0.0, 0.5, 1.0])


BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
    "maximum": (minitorch.maximum, np.maximum),
    "minimum": (minitorch.minimum, np.minimum),
    "lt": (lambda a, b: a < b, np.less),
    "le": (lambda a, b: a <= b, np.less_equal),
    "gt": (lambda a, b: a > b, np.greater),
    "ge": (lambda a, b: a >= b, np.greater_equal),
    "eq": (lambda a, b: a == b, np.equal),
    "ne": (lambda a, b: a != b, np.not_equal),
}
COMPARISONS = {"lt", "le", "gt", "ge", "eq", "ne"}


def check_binary(name, dtype, data):
    function, reference = BINARY[name]
    shape_a, shape_b = data.draw(broadcastable_shapes())
    a, a_values = data.draw(tensors(dtype, shape_a))
    b, b_values = data.draw(tensors(dtype, shape_b))
    expected = reference(a_values, b_values)
    result_dtype = minitorch.bool if name in COMPARISONS else dtype
    assert_matches(function(a, b), np.asarray(expected), result_dtype)


@pytest.mark.task2_4
@pytest.mark.parametrize("name", ["add", "mul"])
@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
@given(data=st.data())
@settings(max_examples=examples(30), deadline=None)
def test_add_and_mul_broadcast(name, dtype, data):
    check_binary(name, dtype, data)


@pytest.mark.parametrize("name", sorted(set(BINARY) - {"add", "mul"}))
@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
@given(data=st.data())
@settings(max_examples=examples(20), deadline=None)
def test_binary_broadcast(name, dtype, data):
    check_binary(name, dtype, data)


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
@given(data=st.data())
@settings(max_examples=examples(30), deadline=None)
def test_division_family(dtype, data):
    shape_a, shape_b = data.draw(broadcastable_shapes())
    a, a_values = data.draw(tensors(dtype, shape_a))
    b, b_values = data.draw(tensors(dtype, shape_b))
    assume(np.all(b_values != 0))
    true_dtype = dtype if dtype.is_floating_point else minitorch.float32
    expected = (a_values / b_values).astype(true_dtype.numpy_dtype)
    assert_matches(a / b, expected, true_dtype)
    # floor division and remainder take the sign of the divisor, like Python's // and %
    assert_matches(a // b, np.floor_divide(a_values, b_values), dtype)
    assert_matches(a % b, np.remainder(a_values, b_values), dtype)


@pytest.mark.parametrize("dtype", [minitorch.bool, minitorch.int64])
@given(data=st.data())
@settings(max_examples=examples(20), deadline=None)
def test_bitwise_ops(dtype, data):
    shape_a, shape_b = data.draw(broadcastable_shapes())
    a, a_values = data.draw(tensors(dtype, shape_a))
    b, b_values = data.draw(tensors(dtype, shape_b))
    assert_matches(a & b, a_values & b_values, dtype)
    assert_matches(a | b, a_values | b_values, dtype)
    assert_matches(a ^ b, a_values ^ b_values, dtype)
    assert_matches(~a, ~a_values, dtype)


@given(tensors(minitorch.float64), st.floats(-3, 3), st.floats(-3, 3))
@settings(max_examples=examples(30), deadline=None)
def test_clamp_and_where(case, low, high):
    a, values = case
    assert_matches(a.clamp(low, high), np.minimum(np.maximum(values, low), high))
    assert_matches(a.clamp(min=low), np.maximum(values, low))
    mask = a > 0
    assert_matches(minitorch.where(mask, a, -1.0), np.where(values > 0, values, -1.0))


def test_pow_and_scalar_operands():
    a = minitorch.tensor([1.0, 2.0, 3.0])
    np.testing.assert_allclose((a**2).numpy(), [1.0, 4.0, 9.0])
    np.testing.assert_allclose((2**a).numpy(), [2.0, 4.0, 8.0])
    np.testing.assert_allclose((1 - a).numpy(), [0.0, -1.0, -2.0])
    np.testing.assert_allclose((6 / a).numpy(), [6.0, 3.0, 2.0])


def test_float64_scalar_keeps_double_precision():
    # 0.1 is used as a double: 1 + 0.1 in float64 is exactly Python's 1.1
    result = minitorch.tensor([1.0], dtype=minitorch.float64) + 0.1
    assert result.item() == 1.1


def test_nan_propagates_through_maximum_and_relu():
    nan = float("nan")
    assert math.isnan(minitorch.maximum(minitorch.tensor([nan]), minitorch.tensor([1.0])).item())
    assert math.isnan(minitorch.tensor([nan]).relu().item())
    assert math.isnan(minitorch.tensor([1.0, nan]).max().item())
    assert minitorch.tensor([1.0, nan, 3.0]).argmax().item() == 1


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


def reduction_case(data, dtype):
    shape = data.draw(shapes(min_dims=1))
    a, values = data.draw(tensors(dtype, shape))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    keepdim = data.draw(st.booleans())
    return a, values, dim, keepdim


@pytest.mark.task2_4
@pytest.mark.parametrize("dtype", DTYPES)
@given(data=st.data())
@settings(max_examples=examples(30), deadline=None)
def test_sum(dtype, data):
    a, values, dim, keepdim = reduction_case(data, dtype)
    result_dtype = dtype if dtype.is_floating_point else minitorch.int64
    expected = values.sum(axis=dim, keepdims=keepdim, dtype=result_dtype.numpy_dtype)
    assert_matches(a.sum(dim, keepdim=keepdim), expected, result_dtype)
    assert_matches(a.sum(), np.asarray(values.sum(dtype=result_dtype.numpy_dtype)), result_dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@given(data=st.data())
@settings(max_examples=examples(30), deadline=None)
def test_mean_and_prod(dtype, data):
    a, values, dim, keepdim = reduction_case(data, dtype)
    assert_matches(a.mean(dim, keepdim=keepdim), values.mean(axis=dim, keepdims=keepdim), dtype)
    assert_matches(a.mean(), np.asarray(values.mean()), dtype)
    assert_matches(a.prod(dim, keepdim=keepdim), values.prod(axis=dim, keepdims=keepdim), dtype)


@given(data=st.data())
@settings(max_examples=examples(30), deadline=None)
def test_sum_over_several_dims(data):
    shape = data.draw(shapes(min_dims=2))
    a, values = data.draw(tensors(minitorch.float64, shape))
    dims = tuple(data.draw(st.sets(st.integers(0, len(shape) - 1), min_size=1)))
    assert_matches(a.sum(dims), values.sum(axis=dims))


def test_sum_of_every_dim_of_a_contiguous_tensor_rounds_once():
    # Folded dim by dim in float32, column 0 gives 1 + 1e-8 -> 1 and column 1 gives
    # -1 + 1e-8 -> -1, and the total is 0. Folded once over memory the exact sum 2e-8
    # (computed here in float64) is rounded once to float32, as torch gives.
    values = np.array([[1.0, -1.0], [1e-8, 1e-8]], dtype=np.float32)
    expected = np.float32(values.astype(np.float64).sum())
    a = minitorch.tensor(values)
    inner = minitorch.zeros(3, 2, 2)
    inner[1] = a  # a contiguous view at offset 4 of a larger storage
    for what, total in [
        ("sum()", a.sum()),
        ("sum((1, 0))", a.sum((1, 0))),
        ("sum(keepdim=True)", a.sum((0, 1), keepdim=True).reshape(())),
        ("4 * mean()", 4 * a.mean()),
        ("view at an offset", inner[1].sum()),
    ]:
        assert total.dtype is minitorch.float32, f"{what}: dtype {total.dtype}"
        assert total.item() == expected, f"{what}: {total.item()!r}, expected {expected!r}"
    assert a.sum((0, 1), keepdim=True).shape == (1, 1)


def test_sums_of_every_dim_keep_dtype_rules():
    # bools and integers sum to int64, an empty sum is 0 (as torch)
    flags = minitorch.tensor([[True, False, True], [True, True, False]])
    assert (flags.sum().item(), flags.sum().dtype) == (4, minitorch.int64)
    assert flags.all().item() is False and flags.any().item() is True
    numbers = minitorch.arange(6).view(2, 3)
    assert numbers.sum(dtype=minitorch.float64).dtype is minitorch.float64
    assert numbers.prod().item() == 0 and (numbers + 1).prod().item() == 720
    empty = minitorch.zeros(2, 0)
    assert (empty.sum().item(), empty.sum().dtype) == (0.0, minitorch.float32)


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
@given(data=st.data())
@settings(max_examples=examples(30), deadline=None)
def test_max_min_argmax_argmin(dtype, data):
    a, values, dim, keepdim = reduction_case(data, dtype)
    result = a.max(dim, keepdim=keepdim)
    assert_matches(result.values, values.max(axis=dim, keepdims=keepdim), dtype)
    # NumPy's argmax also picks the first of equal values, as PyTorch does
    assert_matches(result.indices, values.argmax(axis=dim, keepdims=keepdim), minitorch.int64)
    assert_matches(a.min(dim, keepdim=keepdim)[0], values.min(axis=dim, keepdims=keepdim), dtype)
    assert_matches(a.argmin(dim, keepdim=keepdim), values.argmin(axis=dim, keepdims=keepdim))
    assert_matches(a.max(), np.asarray(values.max()), dtype)
    assert_matches(a.argmax(), np.asarray(values.argmax()), minitorch.int64)


@pytest.mark.parametrize("dtype", DTYPES)
@given(data=st.data())
@settings(max_examples=examples(20), deadline=None)
def test_all_any(dtype, data):
    a, values, dim, keepdim = reduction_case(data, dtype)
    assert_matches(a.all(dim, keepdim=keepdim), values.all(axis=dim, keepdims=keepdim))
    assert_matches(a.any(), np.asarray(values.any()), minitorch.bool)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@given(data=st.data())
@settings(max_examples=examples(30), deadline=None)
def test_softmax_and_log_softmax(dtype, data):
    a, values, dim, _ = reduction_case(data, dtype)
    exps = np.exp(values - values.max(axis=dim, keepdims=True))
    expected = exps / exps.sum(axis=dim, keepdims=True)
    assert_matches(a.softmax(dim), expected, dtype)
    assert_matches(a.log_softmax(dim), np.log(expected), dtype)


def test_softmax_is_stable():
    result = minitorch.tensor([[1000.0, 1000.0], [-1000.0, 0.0]]).softmax(1).numpy()
    np.testing.assert_allclose(result, [[0.5, 0.5], [0.0, 1.0]])
    log_result = minitorch.tensor([1000.0, 0.0]).log_softmax(0).numpy()
    np.testing.assert_allclose(log_result, [0.0, -1000.0])


# ---------------------------------------------------------------------------
# Matrix multiplication
# ---------------------------------------------------------------------------


@st.composite
def matmul_shapes(draw):
    n, m, p = (draw(st.integers(1, 3)) for _ in range(3))
    kind = draw(st.sampled_from(["vv", "mv", "vm", "mm", "batched"]))
    if kind == "vv":
        return (m,), (m,)
    if kind == "mv":
        return (n, m), (m,)
    if kind == "vm":
        return (m,), (m, p)
    if kind == "mm":
        return (n, m), (m, p)
    batch_a, batch_b = draw(broadcastable_shapes())
    return batch_a[-2:] + (n, m), batch_b[-2:] + (m, p)


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
@given(data=st.data())
@settings(max_examples=examples(30), deadline=None)
def test_matmul_matches_numpy(dtype, data):
    shape_a, shape_b = data.draw(matmul_shapes())
    a, a_values = data.draw(tensors(dtype, shape_a))
    b, b_values = data.draw(tensors(dtype, shape_b))
    assert_matches(a @ b, np.asarray(a_values @ b_values), dtype)


# ---------------------------------------------------------------------------
# Views share storage; copies do not
# ---------------------------------------------------------------------------


def shares_storage(a, b) -> bool:
    return a.storage().data_ptr() == b.storage().data_ptr()


@pytest.mark.task2_4
def test_view_and_permute_share_storage():
    a = minitorch.arange(6)
    matrix = a.view(2, 3)
    assert matrix.stride() == (3, 1) and shares_storage(a, matrix)
    swapped = matrix.permute(1, 0)
    assert swapped.shape == (3, 2) and swapped.stride() == (1, 3)
    assert swapped.tolist() == [[0, 3], [1, 4], [2, 5]]
    swapped[2, 1] = 50  # writes through to a
    assert a.tolist() == [0, 1, 2, 3, 4, 50]
    assert a.view(3, -1).shape == (3, 2)


@pytest.mark.task2_4
@given(tensors(minitorch.float32, layouts=("permuted", "sliced")), st.data())
@settings(max_examples=examples(40), deadline=None)
def test_permute_matches_numpy(case, data):
    a, values = case
    order = data.draw(st.permutations(range(a.dim())))
    assert_matches(a.permute(*order), np.transpose(values, order))


def test_t_is_free_and_reshape_copies():
    x = minitorch.randn(2, 3)
    y = x.t()
    assert y.stride() == (1, 3) and not y.is_contiguous() and shares_storage(x, y)
    flat = y.reshape(6)
    assert not shares_storage(x, flat), "reshape of a transpose must copy"
    np.testing.assert_array_equal(flat.numpy(), x.numpy().T.reshape(6))
    same = x.reshape(3, 2)
    assert shares_storage(x, same), "reshape of a contiguous tensor is a view"
    assert x.contiguous() is x


def test_expand_squeeze_unsqueeze_flatten():
    a = minitorch.tensor([[1], [2]])
    wide = a.expand(2, 3)
    assert wide.stride() == (1, 0) and wide.tolist() == [[1, 1, 1], [2, 2, 2]]
    assert a.expand(4, -1, 3).shape == (4, 2, 3)
    assert a.squeeze().shape == (2,) and a.squeeze(0).shape == (2, 1)
    assert a.unsqueeze(0).shape == (1, 2, 1) and a.unsqueeze(-1).shape == (2, 1, 1)
    cube = minitorch.zeros(2, 3, 4)
    assert cube.flatten().shape == (24,) and cube.flatten(1).shape == (2, 12)


@given(tensors(), st.data())
@settings(max_examples=examples(40), deadline=None)
def test_clone_contiguous_and_to_copy_values(case, data):
    a, values = case
    assert_matches(a.clone(), values, a.dtype, exact=True)
    assert a.contiguous().is_contiguous()
    assert_matches(a.contiguous(), values, a.dtype, exact=True)
    target = data.draw(st.sampled_from(DTYPES))
    assert_matches(a.to(target), values.astype(target.numpy_dtype), target, exact=True)


# ---------------------------------------------------------------------------
# Indexing
# ---------------------------------------------------------------------------

KEYS = [
    1,
    -1,
    (0, 1),
    (slice(None), 0),
    (Ellipsis, -1),
    (slice(None, None, 2),),
    (slice(1, None), slice(None, None, 2)),
    (None, 1),
    (0, None, slice(1, 3)),
    (slice(5, 9),),
    (Ellipsis, None),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_basic_indexing_matches_numpy(key):
    values = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    a = minitorch.tensor(values)
    result = a[key]
    assert_matches(result, values[key], minitorch.float32, exact=True)
    assert shares_storage(a, result), "basic indexing is a view"


def test_indexing_a_permuted_tensor():
    values = np.arange(12).reshape(3, 4)
    a = minitorch.tensor(values).t()
    assert_matches(a[1:, ::2], values.T[1:, ::2], exact=True)
    element = a[2, 1]
    assert element.dim() == 0 and element.item() == values.T[2, 1]


def test_advanced_indexing_copies():
    values = np.arange(12).reshape(4, 3)
    a = minitorch.tensor(values)
    mask = a > 6
    assert_matches(a[mask], values[values > 6], exact=True)
    assert_matches(a[[2, 0]], values[[2, 0]], exact=True)
    assert_matches(a[minitorch.tensor([[1], [3]])], values[np.array([[1], [3]])], exact=True)


def test_setitem_writes_through_views():
    a = minitorch.zeros(3, 4)
    a[1] = 5
    a[:, ::2] = minitorch.tensor([1.0, 2.0])
    a[a > 4] = -1
    expected = np.zeros((3, 4), dtype=np.float32)
    expected[1] = 5
    expected[:, ::2] = [1.0, 2.0]
    expected[expected > 4] = -1
    assert_matches(a, expected, exact=True)
    column = a[:, 1]
    column[0] = 9  # a view of a column writes into a
    assert a[0, 1].item() == 9


# ---------------------------------------------------------------------------
# In-place operations
# ---------------------------------------------------------------------------


def test_in_place_ops_write_into_the_same_storage():
    a = minitorch.ones(2, 3)
    pointer = a.data_ptr()
    view = a[0]
    a.add_(1).mul_(3)
    a += minitorch.tensor([1.0, 2.0, 3.0])
    a -= 1
    a *= 2
    a /= 4
    assert a.data_ptr() == pointer
    expected = ((np.ones((2, 3)) + 1) * 3 + [1, 2, 3] - 1) * 2 / 4
    np.testing.assert_allclose(a.numpy(), expected)
    np.testing.assert_allclose(view.numpy(), expected[0])
    assert a._version == view._version == 6


def test_in_place_on_a_view_changes_the_base():
    a = minitorch.arange(6, dtype=minitorch.float32).view(2, 3)
    a.t()[1].zero_()
    np.testing.assert_array_equal(a.numpy(), [[0, 0, 2], [3, 0, 5]])
    a[:, 2].fill_(7).relu_()
    np.testing.assert_array_equal(a.numpy(), [[0, 0, 7], [3, 0, 7]])
    a.clamp_(1, 5)
    np.testing.assert_array_equal(a.numpy(), [[1, 1, 5], [3, 1, 5]])


def test_copy_and_t_in_place():
    a = minitorch.zeros(2, 3, dtype=minitorch.int64)
    a.copy_(minitorch.tensor([1.7, 2.2, 3.9]))  # copy_ converts: floats truncate toward zero
    assert a.tolist() == [[1, 2, 3], [1, 2, 3]]
    a.t_()
    assert a.shape == (3, 2) and a.stride() == (1, 3)
    b = minitorch.arange(4).view(2, 2)
    b.copy_(b.t())  # overlapping source and target: the source is read first
    assert b.tolist() == [[0, 2], [1, 3]]


def test_random_fills_are_reproducible():
    minitorch.manual_seed(3)
    first = (minitorch.rand(2, 2), minitorch.randn(3), minitorch.randint(0, 5, (4,)))
    minitorch.manual_seed(3)
    second = (minitorch.rand(2, 2), minitorch.randn(3), minitorch.randint(0, 5, (4,)))
    for x, y in zip(first, second, strict=True):
        assert x.tolist() == y.tolist()
    assert first[2].dtype is minitorch.int64 and all(0 <= v < 5 for v in first[2].tolist())
    a = minitorch.empty(1000).uniform_(2, 3)
    assert 2 <= a.min().item() and a.max().item() < 3
    b = minitorch.empty(1000, dtype=minitorch.float64).normal_(5, 0.1)
    assert abs(b.mean().item() - 5) < 0.05


# ---------------------------------------------------------------------------
# NumPy interop, conversions, devices
# ---------------------------------------------------------------------------


def test_from_numpy_shares_memory_both_ways():
    array = np.array([[5, 6], [7, 8]])
    t = minitorch.from_numpy(array)
    assert t.dtype is minitorch.int64
    array[0, 0] = 50
    t[1, 1] = 80
    assert t.tolist() == [[50, 6], [7, 80]] and array.tolist() == [[50, 6], [7, 80]]
    strided = minitorch.from_numpy(np.arange(12.0).reshape(3, 4)[:, 1::2])
    assert strided.stride() == (4, 2) and strided.tolist() == [[1.0, 3.0], [5.0, 7.0], [9.0, 11.0]]


@pytest.mark.cpu_only  # host memory, or printing without a device
def test_numpy_shares_memory_and_asarray_works():
    t = minitorch.zeros(2, 3)
    array = t.numpy()
    array[1, 2] = 4
    assert t[1, 2].item() == 4
    assert np.asarray(t.t()).shape == (3, 2)
    assert np.asarray(t, dtype=np.float64).dtype == np.float64


def test_tensor_data_types_like_torch():
    assert minitorch.tensor([[1, 2], [3, 4]]).dtype is minitorch.int64
    assert minitorch.tensor([1.5]).dtype is minitorch.float32
    assert minitorch.tensor([True, False]).dtype is minitorch.bool
    assert minitorch.tensor([True, 2]).dtype is minitorch.int64
    assert minitorch.tensor(np.zeros(2)).dtype is minitorch.float64
    assert minitorch.tensor(3.5).dim() == 0
    assert minitorch.full((2,), 7).dtype is minitorch.int64
    assert minitorch.arange(3).dtype is minitorch.int64
    assert minitorch.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]


@pytest.mark.cpu_only  # host memory, or printing without a device
def test_conversions_return_self_when_nothing_changes():
    a = minitorch.tensor([1.5, -2.5])
    assert a.to(minitorch.float32) is a and a.cpu() is a and a.float() is a
    assert a.to("cpu") is a and a.to(minitorch.device("cpu")) is a
    assert a.long().tolist() == [1, -2] and a.double().dtype is minitorch.float64
    assert a.bool().tolist() == [True, True]
    assert a.type_as(minitorch.tensor([1])).dtype is minitorch.int64
    assert minitorch.cuda.is_available() is False
    with pytest.raises(RuntimeError, match="minitorch.cuda.is_available"):
        a.to("cuda")


def test_python_values():
    a = minitorch.tensor([[1.5, 2.0]])
    assert a[0, 1].item() == 2.0 and isinstance(a[0, 1].item(), float)
    assert float(a[0, 0]) == 1.5 and bool(minitorch.tensor([1])) is True
    assert a.tolist() == [[1.5, 2.0]] and len(a) == 1
    assert [row.tolist() for row in a] == [[1.5, 2.0]]
    assert f"{a.sum():.2f}" == "3.50"


@pytest.mark.cpu_only  # host memory, or printing without a device
def test_requires_grad_fields():
    a = minitorch.ones(2, requires_grad=True)
    assert a.requires_grad and a.is_leaf and a.grad is None and a.grad_fn is None
    assert repr(a) == "tensor([1., 1.], requires_grad=True)"
    b = minitorch.zeros(2).requires_grad_()
    assert b.requires_grad


@pytest.mark.parametrize("method", ["size", "stride"])
@pytest.mark.parametrize("dim", [0, -1])
def test_size_and_stride_of_a_dim_of_a_0d_tensor_raise_as_torch(method, dim):
    # torch 2.x: IndexError "Dimension specified as 0 but tensor has no dimensions"
    with pytest.raises(IndexError, match=f"^Dimension specified as {dim} but tensor has no dim"):
        getattr(minitorch.tensor(1.0), method)(dim)
    assert getattr(minitorch.tensor([[1.0, 2.0]]), method)(-1) == {"size": 2, "stride": 1}[method]
