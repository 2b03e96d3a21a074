"""Layout arithmetic: positions, indices, broadcasting, strides and the view rule."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import broadcastable_shapes, shapes

import minitorch
from minitorch import float32
from minitorch.backends.tensor_data import (
    TensorData,
    broadcast_index,
    index_to_position,
    shape_broadcast,
    strides_from_shape,
    to_index,
    view_strides,
)


def as_index(values) -> np.ndarray:
    return np.array(values, dtype=np.int64)


@pytest.mark.task2_1
def test_index_to_position_by_hand():
    # element (1, 2) of a (2, 3) row-major tensor: 1 * 3 + 2 * 1 = 5
    assert index_to_position(as_index([1, 2]), as_index([3, 1])) == 5
    # the same element of its transpose's storage, strides (1, 2): 1 * 1 + 2 * 2 = 5
    assert index_to_position(as_index([1, 2]), as_index([1, 2])) == 5
    # stride 0 (an expanded dimension) ignores the index
    assert index_to_position(as_index([3, 1]), as_index([0, 1])) == 1
    assert index_to_position(as_index([]), as_index([])) == 0


@pytest.mark.task2_1
@given(shapes())
@settings(max_examples=50, deadline=None)
def test_to_index_enumerates_row_major(shape):
    out_index = np.zeros(len(shape), dtype=np.int64)
    for ordinal, expected in enumerate(itertools.product(*(range(n) for n in shape))):
        to_index(ordinal, as_index(shape), out_index)
        assert tuple(out_index) == expected, f"ordinal {ordinal} of shape {shape}"


@pytest.mark.task2_1
@given(shapes(min_dims=1))
@settings(max_examples=50, deadline=None)
def test_positions_match_numpy_strides(shape):
    """With row-major strides, position(to_index(k)) is k itself."""
    array = np.arange(int(np.prod(shape))).reshape(shape)
    strides = as_index(strides_from_shape(shape))
    index = np.zeros(len(shape), dtype=np.int64)
    for ordinal in range(array.size):
        to_index(ordinal, as_index(shape), index)
        assert index_to_position(index, strides) == array[tuple(index)]


def test_strides_from_shape_like_torch():  # given code, not part of task 2.1
    assert strides_from_shape((2, 3)) == (3, 1)
    assert strides_from_shape((4, 2, 5)) == (10, 5, 1)
    assert strides_from_shape(()) == ()
    # zero sizes count as one (torch.zeros(2, 0, 3).stride() == (3, 3, 1))
    assert strides_from_shape((2, 0, 3)) == (3, 3, 1)


@pytest.mark.task2_2
def test_broadcast_index_by_hand():
    out = np.zeros(2, dtype=np.int64)
    # (3, 1) inside (2, 3, 4): the leading dimension is dropped, the size-1 one pinned at 0
    broadcast_index(as_index([1, 2, 3]), as_index([2, 3, 4]), as_index([3, 1]), out)
    assert tuple(out) == (2, 0)
    out1 = np.zeros(1, dtype=np.int64)
    broadcast_index(as_index([1, 2, 3]), as_index([2, 3, 4]), as_index([4]), out1)
    assert tuple(out1) == (3,)


@pytest.mark.task2_2
@given(broadcastable_shapes())
@settings(max_examples=60, deadline=None)
def test_shape_broadcast_matches_numpy(pair):
    shape_a, shape_b = pair
    assert shape_broadcast(shape_a, shape_b) == np.broadcast_shapes(shape_a, shape_b)


@pytest.mark.task2_2
@given(broadcastable_shapes())
@settings(max_examples=40, deadline=None)
def test_broadcast_index_picks_the_numpy_element(pair):
    small, other = pair
    big = np.broadcast_shapes(small, other)
    values = np.arange(int(np.prod(small))).reshape(small)
    expanded = np.broadcast_to(values, big)
    out = np.zeros(len(small), dtype=np.int64)
    for big_index in itertools.product(*(range(n) for n in big)):
        broadcast_index(as_index(big_index), as_index(big), as_index(small), out)
        assert values[tuple(out)] == expanded[big_index], f"at {big_index}"


@pytest.mark.task2_2
def test_shape_broadcast_error_text():
    with pytest.raises(RuntimeError) as error:
        shape_broadcast((2, 3), (2, 2))
    assert str(error.value) == (
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"
    )
    # several mismatches: torch checks from the right and names the last one
    with pytest.raises(RuntimeError) as error:
        shape_broadcast((2, 3, 4), (3, 2, 4))
    assert str(error.value) == (
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"
    )


def test_view_strides_by_hand():
    # a contiguous (2, 3) seen as (3, 2) and (6,)
    assert view_strides((2, 3), (3, 1), (3, 2)) == (2, 1)
    assert view_strides((2, 3), (3, 1), (6,)) == (1,)
    # its transpose cannot be flattened without a copy...
    assert view_strides((3, 2), (1, 3), (6,)) is None
    # ...but can gain or lose size-1 dimensions
    # (torch.ones(2, 3).t().view(3, 1, 2).stride() == (1, 6, 3))
    assert view_strides((3, 2), (1, 3), (3, 1, 2)) == (1, 6, 3)


@st.composite
def strided_layouts(draw):
    """A torch tensor with a permuted and/or sliced layout, and a same-size target shape."""
    torch = pytest.importorskip("torch")
    shape = draw(shapes(min_dims=1))
    order = draw(st.permutations(range(len(shape))))
    base = torch.arange(int(np.prod(shape)) * 2).reshape(*shape[:-1], shape[-1] * 2)
    sliced = base[..., ::2] if draw(st.booleans()) else base[..., : shape[-1]]
    source = sliced.permute(*order)
    sizes = list(source.shape)
    target = []
    while sizes:  # merge a random run of neighbours, or split one off with a 1
        run = draw(st.integers(1, len(sizes)))
        target.append(int(np.prod(sizes[:run])))
        sizes = sizes[run:]
        if draw(st.booleans()):
            target.append(1)
    return source, tuple(target)


@given(strided_layouts())
@settings(max_examples=80, deadline=None)
def test_view_strides_follow_torch(case):
    """`view_strides` agrees with torch.view: the same strides, or both refuse."""
    source, target = case
    ours = view_strides(tuple(source.shape), source.stride(), target)
    try:
        theirs = source.view(*target).stride()
    except RuntimeError:
        theirs = None
    assert ours == theirs, f"shape {tuple(source.shape)} strides {source.stride()} -> {target}"


@given(strided_layouts())
@settings(max_examples=50, deadline=None)
def test_is_contiguous_follows_torch(case):
    source, _ = case
    layout = TensorData(np.zeros(1000), tuple(source.shape), source.stride())
    assert layout.is_contiguous() == source.is_contiguous(), f"strides {source.stride()}"


@pytest.mark.parametrize(
    "shape, strides, row_major",
    [
        ((2, 3), (3, 1), True),
        ((2, 3), (1, 2), False),  # transposed
        ((2, 3), (0, 1), False),  # expanded
        ((2, 3), (6, 2), False),  # sliced with a step
        ((1, 3), (99, 1), True),  # a dimension of size 1 has any stride
        ((3, 1), (1, 7), True),
        ((2, 0, 3), (5, 7, 1), True),  # no elements
        ((), (), True),
    ],
)
def test_row_major_is_found_once_for_every_layout(shape, strides, row_major):
    """`row_major` (what `is_contiguous` returns) for layouts made with explicit strides, and
    for the fast constructors, which make only row-major layouts."""
    layout = TensorData(np.zeros(20), shape, strides)
    assert layout.row_major is row_major and layout.is_contiguous() is row_major, strides
    assert TensorData(np.zeros(20), shape).row_major
    assert TensorData.contiguous(np.zeros(20), shape, 2).row_major
    assert TensorData.empty(shape, float32).row_major


def test_layout_refuses_to_reach_outside_storage():
    with pytest.raises(RuntimeError, match="outside a storage of 6 elements"):
        TensorData(np.zeros(6), (2, 3), (4, 1))
    with pytest.raises(RuntimeError, match="outside a storage of 6 elements"):
        TensorData(np.zeros(6), (2, 3), None, 1)  # row-major, one element too far
    with pytest.raises(RuntimeError, match="outside a storage of 6 elements"):
        TensorData(np.zeros(6), (2, 3), (-3, 1), 2)  # row 1 would start at position -1
    TensorData(np.zeros(6), (2, 3), (-3, 1), 3)  # rows 1 and 0, reversed: fits
    TensorData(np.zeros(0), (2, 0, 3), (5, 7, 1), 9)  # no elements: reaches nothing


@pytest.mark.parametrize("shape", [(), (1,), (4,), (2, 3), (2, 0, 3), (3, 1, 2, 5)])
def test_fast_constructors_make_the_general_row_major_layout(shape):
    """`empty` and `contiguous` build what `TensorData(storage, shape)` does, arrays included."""
    storage = np.arange(1 + 2 * int(np.prod(shape)), dtype=np.float32)
    general = TensorData(storage, shape, None, 1)
    numpy_strides = tuple(step // 8 for step in np.zeros(shape).strides)  # float64: 8 bytes a step
    for layout in (TensorData.contiguous(storage, shape, 1), TensorData.empty(shape, float32)):
        assert layout.shape == general.shape == shape
        assert layout.strides == general.strides, (layout.strides, general.strides)
        if 0 not in shape:  # (NumPy's strides of an empty shape differ from PyTorch's)
            assert layout.strides == numpy_strides, (layout.strides, numpy_strides)
        assert layout.shape_array.dtype == layout.strides_array.dtype == np.int64
        assert layout.shape_array.tolist() == list(shape)
        assert layout.strides_array.tolist() == list(general.strides)
    fresh = TensorData.empty(shape, float32)
    assert fresh.offset == 0 and fresh.storage.dtype == np.float32
    assert fresh.storage.tolist() == [0.0] * int(np.prod(shape)), "empty() storage is not zeros"
    assert TensorData.contiguous(storage, shape, 1).numpy_view().tolist() == (
        storage[1 : 1 + int(np.prod(shape))].reshape(shape).tolist()
    )


def test_fast_constructors_normalize_the_shape_and_check_the_storage_size():
    layout = TensorData.empty((np.int64(2), np.int64(3)), float32)
    assert layout.shape == (2, 3) and all(type(size) is int for size in layout.shape)
    assert TensorData.contiguous(np.zeros(7), (2, 3), 1).offset == 1  # ends at the last element
    with pytest.raises(RuntimeError, match="offset 2 reaches outside a storage of 7 elements"):
        TensorData.contiguous(np.zeros(7), (2, 3), 2)
    with pytest.raises(RuntimeError, match="outside a storage of 7 elements"):
        TensorData.contiguous(np.zeros(7), (2, 3), -1)
    assert TensorData.contiguous(np.zeros(0), (0, 3)).numel() == 0


def test_dtype_promotion_table_follows_torch():
    torch = pytest.importorskip("torch")
    ours = {
        "float32": minitorch.float32,
        "float64": minitorch.float64,
        "int64": minitorch.int64,
        "bool": minitorch.bool,
    }
    theirs = {
        "float32": torch.float32,
        "float64": torch.float64,
        "int64": torch.int64,
        "bool": torch.bool,
    }
    samples = {"float32": 1.5, "float64": 1.5, "int64": 2, "bool": True}
    scalars = [True, 3, 2.5]
    for a_name, b_name in itertools.product(ours, repeat=2):
        for a_dims, b_dims in [((2,), (2,)), ((2,), ()), ((), (2,)), ((), ())]:
            a = minitorch.full(a_dims, samples[a_name], dtype=ours[a_name])
            b = minitorch.full(b_dims, samples[b_name], dtype=ours[b_name])
            ta = torch.full(a_dims, samples[a_name], dtype=theirs[a_name])
            tb = torch.full(b_dims, samples[b_name], dtype=theirs[b_name])
            expected = str(torch.result_type(ta, tb)).replace("torch.", "")
            got = minitorch.result_type(a, b).name
            assert got == expected, f"{a_name}{a_dims} with {b_name}{b_dims}"
        for scalar in scalars:
            a = minitorch.full((2,), samples[a_name], dtype=ours[a_name])
            ta = torch.full((2,), samples[a_name], dtype=theirs[a_name])
            expected = str(torch.result_type(ta, scalar)).replace("torch.", "")
            assert minitorch.result_type(a, scalar).name == expected, f"{a_name} with {scalar!r}"


def test_dtypes_print_like_torch():
    assert repr(minitorch.float32) == "minitorch.float32"
    assert str(minitorch.int64) == "minitorch.int64"
    assert minitorch.float is minitorch.float32
    assert minitorch.double is minitorch.float64
    assert minitorch.long is minitorch.int64
    assert minitorch.float32.is_floating_point and not minitorch.int64.is_floating_point
    assert [
        d.itemsize for d in (minitorch.float32, minitorch.float64, minitorch.int64, minitorch.bool)
    ] == [4, 8, 8, 1]
