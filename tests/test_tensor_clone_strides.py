"""`clone` keeps the source's strides (`preserve_format`), as PyTorch's does, or makes a
row-major copy (`contiguous_format`); the strides expected are PyTorch 2.13's."""

import numpy as np
import pytest

import minitorch

# (how the source is made from arange(24.), the strides torch's clone has)
CASES = [
    ("transposed", lambda x: x[:6].reshape(2, 3).t(), (1, 3)),
    ("permuted", lambda x: x.reshape(2, 3, 4).permute(2, 0, 1), (1, 12, 4)),
    ("stepped", lambda x: x.reshape(4, 6)[:, ::2], (3, 1)),
    ("transposed and stepped", lambda x: x.reshape(4, 6).t()[::2], (1, 3)),
    ("size-1 dim", lambda x: x[:3].reshape(1, 3).t(), (1, 3)),
    ("expanded", lambda x: x[:3].expand(2, 3), (3, 1)),
    ("row-major", lambda x: x[:6].reshape(2, 3), (3, 1)),
    ("permuted slice", lambda x: x.reshape(2, 3, 4).permute(2, 0, 1)[1:3, :, ::2], (1, 4, 2)),
]


@pytest.mark.parametrize(("name", "make", "strides"), CASES, ids=[c[0] for c in CASES])
def test_clone_keeps_dense_strides(name, make, strides):
    source = make(minitorch.arange(24.0))
    copy = source.clone()
    assert copy.stride() == strides
    np.testing.assert_array_equal(copy.numpy(), source.numpy())
    assert copy.reshape(-1).tolist() == source.numpy().reshape(-1).tolist()
    row_major = source.clone(memory_format=minitorch.contiguous_format)
    assert row_major.is_contiguous() and row_major.tolist() == source.tolist()
    assert minitorch.clone(source, memory_format=minitorch.preserve_format).stride() == strides


def test_a_transposed_clone_is_not_viewable_as_a_row():
    """PyTorch's `ones(2, 3).t().clone().view(-1)` raises: the copy is transposed too."""
    copy = minitorch.ones(2, 3).t().clone()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        copy.view(-1)
    assert copy.contiguous().view(-1).shape == (6,)


def test_clone_writes_its_own_storage_and_passes_gradients():
    leaf = minitorch.arange(6.0).reshape(2, 3).requires_grad_()
    copy = leaf.t().clone()
    assert copy.grad_fn.name() == "CloneBackward0"
    copy[0, 1] = 100.0
    assert leaf[1, 0].item() == 3.0
    leaf2 = minitorch.arange(6.0).reshape(2, 3).requires_grad_()
    (leaf2.t().clone() * minitorch.tensor([[1.0, 2.0]] * 3)).sum().backward()
    assert leaf2.grad.tolist() == [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]


def test_unknown_memory_format_is_refused():
    with pytest.raises(RuntimeError, match="contiguous"):
        minitorch.ones(2).contiguous(memory_format=minitorch.preserve_format)
    with pytest.raises(RuntimeError, match="unsupported memory format"):
        minitorch.ones(2).clone(memory_format="channels_last")


def test_clone_strides_like_torch(torch):
    for name, make, _ in CASES:
        ours, theirs = make(minitorch.arange(24.0)).clone(), make(torch.arange(24.0)).clone()
        assert ours.stride() == theirs.stride(), name
        assert ours.reshape(-1).tolist() == theirs.reshape(-1).tolist(), name
