"""Loss functions: how far a prediction is from its target, as one number to minimise.

Each loss with a node of its own in PyTorch is an `Op` here, forward and backward side by
side: `NllLoss` (the negative log-likelihood of the target classes), `BinaryCrossEntropy`
and `BinaryCrossEntropyWithLogits`; the regression losses are in `regression_losses.py`.
The losses PyTorch composes from other operations (`cross_entropy`, `l1_loss`) are composed
here the same way, so their graphs and `grad_fn`s are PyTorch's. Every function checks its
arguments as PyTorch does and combines the per-element losses as `reduction=` says:
"mean", "sum" or "none".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import GraphContext
from ..backends import backend_for
from ..backends.tensor_data import TensorData, prod, shape_broadcast
from ..tensors.base import make_tensor
from ..tensors.creation import arange
from ..tensors.kernels import new_tensor
from ..tensors.shapes import not_implemented
from .functions import Op
from .public import public
from .reductions import log_softmax, softmax

if TYPE_CHECKING:
    from .._tensor import Tensor

REDUCTIONS = ("mean", "sum", "none")


def check_reduction(reduction: str) -> None:
    """PyTorch's ValueError for a `reduction=` that is not mean, sum or none."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def reduce_loss(losses: Tensor, reduction: str) -> Tensor:
    """Per-element losses combined as `reduction` says: their mean, their sum, or all of them."""
    if reduction == "mean":
        return losses.mean()
    return losses.sum() if reduction == "sum" else losses


def loss_scale(losses: Tensor, reduction: str) -> float:
    """$\\partial\\,\\text{reduced} / \\partial\\,\\text{loss}_i$: $1/n$ for the mean, else 1."""
    return 1.0 / losses.numel() if reduction == "mean" and losses.numel() else 1.0


# ---------------------------------------------------------------------------
# The negative log-likelihood of class indices (and cross-entropy, built on it)
# ---------------------------------------------------------------------------


def target_mask(input: Tensor, target: Tensor) -> Tensor:
    """True where the class (dim 1 of `input`, dim 0 when 1-D) is the sample's target.

    A one-hot table made by comparing the targets with $0, 1, \\ldots, C-1$: one kernel for
    all samples, no loop over them.
    """
    class_dim = 1 if input.ndim > 1 else 0
    sizes = [1] * input.ndim
    sizes[class_dim] = input.shape[class_dim]
    classes = arange(input.shape[class_dim], device=input.device).view(sizes)
    return target.unsqueeze(class_dim) == classes


def target_weights(mask: Tensor, weight: Tensor | None, kept: Tensor, dtype) -> Tensor:
    """$w_{t_i}$ for every sample, 0 for an ignored one (`kept` False)."""
    class_dim = 1 if mask.ndim > 1 else 0
    if weight is None:
        return kept.to(dtype)
    sizes = [1] * mask.ndim
    sizes[class_dim] = weight.numel()
    chosen = weight.view(sizes).where(mask, 0.0).sum(class_dim)
    return chosen.where(kept, 0.0)


