"""Helpers the test files share: the same values in minitorch and in PyTorch, and comparisons.

`pair(array)` makes a minitorch tensor and a torch tensor of the same values;
`assert_close(ours, theirs, what, rtol, atol)` checks that two tensors have the
same shape and close values.

`compare(fn, arrays)` builds the same inputs in both libraries from NumPy
arrays (contiguous, or as a permuted view: strides that are not row-major),
runs `fn(lib, *inputs)`, and checks that the results agree in shape, dtype,
values and `grad_fn` name; for floating inputs it backpropagates the same
random weighting of the outputs in both and compares the gradients, and
checks minitorch's gradients against central differences (`grad_check`).
`same_error(fn)` checks that both raise the same exception with the same text;
`assert_same(fn)` that `fn(lib)` gives the same result or the same error in both.

Importing this module skips the importing test file when torch is not installed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def pair(array, dtype: str | None = None, requires_grad: bool = False, transposed: bool = False):
    """The same values as a minitorch tensor and a torch tensor, both of `dtype` (a name such as
    "float64"; by default the array's). `requires_grad` applies to floating dtypes only;
    `transposed`: minitorch's is a non-contiguous view (stored with the last two dims swapped)."""
    array = np.asarray(array)
    name = dtype or str(array.dtype)
    ours_dtype, their_dtype = getattr(minitorch, name), getattr(torch, name)
    grad = requires_grad and ours_dtype.is_floating_point
    if transposed:
        ours = minitorch.tensor(np.swapaxes(array, -1, -2), dtype=ours_dtype).transpose(-1, -2)
    else:
        ours = minitorch.tensor(array, dtype=ours_dtype)
    return ours.requires_grad_(grad), torch.tensor(array, dtype=their_dtype, requires_grad=grad)


def assert_close(ours, theirs, what: str, rtol: float, atol: float | None = None, allow_none=False):
    """`ours` (minitorch) and `theirs` (torch, or minitorch) are tensors of the same shape whose
    values agree within `rtol` and `atol` (by default `atol` = `rtol`); `allow_none`: or both
    are None (a parameter, gradient or buffer that neither library has)."""
    if allow_none and ours is None and theirs is None:
        return
    assert theirs is not None, f"{what}: torch has no value, minitorch has {ours}"
    assert ours is not None, f"{what}: minitorch has no value, torch has {theirs}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {ours.shape} vs {theirs.shape}"
    np.testing.assert_allclose(
        ours.detach().numpy(),
        theirs.detach().numpy(),
        rtol=rtol,
        atol=rtol if atol is None else atol,
        err_msg=what,
    )


def x23(lib):
    """[[0., 1., 2.], [3., 4., 5.]] in `lib` (minitorch or torch)."""
    return lib.arange(6.0).reshape(2, 3)


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


def outcome(function, lib, torch_names: bool = False):
    """What `function(lib)` returns, or ("raised", type name, message) of what it raises
    (`torch_names`: with "minitorch." written "torch.", as torch's text names its own)."""
    try:
        return function(lib)
    except Exception as error:  # noqa: BLE001 -- the exception is the result being compared
        message = str(error)
        return (
            "raised",
            type(error).__name__,
            message.replace("minitorch.", "torch.") if torch_names else message,
        )


def describe(value, strides: bool = False, as_text: bool = False):
    """Tensors by shape (and `strides`), dtype and values (`as_text`: the values' text, so that
    NaN equals NaN and -0.0 differs from 0.0); sizes as tuples, dtypes by name; tuples item by
    item; text without the device of a cuda result when tests run on cuda (torch runs on the
    cpu)."""
    if isinstance(value, (minitorch.Tensor, torch.Tensor)):
        values = value.detach().numpy().tolist()
        layout = (tuple(value.shape), value.stride()) if strides else (tuple(value.shape),)
        dtype = str(value.dtype).split(".")[-1]
        return ("tensor", *layout, dtype, str(values) if as_text else values)
    if isinstance(value, (minitorch.Size, torch.Size)):
        return tuple(value)
    if isinstance(value, (minitorch.dtypes.DType, torch.dtype)):
        return str(value).split(".")[-1]
    if isinstance(value, (tuple, list)):
        return tuple(describe(v, strides, as_text) for v in value)
    if isinstance(value, str) and minitorch.get_default_device().type == "cuda":
        return value.replace(", device='cuda:0'", "")
    return value


def assert_same(
    function, quiet: bool = False, strides: bool = False, as_text: bool = False, torch_names=False
):
    """`function(minitorch)` and `function(torch)` give the same `describe`d result or error
    (`quiet`: with the warnings both may give silenced; the other options: `describe`'s and
    `outcome`'s)."""
    with warnings.catch_warnings():
        if quiet:
            warnings.simplefilter("ignore")
        ours, theirs = (
            describe(outcome(function, lib, torch_names), strides, as_text)
            for lib in (minitorch, torch)
        )
    assert ours == theirs, f"\nminitorch: {ours}\ntorch:     {theirs}"
