"""The keyword forms PyTorch accepts besides its own names: `axis=`, `keepdims=`, `input=`, `out=`.

PyTorch takes NumPy's spellings `axis=` and `keepdims=` for `dim=` and
`keepdim=`, names a function's operands `input` and `other`
(`torch.matmul(input=a, other=b)`), and writes the result of most functions
into a given tensor with `out=`. `torch_keywords` wraps a function of
`minitorch.ops` so that it takes them all; the function itself keeps its plain
signature.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import dtypes
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..tensors.base import TensorBase
from ..tensors.kernels import new_tensor, write_into

if TYPE_CHECKING:
    from .._tensor import Tensor

NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim"}


def torch_keywords(fn: Callable, operands: int = 0) -> Callable:
    """`fn` taking `axis=`/`keepdims=`, `input=` (and `other=` when `operands` is 2) for its
    first operands, and `out=`."""
    params = list(inspect.signature(fn).parameters)
    renames = dict(NUMPY_NAMES)
    renames.update(dict(zip(("input", "other"), params[:operands], strict=False)))

    @functools.wraps(fn)
    def call(*args, out: Tensor | None = None, **kwargs):
        if kwargs:  # most calls pass their operands by position: nothing to rename
            for alias, name in renames.items():
                if alias in kwargs and alias != name:
                    if name in kwargs:
                        raise TypeError(f"{fn.__name__}() got both {alias}= and {name}=")
                    kwargs[name] = kwargs.pop(alias)
        if out is None:
            return fn(*args, **kwargs)
        return written_out(fn, out, args, kwargs)

    return call


def written_out(fn: Callable, out: Tensor, args: tuple, kwargs: dict) -> Tensor:
    """`fn(*args, **kwargs)` written into `out`, with PyTorch's rules for `out=`.

    The result must be castable to `out`'s dtype; `out` of another shape is
    resized (with PyTorch's warning unless it was empty); nothing is recorded
    for autograd, which refuses inputs that require grad.
    """
    inputs = [*args, *kwargs.values()]
    if is_grad_enabled() and any(isinstance(x, TensorBase) and x.requires_grad for x in inputs):
        raise RuntimeError(
            f"{fn.__name__.removeprefix('tensor_')}(): functions with out=... arguments don't "
            "support automatic differentiation, but one of the arguments requires grad."
        )
    result = fn(*args, **kwargs)
    if not dtypes.can_cast(result.dtype, out.dtype):
        raise RuntimeError(
            f"result type {result.dtype.torch_scalar_name} can't be cast to the desired output "
            f"type {out.dtype.torch_scalar_name}"
        )
    if tuple(out.shape) != tuple(result.shape):
        if out.numel():
            warnings.warn(
                "An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape "
                f"{list(result.shape)}. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                "with t.resize_(0).",
                UserWarning,
                stacklevel=3,
            )
        out._layout = new_tensor(tuple(result.shape), out.dtype, out.device)._layout
    with no_grad():
        write_into(out, result)
    return out
