"""The shortcuts of the per-operation hot path give what the general path gives (and torch).

Results are made without `Tensor.__init__`, Function.apply reads `requires_grad` off the
fields and gives a forward that records no node a ready-made ctx, strided layouts share
cached index arrays, a float tensor with a Python float skips promotion, and a 2-D @ 2-D
matmul skips the view steps. Each test here fails if its shortcut answers differently.
ReLU's backward, 0 where x <= 0 and the gradient elsewhere, is checked with NaN among the
inputs: a NaN input passes the gradient on, as in torch.
"""

import numpy as np
import pytest

import minitorch
from minitorch.backends.tensor_data import TensorData


def test_each_result_has_its_own_version_counter():
    a, b = minitorch.ones(3), minitorch.ones(3)
    x, y = a + b, a + b
    x.add_(1)
    assert (x._version, y._version, a._version) == (1, 0, 0)
    view = x.view(3, 1)
    view.mul_(2)  # a view shares its base's counter, and only its base's
    assert (x._version, view._version, y._version) == (2, 2, 0)


def test_results_are_plain_tensors_that_track_grad_only_when_asked():
    x = minitorch.ones(2) * 3
    assert type(x) is minitorch.Tensor
    assert (x.requires_grad, x.is_leaf, x.grad_fn, x._base) == (False, True, None, None)
    w = minitorch.ones(2, requires_grad=True)
    assert (w * 3).grad_fn.name() == "MulBackward0"
    with minitorch.no_grad():
        assert (w * 3).grad_fn is None


def test_strided_layouts_share_checked_arrays():
    storage = np.zeros(6, np.float32)
    first, second = TensorData(storage, (2, 3), (1, 2)), TensorData(storage, (2, 3), (1, 2))
    assert first.shape_array is second.shape_array
    assert list(first.strides_array) == [1, 2]
    with pytest.raises(ValueError, match="differ in length"):
        TensorData(storage, (2, 3), (1,))
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        TensorData(storage, (2, -1), (1, 2))
    with pytest.raises(RuntimeError, match="outside a storage"):
        TensorData(storage, (2, 3), (1, 3))  # cached arrays, bounds still checked


class Recorded(minitorch.autograd.Function):
    """Keeps the ctx its forward got, and writes a field of its own on it."""

    seen: list = []

    @staticmethod
    def forward(ctx, *inputs, scale=1.0):
        Recorded.seen.append((ctx, ctx.needs_input_grad, ctx.no_grad))
        ctx.scale = scale
        ctx.save_for_backward(*inputs)
        return inputs[0] * scale

    @staticmethod
    def backward(ctx, grad):
        return (grad * ctx.scale,) + (None,) * (len(ctx.saved_tensors) - 1)


@pytest.mark.parametrize("n_inputs", [1, 2, 5])
def test_a_forward_that_records_no_node_gets_a_fresh_ctx_of_its_input_count(n_inputs):
    """With nothing requiring grad: needs_input_grad all False, nothing saved, and a new ctx
    each call (what one forward writes on it is not seen by the next)."""
    Recorded.seen = []
    inputs = [minitorch.ones(2)] * n_inputs
    Recorded.apply(*inputs, scale=2.0)
    Recorded.apply(*inputs)
    (first, needs, no_grad), (second, *_) = Recorded.seen
    assert needs == (False,) * n_inputs and no_grad is True
    assert first is not second and (first.scale, second.scale) == (2.0, 1.0)
    assert first.saved_values == () == second.saved_values
    w = minitorch.ones(2, requires_grad=True)
    out = Recorded.apply(w, *inputs[1:], scale=3.0)  # a node: the ctx of the recording path
    assert Recorded.seen[-1][1:] == ((True,) + (False,) * (n_inputs - 1), False)
    out.sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]


NAN = float("nan")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_relu_gradient_passes_through_nan(dtype, create_graph):
    """0 where x <= 0, else the gradient: a NaN input passes it on (torch 2.13's values)."""
    x = minitorch.tensor([-1.0, 0.0, 2.0, NAN], dtype=getattr(minitorch, dtype), requires_grad=True)
    g = minitorch.tensor([1.0, 2.0, 3.0, 4.0], dtype=x.dtype, requires_grad=create_graph)
    (dx,) = minitorch.autograd.grad(x.relu(), x, g, create_graph=create_graph)
    assert dx.tolist() == [0.0, 0.0, 3.0, 4.0]
    if create_graph:
        (dg,) = minitorch.autograd.grad(dx.sum(), g)
        assert dg.tolist() == [0.0, 0.0, 1.0, 1.0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_relu_gradient_matches_torch(torch, dtype, create_graph):
    values = [-2.0, -0.0, 0.0, 0.5, 1e-30, 3.0, NAN]
    grads = [1.0, 2.0, 3.0, NAN, 5.0, -1.0, 7.0]
    results = []
    for lib in (minitorch, torch):
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
        g = lib.tensor(grads, dtype=getattr(lib, dtype), requires_grad=create_graph)
        (dx,) = lib.autograd.grad(x.relu(), x, g, create_graph=create_graph)
        results.append(np.array(dx.detach().tolist()))
        if create_graph:  # d(dx)/dg = 1 where x > 0: the recorded backward is differentiable
            (dg,) = lib.autograd.grad(dx.sum(), g)
            results.append(np.array(dg.tolist()))
    half = len(results) // 2
    for ours, theirs in zip(results[:half], results[half:], strict=True):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize(
    ("dtype", "number"), [("float32", 0.1), ("float64", 0.1), ("int64", 0.5), ("float64", 1e-300)]
)
def test_tensor_with_a_python_float(torch, dtype, number):
    results = []
    for lib in (minitorch, torch):
        t = lib.tensor([1, 2, 3], dtype=getattr(lib, dtype))
        for out in (t * number, number - t, t + number):
            results.append((str(out.dtype).split(".")[-1], out.tolist()))
    assert results[:3] == results[3:]


def test_matrix_product_and_gradients_match_torch(torch):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((5, 4))
    results = []
    for lib in (minitorch, torch):
        x = lib.tensor(a, requires_grad=True)
        y = lib.tensor(b, requires_grad=True)
        out = x @ y.T  # a transposed (non-contiguous) right operand
        out.backward(lib.ones(3, 5))
        results.append([out.grad_fn.name(), out.shape[0], out.shape[1]])
        results.append([np.array(v.detach().tolist()) for v in (out, x.grad, y.grad)])
    assert results[0] == results[2]
    for ours, theirs in zip(results[1], results[3], strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
