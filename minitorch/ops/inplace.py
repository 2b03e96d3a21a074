"""Writing into tensors in place: `add_`, `+=`, `mul_`, `exp_`, `fill_`, `copy_`, ...

An in-place operation computes its result with the function users call
(`add` for `add_`), checks it against PyTorch's in-place rules, writes it
into the tensor's storage and bumps the version counter that autograd
checks. With autograd on, the written tensor's history becomes the
result's; a write into a view gives its base a `CopySlices` node, as in PyTorch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes, operators
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import GraphContext
from ..backends import backend_for
from ..backends.fused import adam_settings, sgd_settings
from ..backends.tensor_data import TensorData, shape_broadcast
from ..tensors.base import TensorBase, inference_state, make_tensor
from ..tensors.creation import from_numpy, rng_of, tensor
from ..tensors.dual import dual_state, set_tangent, tangent_of
from ..tensors.kernels import (
    Number,
    alias,
    apply_map,
    new_tensor,
    scalar_tensor,
    view_of,
    write_into,
)
from ..tensors.strides import is_non_overlapping_and_dense
from .arithmetic import add, div, mul, sub
from .copies import Copy, to
from .functions import Op
from .public import public
from .views import Expand, t

if TYPE_CHECKING:
    from .._tensor import Tensor

# ---------------------------------------------------------------------------
# Writing in place: compute, check the dtype, write into the same storage.
# With autograd on, the written tensor's history is rebased onto the result
# (and a view's base gets a CopySlices node), as in PyTorch.
# ---------------------------------------------------------------------------


def inplace(a: Tensor, operation, *args, checked: bool = True, overlap_ok: bool = False) -> Tensor:
    """`a <- operation(a, *args)` in `a`'s storage; bumps `a`'s version counter.

    `checked`: PyTorch's in-place rules (the result must keep `a`'s shape and
    be castable to its dtype); copies (`copy_`, `fill_`, setitem) only broadcast.
    `overlap_ok`: `a` may have elements that share memory (`fill_` writes one value).
    """
    check_writable(a, overlap_ok)
    recording = is_grad_enabled() and (
        a.requires_grad or any(isinstance(x, TensorBase) and x.requires_grad for x in args)
    )
    if recording:
        check_inplace_allowed(a)
        # the operation may save its input for backward: give it the values before the write
        result = operation(snapshot(a), *args)
    else:
        result = operation(a, *args)
    if checked:
        check_inplace_result(a, result)
    if dual_state.level is not None:
        carry_tangent(a, result)
    write_into(a, result)
    if recording:
        rebase_history(a, result)
    return a


def carry_tangent(a: Tensor, result: Tensor) -> None:
    """Inside a dual level (forward-mode AD), `a` takes the tangent of what is written into
    it. A write into a view would change part of its base's tangent, which is not followed."""
    base = a._base
    if base is not None and (tangent_of(base) is not None or tangent_of(result) is not None):
        raise NotImplementedError(
            "forward-mode AD does not follow an in-place write into a view of a tensor: "
            "write out of place, or into a clone"
        )
    set_tangent(a, tangent_of(result))


def check_writable(a: Tensor, overlap_ok: bool = False) -> None:
    """Errors for memory that cannot be written: read-only NumPy memory, or (unless
    `overlap_ok`) elements that share one location, as an `expand`ed tensor's do."""
    if a._inference and not inference_state.enabled:
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
            "make a clone to get a normal tensor before doing inplace update.See "
            "https://github.com/pytorch/rfcs/pull/17 for more details."
        )
    storage = a._layout.storage
    if isinstance(storage, np.ndarray) and not storage.flags.writeable:
        raise RuntimeError(
            "cannot write into a tensor whose memory is read-only (from_numpy of a NumPy "
            "array that is not writeable): clone() it, or pass a writeable array"
        )
    if not overlap_ok and any(
        size > 1 and stride == 0 for size, stride in zip(a.shape, a.stride(), strict=True)
    ):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )


def check_inplace_allowed(a: Tensor) -> None:
    """PyTorch's errors for writing into a leaf that requires grad (or a view of one)."""
    if a.is_leaf and a._requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    base = a._base
    if base is not None and base.is_leaf and base._requires_grad:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )


def snapshot(a: Tensor) -> Tensor:
    """A copy of `a`'s values that stands for `a` in the graph (same `grad_fn`)."""
    copy = apply_map(operators.identity, a, a.dtype)
    copy.grad_fn = a.grad_fn
    return copy


def rebase_history(a: Tensor, result: Tensor) -> None:
    """After `a` was overwritten with `result`: `a`'s history is now `result`'s."""
    if a._base is None:
        a.grad_fn = result.grad_fn
        return
    base = a._base
    base.grad_fn = CopySlices.apply(base, result, region=a._layout).grad_fn
    a.grad_fn = AsStrided.apply(base, region=a._layout).grad_fn


def check_inplace_result(a: Tensor, result: Tensor) -> None:
    """An in-place result must have `a`'s shape and a dtype castable to `a`'s."""
    if not dtypes.can_cast(result.dtype, a.dtype):
        raise RuntimeError(
            f"result type {result.dtype.torch_scalar_name} can't be cast to the desired output "
            f"type {a.dtype.torch_scalar_name}"
        )
    if tuple(result.shape) != tuple(a.shape):
        raise RuntimeError(
            f"output with shape {list(a.shape)} doesn't match the broadcast shape "
            f"{list(result.shape)}"
        )


def copied_into(a: Tensor, source: Tensor) -> Tensor:
    """`source` broadcast to `a`'s shape and cast to its dtype (what `copy_` writes)."""
    return to(Expand.apply(source, sizes=tuple(a.shape)), a.dtype)


class CopySlices(Op):
    """The history of a tensor after an in-place write into its view `region`.

    Outside the region the tensor still holds its old values (their gradient
    flows to the old history); inside it holds `result` (its gradient flows there).
    """

    @staticmethod
    def forward(ctx: GraphContext, base: Tensor, result: Tensor, region: TensorData) -> Tensor:
        ctx.region, ctx.base_strides = region_in(base, region), dense_base_strides(base)
        return alias(base)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor, Tensor]:
        """$g$ outside the region to the old history, $g$ inside it to `result`"""
        grad_base = Copy.apply(grad, dtype=grad.dtype, strides=ctx.base_strides)
        in_region = region_of(grad_base, ctx.region)
        grad_result = in_region.clone()
        write_into(in_region, scalar_tensor(0, grad.dtype))
        return grad_base, grad_result


class AsStrided(Op):
    """A view `region` of `base` read again after an in-place write (its new history)."""

    @staticmethod
    def forward(ctx: GraphContext, base: Tensor, region: TensorData) -> Tensor:
        ctx.input_shape = tuple(base.shape)
        ctx.region, ctx.base_strides = region_in(base, region), dense_base_strides(base)
        return view_of(base, region)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ in the region of a zero tensor of the base's shape"""
        grad_base = new_tensor(ctx.input_shape, grad.dtype, grad.device)
        if ctx.base_strides is not None:  # laid out as the base, so that the region fits
            layout = TensorData(grad_base._layout.storage, ctx.input_shape, ctx.base_strides)
            grad_base = make_tensor(layout, grad.dtype, grad.device)
        write_into(region_of(grad_base, ctx.region), grad)
        return grad_base


def dense_base_strides(base: Tensor) -> tuple | None:
    """The strides a gradient for `base` needs for a region of `base` to fit it: None for
    row-major ones, `base`'s own where they are a permutation of row-major ones (a
    transposed copy); other layouts are refused."""
    if base.is_contiguous():
        return None
    if not is_non_overlapping_and_dense(tuple(base.shape), base.stride()):
        raise RuntimeError(
            "autograd cannot record an in-place write into a view of a non-contiguous tensor"
        )
    return base.stride()


def region_in(base: Tensor, region: TensorData) -> tuple:
    """(shape, strides, offset) of view `region` relative to its dense `base`."""
    return tuple(region.shape), tuple(region.strides), region.offset - base.storage_offset()


