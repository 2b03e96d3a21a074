"""`LayerNorm`, as in `torch.nn.modules.normalization` (the other norms of that module are
in `normalization_groups.py`)."""

from __future__ import annotations

from ..._tensor import Tensor
from ...tensors.creation import ones, zeros
from .. import functional as F
from ..module import Module
from ..parameter import Parameter
from .function_layer import options_repr


def register_affine(module: Module, shape: tuple, weight: bool, bias: bool | None, device, dtype):
    """Register a norm's $\\gamma$ (`weight`, ones of `shape`) and $\\beta$ (`bias`, zeros):
    each a parameter when learned, else an empty slot, as PyTorch keeps them; `bias=None` is a
    norm without $\\beta$."""
    kinds = {"dtype": dtype, "device": device}
    module.register_parameter("weight", Parameter(ones(*shape, **kinds)) if weight else None)
    if bias is not None:
        module.register_parameter("bias", Parameter(zeros(*shape, **kinds)) if bias else None)


def set_up_shape_norm(module: Module, shape, eps, affine: bool, bias: bool | None, device, dtype):
    """Set `normalized_shape` (`shape` as a tuple; an int is one dim), `eps` and
    `elementwise_affine` (`affine`) on a norm over the last dims, and register its $\\gamma$
    and $\\beta$ (`register_affine`; `bias=None`: a norm without $\\beta$)."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    module.normalized_shape, module.eps, module.elementwise_affine = shape, eps, affine
    register_affine(module, shape, affine, None if bias is None else affine and bias, device, dtype)


def shape_norm_repr(module: Module) -> str:
    """`normalized_shape, eps=..., elementwise_affine=...`, as torch's reprs of those norms."""
    return f"{module.normalized_shape}, " + options_repr(module, ("eps", "elementwise_affine"))


class LayerNorm(Module):
    """$\\gamma (x - \\mu) / \\sqrt{\\sigma^2 + \\epsilon} + \\beta$ over the last dims of each
    sample, those of `normalized_shape` (`F.layer_norm`).

    $\\gamma$ (`weight`, ones) and $\\beta$ (`bias`, zeros) have shape `normalized_shape` and
    are learned when `elementwise_affine`; `bias=False` keeps only $\\gamma$.

    >>> import minitorch
    >>> minitorch.nn.LayerNorm(2)
    LayerNorm((2,), eps=1e-05, elementwise_affine=True, bias=True)
    >>> minitorch.nn.LayerNorm(2)(minitorch.tensor([[1.0, 3.0]]))
    tensor([[-1.0000,  1.0000]], grad_fn=<NativeLayerNormBackward0>)
    """

    def __init__(
        self,
        normalized_shape,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        set_up_shape_norm(self, normalized_shape, eps, elementwise_affine, bias, device, dtype)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return shape_norm_repr(self) + f", bias={self.bias is not None}"