class NllLoss(Op):
    """$\\ell_i = -w_{t_i} x_{i, t_i}$: the log-probability `input` gives each target class.

    `kind` is PyTorch's name of the operation, "NllLoss" or "NllLoss2D" (for 4-D inputs),
    which names the node.
    """

    @staticmethod
    def forward(
        ctx: GraphContext,
        input: Tensor,
        target: Tensor,
        weight: Tensor | None,
        reduction: str,
        ignore_index: int,
        kind: str,
    ) -> Tensor:
        """$-w_{t_i} x_{i, t_i}$ per sample; the mean divides by $\\sum_i w_{t_i}$"""
        # BEGIN SOLUTION 4.5
        class_dim = 1 if input.ndim > 1 else 0
        kept = target != ignore_index
        mask = target_mask(input, target) & kept.unsqueeze(class_dim)
        weights = target_weights(mask, weight, kept, input.dtype)
        picked = input.where(mask, 0.0).sum(class_dim)
        losses = (-picked * weights).where(kept, 0.0)
        total_weight = weights.sum()
        ctx.save_for_backward(mask, weights, total_weight)
        ctx.reduction = reduction
        if reduction == "mean":
            return losses.sum() / total_weight
        return losses.sum() if reduction == "sum" else losses
        # END SOLUTION 4.5

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor, None, None]:
        """$-w_{t_i} g$ at the target class of each sample, 0 at the others"""
        # BEGIN SOLUTION 4.5
        mask, weights, total_weight = ctx.saved_tensors
        class_dim = 1 if mask.ndim > 1 else 0
        if ctx.reduction == "mean":
            grad = grad / total_weight
        d_input = (-weights * grad).unsqueeze(class_dim).where(mask, 0.0)
        return d_input, None, None
        # END SOLUTION 4.5


def check_nll_arguments(input: Tensor, target: Tensor, weight: Tensor | None) -> None:
    """PyTorch's checks of `nll_loss`'s arguments (shapes, dtypes, class range)."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim > 1:
        batch = target.shape[0] if target.ndim else 0
        if input.shape[0] != batch:
            raise ValueError(
                f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                f"({batch})."
            )
    if input.ndim == 3 or input.ndim > 4:
        if tuple(target.shape[1:]) != tuple(input.shape[2:]):
            raise RuntimeError(
                f"Expected target size {[input.shape[0], *input.shape[2:]]}, "
                f"got {list(target.shape)}"
            )
    elif input.ndim == 4 and target.ndim != 3:
        raise RuntimeError(
            "only batches of spatial targets supported (3D tensors) but got targets of "
            f"dimension: {target.ndim}"
        )
    elif input.ndim <= 2 and target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.dtype is not dtypes.int64:
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {target.dtype.torch_scalar_name}"
        )
    if input.ndim == 1 and target.ndim == 1 and target.shape[0] != 1:
        raise ValueError(
            f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}"
        )
    if input.ndim == 4 and tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(
            f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}"
        )
    if not input.dtype.is_floating_point:
        raise not_implemented("nll_loss_out_frame", input.dtype)
    classes = input.shape[1 if input.ndim > 1 else 0]
    if weight is not None:
        if weight.numel() != classes:
            raise RuntimeError(
                f"weight tensor should be defined either for all {classes} classes or no "
                f"classes but got weight tensor of shape: {list(weight.shape)}"
            )
        if weight.dtype is not input.dtype:
            raise RuntimeError(
                f"expected scalar type {input.dtype.torch_scalar_name} but found "
                f"{weight.dtype.torch_scalar_name}"
            )


def check_class_range(target: Tensor, classes: int, ignore_index: int) -> None:
    """IndexError "Target 5 is out of bounds." for the first target outside $[0, C)$."""
    outside = ((target < 0) | (target >= classes)) & (target != ignore_index)
    if outside.any().item():
        first = outside.reshape(-1).long().argmax().item()
        raise IndexError(f"Target {target.reshape(-1)[first].item()} is out of bounds.")


@public(torch=False, method=False, functional=True)
def nll_loss(
    input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index=-100, reduction="mean"
) -> Tensor:
    """The negative log-likelihood $-w_{t_i} x_{i, t_i}$ of class indices `target`, from
    log-probabilities `input` of shape (C), (N, C) or (N, C, d1, ...).

    Targets equal to `ignore_index` count for nothing; "mean" divides by the summed weights
    of the other targets, as PyTorch does.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.nll_loss(minitorch.tensor([[-0.5, -1.0], [-2.0, -0.1]]), minitorch.tensor([0, 1]))
    tensor(0.3000)
    """
    check_reduction(reduction)
    check_nll_arguments(input, target, weight)
    check_class_range(target, input.shape[1 if input.ndim > 1 else 0], ignore_index)
    settings = {"reduction": reduction, "ignore_index": ignore_index}
    if input.ndim == 1:
        target = target.reshape(())  # one sample: a (1,) target is its class, as a 0-D one
    if input.ndim <= 2:
        return NllLoss.apply(input, target, weight, kind="NllLoss", **settings)
    if input.ndim == 4:
        return NllLoss.apply(input, target, weight, kind="NllLoss2D", **settings)
    # Other shapes go through the 4-D version, (N, C, 1, d) with d = d1 * d2 * ...
    n, c = input.shape[0], input.shape[1]
    rest = prod(input.shape[2:])
    flat_input = input.contiguous().view(n, c, 1, rest)
    flat_target = target.contiguous().view(n, 1, rest)
    out = NllLoss.apply(flat_input, flat_target, weight, kind="NllLoss2D", **settings)
    return out.view(n, *input.shape[2:]) if reduction == "none" else out


class DivNumber(Op):
    """$a / n$ for a Python number $n$, recorded as PyTorch's C++ code records it."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, number: float) -> Tensor:
        ctx.number = number
        return a / number

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        return grad / ctx.number