def region_of(t: Tensor, region: tuple) -> Tensor:
    """The view of `t`, laid out as the base was, at `region`, a (shape, strides, offset)
    from `region_in`."""
    shape, strides, offset = region
    return view_of(t, TensorData(t._layout.storage, shape, strides, offset))


# ---------------------------------------------------------------------------
# In-place operations: `add_`, `mul_`, ..., `fill_`, `copy_`, random fills
# ---------------------------------------------------------------------------


@public(torch=False)
def add_(a: Tensor, b, alpha: Number = 1) -> Tensor:
    """$a \\leftarrow a + \\alpha b$ in place."""
    if writes_directly(a, b, alpha):
        return zip_into(a, operators.add, b if alpha == 1 else mul(b, alpha))
    return inplace(a, add, b, alpha)


@public(torch=False)
def sub_(a: Tensor, b, alpha: Number = 1) -> Tensor:
    """$a \\leftarrow a - \\alpha b$ in place."""
    if writes_directly(a, b, alpha):
        return zip_into(a, operators.sub, b if alpha == 1 else mul(b, alpha))
    return inplace(a, sub, b, alpha)


@public(torch=False)
def mul_(a: Tensor, b) -> Tensor:
    """$a \\leftarrow a \\cdot b$ in place."""
    if writes_directly(a, b):
        return zip_into(a, operators.mul, b)
    return inplace(a, mul, b)


@public(torch=False)
def div_(a: Tensor, b) -> Tensor:
    """$a \\leftarrow a / b$ in place."""
    if writes_directly(a, b):
        return zip_into(a, operators.div, b)
    return inplace(a, div, b)


def writes_directly(a: Tensor, b, alpha: Number = 1) -> bool:
    """Whether `a <- a op alpha * b` can run as one zip kernel writing into `a` (`zip_into`):
    outside autograd's recording, `a` floating and `b` a Python number (with `alpha` 1) or
    a tensor of `a`'s dtype and device that broadcasts to `a`'s shape without sharing its
    storage. Otherwise `inplace` computes the result and then copies it in (and moves
    tangents along inside a dual level)."""
    if not a.dtype.is_floating_point or dual_state.level is not None:
        return False
    if isinstance(b, TensorBase):
        return (
            not (is_grad_enabled() and (a.requires_grad or b.requires_grad))
            and b.dtype is a.dtype
            and b.device == a.device
            and b._layout.storage is not a._layout.storage
            and tuple(shape_broadcast(tuple(a.shape), tuple(b.shape))) == tuple(a.shape)
        )
    return (
        isinstance(b, (int, float)) and alpha == 1 and not (is_grad_enabled() and a.requires_grad)
    )


def zip_into(a: Tensor, fn, b) -> Tensor:
    """$a_i \\leftarrow fn(a_i, b_i)$ in `a`'s storage (one pass, no temporary), `b` a number
    or a tensor that `writes_directly` accepted; bumps `a`'s version."""
    check_writable(a)
    b = b if isinstance(b, TensorBase) else scalar_tensor(b, a.dtype, a.device)
    backend_for(a.device).zip(fn, a._layout, a._layout, b._layout)
    a._bump_version()
    return a


@public(torch=False)
def fill_(a: Tensor, value: Number) -> Tensor:
    """Set every element of `a` to `value`."""
    if isinstance(value, TensorBase):
        if value.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.ndim} dimensions."
            )
        value = value.item()
    value = dtypes.checked(value, a.dtype)  # PyTorch's overflow error (300 into uint8)
    return inplace(a, copied_into, scalar_tensor(value, a.dtype), checked=False, overlap_ok=True)


@public(torch=False)
def zero_(a: Tensor) -> Tensor:
    """Set every element of `a` to 0."""
    return fill_(a, 0)


@public(torch=False)
def copy_(a: Tensor, source: Tensor) -> Tensor:
    """Copy `source` (broadcast to `a`'s shape, any dtype) into `a`."""
    source = source if isinstance(source, TensorBase) else tensor(source)
    return inplace(a, copied_into, source, checked=False)


