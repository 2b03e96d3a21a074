"""`minitorch.nn.utils.parametrizations`, as `torch.nn.utils.parametrizations`: weight
norm and spectral norm written as `parametrize` parametrizations (the weight is computed
on every access, from `parametrizations.weight.original0`/`original1` for weight norm and
`parametrizations.weight.original` for spectral norm); weight norm also loads the state
dicts of `nn.utils.weight_norm`.

>>> import minitorch
>>> layer = weight_norm(minitorch.nn.Linear(3, 2))
>>> list(layer.state_dict())
['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
"""

from __future__ import annotations

from ..._tensor import Tensor
from ...autograd import no_grad
from ...ops.normalization import normalize
from ...ops.normalization_groups import norm_except_dim
from ..module import Module
from . import parametrize
from .spectral_norm import (
    check_iterations,
    default_dim,
    normalized_into,
    random_unit,
    weight_matrix,
)
from .weight_norm import weight_from


class _WeightNorm(Module):
    """$w = g \\, v / \\|v\\|$ of the magnitude $g$ and direction $v$ it stores."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_from(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        """The magnitude $\\|w\\|$ (over every dim but `dim`) and the direction $w$."""
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Learn tensor `name` of `module` as a magnitude and a direction,
    $w = g \\, v / \\|v\\|$ (`original0` $g$, `original1` $v$), the norm over every dim but
    `dim` (`dim=None`: the whole tensor). Returns `module`."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def load_hook_form_keys(state_dict, prefix, *_) -> None:
        """A state dict of `nn.utils.weight_norm` holds `<name>_g` and `<name>_v`: they
        are `original0` and `original1` here."""
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            stored = f"{prefix}parametrizations.{name}.original"
            state_dict[stored + "0"] = state_dict.pop(g_key)
            state_dict[stored + "1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(load_hook_form_keys)
    return module


class _SpectralNorm(Module):
    """$w / \\sigma$, $\\sigma = u^T W v$ estimated by power iteration (the buffers `_u`,
    `_v`, 15 steps at the start, `n_power_iterations` more at each training forward:
    $u \\leftarrow W v / \\|W v\\|$, then $v \\leftarrow W^T u / \\|W^T u\\|$); a vector is
    divided by its norm."""

    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        check_iterations(n_power_iterations)
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            matrix = weight_matrix(weight, self.dim)
            height, width = matrix.shape
            self.register_buffer("_u", random_unit(height, weight, eps))
            self.register_buffer("_v", random_unit(width, weight, eps))
            self._power_method(matrix, 15)

    def _power_method(self, matrix: Tensor, n_power_iterations: int) -> None:
        with no_grad():
            for _ in range(n_power_iterations):
                normalized_into(self._u, matrix.mv(self._v), self.eps)
                normalized_into(self._v, matrix.T.mv(self._u), self.eps)

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        matrix = weight_matrix(weight, self.dim)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        return weight / u.dot(matrix.mv(v))

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Divide tensor `name` of `module` by its spectral norm, estimated by power iteration
    (`dim=None`: 1 for transposed convolutions, else 0). Returns `module`."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    dim = default_dim(module) if dim is None else dim
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module