def check_label_smoothing(label_smoothing: float) -> None:
    """PyTorch's check: above 1 is an error; 0 or below means no smoothing."""
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")


@public(torch=False, method=False, functional=True)
def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """$-\\ln \\mathrm{softmax}(x_i)_{t_i}$: the negative log-likelihood of the
    log-softmax of the logits `input` (classes on dim 1, or dim 0 when 1-D).

    `target` holds class indices (int64, shape (N) or (N, d1, ...)) or, with the shape of
    `input`, class probabilities. `label_smoothing` $\\varepsilon$ mixes the target with the
    uniform distribution: $(1 - \\varepsilon)\\,\\text{target} + \\varepsilon / C$.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.cross_entropy(minitorch.tensor([[2.0, 0.0], [0.0, 0.0]]), minitorch.tensor([0, 1]))
    tensor(0.4100)
    """
    check_reduction(reduction)
    class_dim = 1 if input.ndim > 1 else 0
    if tuple(input.shape) == tuple(target.shape):
        return cross_entropy_probabilities(
            input, target, weight, ignore_index, reduction, label_smoothing
        )
    check_label_smoothing(label_smoothing)
    fused = fused_cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)
    if fused is not None:
        return fused
    log_probs = log_softmax(input, class_dim)
    nll = nll_loss(log_probs, target, weight, ignore_index, reduction)
    if label_smoothing <= 0.0:
        return nll
    # PyTorch's smoothing term: $-\sum_c w_c \ln p_c$ per sample, 0 for ignored targets.
    classes = input.shape[class_dim]
    weighted = log_probs
    if weight is not None:
        sizes = [1] * input.ndim
        sizes[class_dim] = classes
        weighted = log_probs * weight.view(sizes)
    kept = target != ignore_index
    smooth = (-weighted.sum(class_dim)).where(kept, 0.0)
    if reduction == "mean":
        mask = target_mask(input, target)
        smooth = smooth.sum() / target_weights(mask, weight, kept, input.dtype).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / classes)


def cross_entropy_probabilities(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None,
    ignore_index: int,
    reduction: str,
    label_smoothing: float,
) -> Tensor:
    """$-\\sum_c w_c\\, y_{i,c} \\ln \\mathrm{softmax}(x_i)_c$ for class probabilities $y$."""
    if not target.dtype.is_floating_point:
        raise RuntimeError(
            "Expected floating point type for target with class probabilities, got "
            f"{target.dtype.torch_scalar_name}"
        )
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    check_label_smoothing(label_smoothing)
    class_dim = 1 if input.ndim > 1 else 0
    classes = input.shape[class_dim] if input.ndim else 1
    if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
        raise RuntimeError(
            f"cross_entropy: weight tensor should be defined either for all {classes} classes "
            f"or no classes but got weight tensor of shape: {list(weight.shape)}"
        )
    products = log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    products = products * target
    if weight is not None:
        sizes = [1] * input.ndim
        sizes[class_dim] = classes
        products = products * weight.view(sizes)
    if reduction == "none":
        return -products.sum(class_dim)
    total = -products.sum()
    if reduction == "sum":
        return total
    samples = input.numel() // classes if input.numel() else 0
    return DivNumber.apply(total, number=samples if samples else float("nan"))