@public(torch=False)
def t_(a: Tensor) -> Tensor:
    """Transpose `a` itself: its layout changes, its storage does not."""
    a._layout = t(a)._layout
    return a


@public(torch=False)
def uniform_(a: Tensor, low: float = 0.0, high: float = 1.0, *, generator=None) -> Tensor:
    """Fill `a` with samples from $U(low, high)$ drawn by `generator` (or the default one)."""
    return copy_samples(a, rng_of(generator).uniform(low, high, size=a.shape))


@public(torch=False)
def normal_(a: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    """Fill `a` with samples from $N(mean, std^2)$ drawn by `generator` (or the default one)."""
    return copy_samples(a, rng_of(generator).normal(mean, std, size=a.shape))


def copy_samples(a: Tensor, values: np.ndarray) -> Tensor:
    """Copy NumPy's `values` into `a`, in `a`'s dtype."""
    return copy_(a, from_numpy(np.asarray(values, dtype=a.dtype.numpy_dtype)))


# ---------------------------------------------------------------------------
# The updates optimizers write (`addcmul_`, `addcdiv_`, `lerp_`). Outside autograd,
# on operands of the tensor's dtype, they add their term straight into the tensor's storage
# (one temporary instead of three): an optimizer step runs them on every parameter.
# ---------------------------------------------------------------------------


@public(torch=False)
def addcmul_(a: Tensor, t1: Tensor, t2: Tensor, value: Number = 1) -> Tensor:
    """$a \\leftarrow a + \\mathrm{value} \\cdot t_1 t_2$ in place."""
    if updates_in_place(a, t1, t2):
        return add_scaled_into(a, mul(t1, t2), value)
    return inplace(a, plus_product, t1, t2, value)


@public(torch=False)
def addcdiv_(a: Tensor, t1: Tensor, t2: Tensor, value: Number = 1) -> Tensor:
    """$a \\leftarrow a + \\mathrm{value} \\cdot t_1 / t_2$ in place."""
    if updates_in_place(a, t1, t2):
        return add_scaled_into(a, div(t1, t2), value)
    return inplace(a, plus_quotient, t1, t2, value)


@public(torch=False)
def lerp_(a: Tensor, end: Tensor, weight) -> Tensor:
    """$a \\leftarrow a + w (\\mathrm{end} - a)$ in place (a step of `weight` towards `end`)."""
    if not isinstance(weight, TensorBase) and updates_in_place(a, end):
        return add_scaled_into(a, sub(end, a), weight)
    return inplace(a, lerped, end, weight)


def plus_product(a: Tensor, t1: Tensor, t2: Tensor, value: Number) -> Tensor:
    return add(a, mul(t1, t2), value)


def plus_quotient(a: Tensor, t1: Tensor, t2: Tensor, value: Number) -> Tensor:
    return add(a, div(t1, t2), value)


def lerped(a: Tensor, end: Tensor, weight) -> Tensor:
    return add(a, mul(sub(end, a), weight))


def updates_in_place(a: Tensor, *operands: Tensor) -> bool:
    """Whether an update of `a` from `operands` may be written straight into `a`'s storage.

    Autograd must not be recording it, and the operands must be tensors of `a`'s
    dtype and device, broadcasting to `a`'s shape, sharing no storage with the
    contiguous `a`; otherwise the update takes the general path of `inplace` (as it
    does inside a dual level, where tangents move along).
    """
    if dual_state.level is not None:
        return False
    if is_grad_enabled() and (a.requires_grad or any(x.requires_grad for x in operands)):
        return False
    if not a.is_contiguous():
        return False
    shape = tuple(a.shape)
    return all(
        isinstance(x, TensorBase)
        and x.dtype is a.dtype
        and x.device == a.device
        and x._layout.storage is not a._layout.storage
        and tuple(shape_broadcast(shape, tuple(x.shape))) == shape
        for x in operands
    )


def add_scaled_into(a: Tensor, term: Tensor, value: Number) -> Tensor:
    """$a \\leftarrow a + \\mathrm{value} \\cdot \\mathrm{term}$ in `a`'s storage; `term` is a
    temporary of `a`'s dtype (scaled in its own storage), broadcasting to `a`'s shape."""
    backend = backend_for(a.device)
    if value != 1:
        scale = scalar_tensor(value, term.dtype, term.device)
        backend.zip(operators.mul, term._layout, term._layout, scale._layout)
    backend.zip(operators.add, a._layout, a._layout, term._layout)
    a._bump_version()
    return a


# ---------------------------------------------------------------------------
# Fused optimizer steps: `torch._fused_adam_` and `torch._fused_adamw_`. A backend with the
# optional kernel `adam_step` (its math in `backends/fused.py`) makes one pass per parameter;
# on others the same update is composed from tensor operations on the device.
# ---------------------------------------------------------------------------


@public(method=False)
def _fused_adam_(
    self: list[Tensor],
    grads: list[Tensor],
    exp_avgs: list[Tensor],
    exp_avg_sqs: list[Tensor],
    max_exp_avg_sqs: list[Tensor],
    state_steps: list[Tensor],
    *,
    lr: float,
    beta1: float,
    beta2: float,
    weight_decay: float,
    eps: float,
    amsgrad: bool,
    maximize: bool,
    grad_scale: Tensor | None = None,
    found_inf: Tensor | None = None,
    decoupled_weight_decay: bool = False,
) -> None:
    """One Adam step of each parameter in `self`, in place, at the step counts `state_steps`
    (already incremented, as `torch.optim.Adam(fused=True)` does):

    $m \\leftarrow \\mathrm{lerp}(m, g, 1 - \\beta_1)$, $v \\leftarrow \\beta_2 v + (1 - \\beta_2)
    g^2$, $w \\leftarrow w - \\frac{\\mathrm{lr}}{1 - \\beta_1^t}
    \\frac{m}{\\sqrt{v} / \\sqrt{1 - \\beta_2^t} + \\epsilon}$ (with amsgrad, $v$'s running
    maximum in `max_exp_avg_sqs` under the root). Each parameter's tensors must be
    contiguous, of its shape, dtype and device.
    """
    if grad_scale is not None or found_inf is not None:
        raise NotImplementedError("minitorch's fused Adam takes no grad_scale or found_inf")
    options = (lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, decoupled_weight_decay)
    count = len(self)
    lists = (grads, exp_avgs, exp_avg_sqs, state_steps) + ((max_exp_avg_sqs,) if amsgrad else ())
    if any(len(tensors) != count for tensors in lists):
        raise RuntimeError("_fused_adam_: the tensor lists must all have the same length")
    for k in range(count):
        p = self[k]
        moments = [exp_avgs[k], exp_avg_sqs[k], max_exp_avg_sqs[k] if amsgrad else exp_avg_sqs[k]]
        check_fused_operands(p, [grads[k], *moments])
        settings = adam_settings(p.dtype.numpy_dtype, state_steps[k].item(), *options)
        layouts = [x._layout for x in (p, grads[k], *moments)]
        backend = backend_for(p.device)
        fused = backend.kernel("adam_step")
        if fused is not None:
            fused(*layouts, settings)
        else:  # the same update from tensor operations, on p's device, in PyTorch's order
            sign, l2, decay, weight1, beta2_, weight2, eps_, step_size, correction2, _ = (
                settings.tolist()  # the positions of `fused.adam_settings`
            )
            w, g, m, v, v_max = (x.detach() for x in (p, grads[k], *moments))
            g = g * sign + p.detach() * l2
            w = w * decay
            m = m + (g - m) * weight1 if weight1 < 0.5 else g - (g - m) * (1 - weight1)
            v = v * beta2_ + g * weight2 * g
            v_max = v_max.maximum(v) if amsgrad else v
            w = w + (m / (v_max.sqrt() / correction2 + eps_)) * -step_size
            for target, value in zip(layouts[:1] + layouts[2:], (w, m, v, v_max), strict=True):
                backend.map(operators.identity, target, value._layout)
        for written in {id(x): x for x in (p, *moments)}.values():
            written._bump_version()


@public(method=False)
def _fused_adamw_(self: list[Tensor], *lists: list[Tensor], **options) -> None:
    """`_fused_adam_` with decoupled weight decay (AdamW):
    $w \\leftarrow (1 - \\mathrm{lr}\\,\\lambda) w$ instead of $g \\leftarrow g + \\lambda w$."""
    _fused_adam_(self, *lists, **options, decoupled_weight_decay=True)


@public(method=False)
def _fused_sgd_(
    self: list[Tensor],
    grads: list[Tensor],
    momentum_buffer_list: list[Tensor],
    *,
    weight_decay: float,
    momentum: float,
    lr: float,
    dampening: float,
    nesterov: bool,
    maximize: bool,
    is_first_step: bool,
    grad_scale: Tensor | None = None,
    found_inf: Tensor | None = None,
) -> None:
    """One SGD step of each parameter in `self`, in place (as `torch.optim.SGD(fused=True)`):

    $g \\leftarrow \\pm g + \\lambda w$, $b \\leftarrow \\mu b + (1 - \\tau) g$ ($b = g$ when
    `is_first_step`), $w \\leftarrow w - \\mathrm{lr}\\, d$ with $d = b$, or $g + \\mu b$ with
    `nesterov`, or $g$ without momentum (`momentum_buffer_list` is then empty). Each
    parameter's tensors must be contiguous, of its shape, dtype and device.
    """
    if grad_scale is not None or found_inf is not None:
        raise NotImplementedError("minitorch's fused SGD takes no grad_scale or found_inf")
    options = (lr, momentum, dampening, weight_decay, nesterov, maximize, is_first_step)
    buffers = momentum_buffer_list if momentum != 0 else grads
    if len(grads) != len(self) or len(buffers) != len(self):
        raise RuntimeError("_fused_sgd_: the tensor lists must all have the same length")
    for p, g, b in zip(self, grads, buffers, strict=True):
        check_fused_operands(p, [g, b])
        settings = sgd_settings(p.dtype.numpy_dtype, *options)
        backend = backend_for(p.device)
        fused = backend.kernel("sgd_step")
        if fused is not None:
            fused(p._layout, g._layout, b._layout, settings)
        else:  # the same update from tensor operations, on p's device, in SGD's order
            sign, decay, mu, keep, _, _, neg_lr = settings.tolist()  # `fused.sgd_settings`
            g = g.detach() * sign + (p.detach() * decay if weight_decay != 0 else 0)
            direction = g
            if momentum != 0:
                new_b = g if is_first_step else b.detach() * mu + g * keep
                backend.map(operators.identity, b._layout, new_b._layout)
                direction = g + b.detach() * mu if nesterov else b
            backend.map(operators.identity, p._layout, (p.detach() + direction * neg_lr)._layout)
        for written in (p, b) if momentum != 0 else (p,):
            written._bump_version()


def check_fused_operands(p: Tensor, operands: list[Tensor]) -> None:
    """A fused step's tensors: floating, contiguous, with the parameter's shape, dtype and
    device; the parameter outside autograd's recording and writable."""
    check_writable(p)
    if is_grad_enabled() and p.requires_grad:
        check_inplace_allowed(p)
    for x in (p, *operands):
        if not isinstance(x, TensorBase):
            raise TypeError(f"a fused optimizer step takes tensors, got {type(x).__name__}")
        if not x.dtype.is_floating_point or not x.is_contiguous():
            raise RuntimeError("a fused optimizer step needs contiguous floating point tensors")
        if x.dtype is not p.dtype or x.device != p.device or tuple(x.shape) != tuple(p.shape):
            raise RuntimeError(
                "a fused optimizer step needs each parameter's gradient and state to have its "
                f"shape, dtype and device: {list(p.shape)} {p.dtype} {p.device} against "
                f"{list(x.shape)} {x.dtype} {x.device}"
            )
