"""Running one function in minitorch and in PyTorch and comparing everything it gives.

`compare(fn, arrays)` builds the same inputs in both libraries from NumPy
arrays (contiguous, or as a permuted view: strides that are not row-major),
runs `fn(lib, *inputs)`, and checks that the results agree in shape, dtype,
values and `grad_fn` name; for floating inputs it backpropagates the same
random weighting of the outputs in both and compares the gradients, and
checks minitorch's gradients against central differences (`grad_check`).
`same_error(fn)` checks that both raise the same exception with the same text;
`assert_same(fn)` that `fn(lib)` gives the same result or the same error in both.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def build(lib, array: np.ndarray, permuted: bool, requires_grad: bool):
    """The leaf tensor and the tensor `fn` gets (a permuted view of the leaf when `permuted`)."""
    order = tuple(reversed(range(array.ndim)))
    source = np.transpose(array) if permuted else array
    dtype = getattr(lib, str(array.dtype) if array.dtype != np.bool_ else "bool")
    leaf = lib.tensor(source.tolist(), dtype=dtype, requires_grad=requires_grad)
    return leaf, (leaf.permute(*order) if permuted and array.ndim > 1 else leaf)


def tensors_in(result) -> list:
    """The tensors of a result: itself, or those of a (named) tuple or list."""
    if isinstance(result, (tuple, list)):
        return [t for item in result for t in tensors_in(item)]
    return [result] if isinstance(result, (minitorch.Tensor, torch.Tensor)) else []


def run(lib, fn, arrays, permuted: bool, grad: bool):
    leaves, inputs = [], []
    for array in arrays:
        needs = grad and array.dtype.kind == "f"
        leaf, x = build(lib, array, permuted, needs)
        leaves.append(leaf)
        inputs.append(x)
    return leaves, inputs, fn(lib, *inputs)


def weighted_loss(outputs: list, lib, differentiable=lambda out: out.requires_grad):
    """$\\sum_k \\sum_i w_{k,i} \\, out_{k,i}$ over the `differentiable` outputs (fixed $w$)."""
    rng = np.random.default_rng(1)
    loss = None
    for out in outputs:
        if not differentiable(out):
            continue
        weights = rng.standard_normal(tuple(out.shape))
        term = (out * lib.tensor(weights.tolist(), dtype=out.dtype)).sum()
        loss = term if loss is None else loss + term
    return loss


def compare(fn, arrays, *, permuted=False, grad=True, central=True, names=True, atol=1e-6):
    """Assert that `fn(minitorch, ...)` and `fn(torch, ...)` agree, gradients included
    (`grad`), minitorch's with central differences too (`central`), node names (`names`)."""
    ours_leaves, ours_inputs, ours = run(minitorch, fn, arrays, permuted, grad)
    their_leaves, _, theirs = run(torch, fn, arrays, permuted, grad)
    if type(theirs).__module__ == "torch.return_types":
        assert repr(ours).startswith(f"minitorch.return_types.{type(theirs).__name__}(")
        assert ours.values is ours[0] and ours.indices is ours[1]
    ours_all, theirs_all = tensors_in(ours), tensors_in(theirs)
    if not ours_all:
        assert ours == theirs
        return
    assert len(ours_all) == len(theirs_all)
    for k, (a, b) in enumerate(zip(ours_all, theirs_all, strict=True)):
        where = f"output {k}"
        assert tuple(a.shape) == tuple(b.shape), f"{where}: shape {a.shape} != {b.shape}"
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], f"{where}: dtype"
        expected = b.detach().numpy()
        actual = a.detach().numpy()
        assert np.allclose(actual, expected, atol=atol, rtol=1e-6, equal_nan=True), (
            f"{where}:\nminitorch {actual}\ntorch     {expected}"
        )
        a_name = a.grad_fn.name() if a.grad_fn is not None else None
        b_name = b.grad_fn.name() if b.grad_fn is not None else None
        assert a_name == b_name or not names, f"{where}: grad_fn {a_name} != {b_name}"
    if not grad or weighted_loss(theirs_all, torch) is None:
        return
    weighted_loss(ours_all, minitorch).backward()
    weighted_loss(theirs_all, torch).backward()
    for k, (a, b) in enumerate(zip(ours_leaves, their_leaves, strict=True)):
        if b.grad is None:
            continue
        assert a.grad is not None, f"input {k}: no gradient"
        assert np.allclose(a.grad.numpy(), b.grad.numpy(), atol=1e-6, rtol=1e-5, equal_nan=True), (
            f"input {k} gradient:\nminitorch {a.grad.numpy()}\ntorch     {b.grad.numpy()}"
        )
    if not central:
        return
    floats = [leaf for leaf in ours_leaves if leaf.requires_grad]
    others = {k: x for k, x in enumerate(ours_inputs) if not ours_leaves[k].requires_grad}

    def as_leaves(*xs):
        inputs, it = [], iter(xs)
        for k in range(len(ours_inputs)):
            if k in others:
                inputs.append(others[k])
            else:
                x = next(it)
                inputs.append(x.permute(*reversed(range(x.ndim))) if permuted else x)
        outputs = tensors_in(fn(minitorch, *inputs))
        return weighted_loss(outputs, minitorch, lambda out: out.dtype.is_floating_point)

    minitorch.grad_check(as_leaves, *floats)


def same_error(fn) -> None:
    """Assert that `fn(minitorch)` and `fn(torch)` raise the same exception type and text."""
    errors = []
    for lib in (minitorch, torch):
        with pytest.raises(Exception) as caught:
            fn(lib)
        errors.append((caught.type.__name__, str(caught.value).replace("minitorch.", "torch.")))
    assert errors[0] == errors[1]


def floats(shape, seed: int = 0, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    """Distinct float64 values in [low, high) (no ties: sorting has one answer)."""
    rng = np.random.default_rng(seed)
    return rng.uniform(low, high, size=shape)


def outcome(function, lib):
    """What `function(lib)` returns, or ("raised", type name, message) of what it raises."""
    try:
        return function(lib)
    except Exception as error:  # noqa: BLE001 -- the exception is the result being compared
        return ("raised", type(error).__name__, str(error))


def describe(value):
    """Tensors by shape, dtype and values; sizes as tuples, dtypes by name; tuples item by item."""
    if isinstance(value, (minitorch.Tensor, torch.Tensor)):
        values = value.detach().numpy() if isinstance(value, torch.Tensor) else value.numpy()
        return ("tensor", tuple(value.shape), str(value.dtype).split(".")[-1], values.tolist())
    if isinstance(value, (minitorch.Size, torch.Size)):
        return tuple(value)
    if isinstance(value, (minitorch.dtypes.DType, torch.dtype)):
        return str(value).split(".")[-1]
    if isinstance(value, (tuple, list)):
        return tuple(describe(v) for v in value)
    return value


def assert_same(function, quiet: bool = False):
    """`function(minitorch)` and `function(torch)` give the same `describe`d result or error
    (`quiet`: with the warnings both may give silenced)."""
    with warnings.catch_warnings():
        if quiet:
            warnings.simplefilter("ignore")
        ours, theirs = describe(outcome(function, minitorch)), describe(outcome(function, torch))
    assert ours == theirs, f"\nminitorch: {ours}\ntorch:     {theirs}"