# ---------------------------------------------------------------------------
# Softmax cross-entropy in one pass each way (a backend's optional kernels)
# ---------------------------------------------------------------------------


class SoftmaxCrossEntropy(Op):
    """`cross_entropy` of logits (N, C) and class indices in one kernel call each way.

    Forward: each row's $L_i = \\ln \\sum_c e^{x_{ic}}$ and loss, read from the row once
    (`backends/fused.py`), $L_i$ kept; backward: with $p_{ic} = e^{x_{ic} - L_i}$ and
    $W = \\sum_c w_c$, $s_i [(1 - \\varepsilon) w_{t_i} (p_{ic} - [c = t_i])
    + \\frac{\\varepsilon}{C} (W p_{ic} - w_c)]$, $s_i$ the upstream gradient (over
    $\\sum_i w_{t_i}$ for the mean). With `create_graph=True` the backward composes the same
    formula from tensor operations (`composed_cross_entropy_grad`), so it differentiates again.
    """

    @classmethod
    def node_name(cls, *inputs, label_smoothing: float, **settings) -> str:
        """The node PyTorch's composition ends in: NllLoss's, or the smoothing's sum."""
        return "AddBackward0" if label_smoothing > 0 else "NllLossBackward0"

    @staticmethod
    def forward(ctx, input, target, weight, reduction, ignore_index, label_smoothing) -> Tensor:
        logits, target = input.contiguous(), target.contiguous()
        weight = None if weight is None else weight.contiguous()
        device, rows = input.device, input.shape[0]
        losses = new_tensor((rows,), input.dtype, device)
        lse = new_tensor((rows,), dtypes.float64, device)
        totals = new_tensor((2,), input.dtype, device)  # the reduced loss, $\\sum_i w_{t_i}$
        ctx.settings = (ignore_index, label_smoothing, reduction == "mean")
        layouts = [t if t is None else t._layout for t in (logits, target, weight)]
        kernel = backend_for(device).kernel("cross_entropy")
        bad = kernel(losses._layout, lse._layout, totals._layout, *layouts, *ctx.settings)
        if bad >= 0:
            raise IndexError(f"Target {target[bad].item()} is out of bounds.")
        ctx.save_for_backward(input, target, weight, lse, totals)
        if reduction == "none":
            return losses
        return make_tensor(TensorData.contiguous(totals._layout.storage, ()), input.dtype, device)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor, None, None]:
        logits, target, weight, lse, totals = ctx.saved_tensors
        if is_grad_enabled():  # backward(create_graph=True): the same, differentiable
            return composed_cross_entropy_grad(logits, target, weight, grad, totals, *ctx.settings)
        logits = logits.contiguous()
        grad_logits = new_tensor(logits.shape, logits.dtype, logits.device)
        layouts = [t if t is None else t._layout for t in (logits, target, weight, lse, totals)]
        backend_for(grad.device).kernel("cross_entropy_backward")(
            grad_logits._layout, grad.contiguous()._layout, *layouts, *ctx.settings
        )
        return grad_logits, None, None


