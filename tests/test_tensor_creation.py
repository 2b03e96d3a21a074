"""Creating tensors against torch: the legacy `Tensor(...)` constructor, the `new_*` factories,
`set_default_dtype` and `set_default_device`, and the dtypes NumPy scalars give.

Skipped when torch is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def same(ours, theirs):
    assert str(ours.dtype).replace("minitorch.", "") == str(theirs.dtype).replace("torch.", "")
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize(
    "args", [([1, 2, 3],), ([[1.5, 2.0], [3.0, 4.0]],), (2, 3), (4,), (), ([True, False],)]
)
def test_legacy_constructor_matches_torch(args):
    ours, theirs = minitorch.Tensor(*args), torch.Tensor(*args)
    if args and isinstance(args[0], int):  # torch leaves sizes uninitialised; ours are zeros
        assert tuple(ours.shape) == tuple(theirs.shape) and ours.dtype == minitorch.float32
        assert not ours.numpy().any()
    else:
        same(ours, theirs)


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_new_factories_match_torch(dtype):
    base = {lib: lib.tensor([1, 2], dtype=getattr(lib, dtype)) for lib in (minitorch, torch)}
    calls = [
        lambda t: t.new_tensor([1.5, 2.5]),
        lambda t: t.new_tensor([1, 2], dtype=t.new_zeros(1).bool().dtype),
        lambda t: t.new_zeros(2, 3),
        lambda t: t.new_ones((3,)),
        lambda t: t.new_full((2, 2), 3.5),
        lambda t: t.new_empty(0, 2),
    ]
    for call in calls:
        same(call(base[minitorch]), call(base[torch]))
    grad = base[minitorch].float().new_zeros(2, requires_grad=True)
    assert grad.requires_grad and grad.is_leaf


def test_set_default_dtype_as_torch():
    try:
        for library in (minitorch, torch):
            library.set_default_dtype(library.float64)
        for make in (
            lambda lib: lib.tensor([1.5]),
            lambda lib: lib.zeros(2),
            lambda lib: lib.Tensor([1]),
            lambda lib: lib.arange(0.0, 1.0, 0.5),
            lambda lib: lib.tensor([1, 2]) * 0.5,
        ):
            same(make(minitorch), make(torch))
        assert minitorch.get_default_dtype() == minitorch.float64
        assert minitorch.rand(2).dtype == minitorch.float64
        for library in (minitorch, torch):
            with pytest.raises(TypeError, match="only floating-point types are supported"):
                library.set_default_dtype(library.int64)
    finally:
        minitorch.set_default_dtype(minitorch.float32)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize(
    "data",
    [
        np.float64(2.5),
        np.float32(2.5),
        [np.float64(1.5)],
        [np.float32(1.5), 2.0],
        [1, np.float64(2.0)],
        np.int64(3),
        np.bool_(True),
    ],
)
def test_numpy_scalars_keep_their_dtype(data):
    same(minitorch.tensor(data), torch.tensor(data))


def test_set_default_device_as_torch():
    try:
        for library in (minitorch, torch):
            library.set_default_device("cpu")
            assert str(library.get_default_device()) == "cpu"
            assert str(library.zeros(2).device) == "cpu"
            library.set_default_device(None)
            assert str(library.get_default_device()) == "cpu"
        if not minitorch.cuda.is_available():
            minitorch.set_default_device("cuda")
            with pytest.raises(RuntimeError, match="minitorch.cuda.is_available"):
                minitorch.ones(1)
    finally:
        minitorch.set_default_device(None)
        torch.set_default_device(None)