def composed_cross_entropy_grad(
    logits, target, weight, grad, totals, ignore_index: int, smoothing: float, mean: bool
) -> tuple[Tensor, None, None]:
    """`SoftmaxCrossEntropy`'s gradient from tensor operations, which record a graph:
    $s_i [(1 - \\varepsilon) w_{t_i} (p_i - e_{t_i}) + \\frac{\\varepsilon}{C} [t_i \\ne
    \\text{ignore}] (W p_i - w)]$ with $p_i = \\mathrm{softmax}(x_i)$, $e_t$ one-hot and $s_i$
    the upstream gradient (over $\\sum_i w_{t_i}$, `totals[1]`, for the mean)."""
    classes = logits.shape[1]
    kept = target != ignore_index
    mask = target_mask(logits, target)
    chosen = target_weights(mask, weight, kept, logits.dtype).unsqueeze(1)
    probs = softmax(logits, 1)
    term = (1 - smoothing) * chosen * (probs - mask.to(logits.dtype))
    if smoothing > 0:
        w = weight if weight is not None else probs.new_ones(classes)
        spread = w.sum() * probs - w
        term = term + (smoothing / classes) * spread.where(kept.unsqueeze(1), 0.0)
    scale = grad.unsqueeze(1) if grad.ndim == 1 else grad
    if mean:
        scale = scale / totals[1]
    return term * scale, None, None


def fused_cross_entropy(
    input: Tensor, target: Tensor, weight, ignore_index: int, reduction: str, smoothing: float
) -> Tensor | None:
    """`SoftmaxCrossEntropy` where it applies: floating (N, C) logits, a target (N) and class
    weights (or None) that need no gradient, on one device whose backend has the kernels;
    None otherwise (`cross_entropy` then composes `log_softmax` and `nll_loss`). The
    arguments are checked as `nll_loss` checks them; a target out of range raises its error."""
    backend = backend_for(input.device)
    if (
        input.ndim != 2
        or target.ndim != 1
        or input.dtype not in (dtypes.float32, dtypes.float64)
        or target.device != input.device
        or (weight is not None and (weight.requires_grad or weight.device != input.device))
        or backend.kernel("cross_entropy") is None
        or backend.kernel("cross_entropy_backward") is None
    ):
        return None
    check_nll_arguments(input, target, weight)
    settings = {"reduction": reduction, "ignore_index": ignore_index}
    return SoftmaxCrossEntropy.apply(
        input, target, weight, **settings, label_smoothing=max(smoothing, 0.0)
    )


# ---------------------------------------------------------------------------
# Binary cross-entropy
# ---------------------------------------------------------------------------


class BinaryCrossEntropy(Op):
    """$-w [y \\ln p + (1 - y) \\ln(1 - p)]$, each logarithm clamped at $-100$ as in PyTorch
    (so $p = 0$ or $1$ costs 100, never $\\infty$)."""

    @staticmethod
    def forward(ctx, p: Tensor, y: Tensor, weight: Tensor | None, reduction: str) -> Tensor:
        log_p = p.log().clamp(min=-100.0)
        log_not_p = (1 - p).log().clamp(min=-100.0)
        losses = -(y * log_p + (1 - y) * log_not_p)
        if weight is not None:
            losses = losses * weight
        ctx.save_for_backward(p, y, weight)
        ctx.scale = loss_scale(losses, reduction)
        return reduce_loss(losses, reduction)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None]:
        """$\\partial/\\partial p = w (p - y) / \\max(p (1 - p), 10^{-12})$,
        $\\partial/\\partial y = -w \\ln(p / (1 - p))$"""
        p, y, weight = ctx.saved_tensors
        grad = grad * ctx.scale
        if weight is not None:
            grad = grad * weight
        d_p = d_y = None
        if ctx.needs_input_grad[0]:
            d_p = grad * (p - y) / (p * (1 - p)).clamp(min=1e-12)
        if ctx.needs_input_grad[1]:
            d_y = -grad * (p / (1 - p)).log()
        return d_p, d_y, None


@public(torch=False, method=False, functional=True)
def binary_cross_entropy(
    input: Tensor, target: Tensor, weight: Tensor | None = None, reduction: str = "mean"
) -> Tensor:
    """$-w [y \\ln p + (1 - y) \\ln(1 - p)]$ of probabilities $p$ (`input`) against $y$.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.binary_cross_entropy(minitorch.tensor([0.0, 0.5]), minitorch.tensor([1.0, 1.0]))
    tensor(50.3466)
    """
    check_reduction(reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    if target.dtype is not input.dtype:
        raise RuntimeError(
            f"Found dtype {target.dtype.torch_scalar_name} but expected "
            f"{input.dtype.torch_scalar_name}"
        )
    if not input.dtype.is_floating_point:
        raise not_implemented("binary_cross_entropy", input.dtype)
    if ((input < 0) | (input > 1)).any().item():
        raise RuntimeError("all elements of input should be between 0 and 1")
    if weight is not None:
        weight = weight.expand(input.shape)
    return BinaryCrossEntropy.apply(input, target, weight, reduction=reduction)


class BinaryCrossEntropyWithLogits(Op):
    """$(1 - y) z - (1 + (q - 1) y) \\ln \\sigma(z)$ times $w$, from logits $z$, with
    `pos_weight` $q$ (1 when None) scaling the positive term.

    $\\ln \\sigma(z) = \\min(z, 0) - \\ln(1 + e^{-|z|})$ never overflows and never takes
    $\\ln 0$. Backward: $\\partial/\\partial z = w [(1 + (q - 1) y) \\sigma(z) - q y]$,
    $\\partial/\\partial y = w [\\ln \\sigma(-z) - q \\ln \\sigma(z)]$.
    """

    @staticmethod
    def forward(ctx, z: Tensor, y: Tensor, weight, pos_weight, reduction: str) -> Tensor:
        log_sigmoid = z.clamp(max=0.0) - ((-z.abs()).exp() + 1).log()
        if pos_weight is not None:
            log_sigmoid = log_sigmoid * ((pos_weight - 1) * y + 1)
        losses = (1 - y) * z - log_sigmoid
        if weight is not None:
            losses = losses * weight
        ctx.save_for_backward(z, y, weight, pos_weight)
        ctx.scale = loss_scale(losses, reduction)
        return reduce_loss(losses, reduction)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor | None, ...]:
        z, y, weight, pos_weight = ctx.saved_tensors
        grad = grad * ctx.scale
        if weight is not None:
            grad = grad * weight
        d_z = d_y = None
        if ctx.needs_input_grad[0]:
            if pos_weight is None:
                d_z = (z.sigmoid() - y) * grad
            else:
                positive = pos_weight * y
                d_z = ((positive + 1 - y) * z.sigmoid() - positive) * grad
        if ctx.needs_input_grad[1]:
            if pos_weight is None:
                d_y = -z * grad
            else:
                log_sigmoid = z.clamp(max=0.0) - ((-z.abs()).exp() + 1).log()
                d_y = (log_sigmoid - z - pos_weight * log_sigmoid) * grad
        return d_z, d_y, None, None


@public(torch=False, method=False, functional=True)
def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """The binary cross-entropy of $\\sigma(z)$ against `target`, computed from the logits $z$
    (`input`) without ever taking $\\ln 0$; `target` must have the shape of `input`.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.binary_cross_entropy_with_logits(minitorch.tensor([0.0, 50.0]), minitorch.ones(2))
    tensor(0.3466)
    """
    check_reduction(reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    if not target.dtype.is_floating_point:
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type "
            f"{target.dtype.torch_scalar_name}"
        )
    if pos_weight is not None:  # PyTorch's broadcasting errors, in its order
        shape_broadcast(tuple(pos_weight.shape), tuple(target.shape))
    if weight is not None:
        shape_broadcast(tuple(target.shape), tuple(weight.shape))
    return BinaryCrossEntropyWithLogits.apply(
        input, target, weight, pos_weight, reduction=reduction
    )
