"""`spectral_norm` and `remove_spectral_norm`, as `torch.nn.utils.spectral_norm`: a weight
divided by its largest singular value $\\sigma$, $w = w_\\text{orig} / \\sigma$ (Miyato et
al., 2018), recomputed by a forward pre-hook before each `forward`.

$\\sigma = u^T W v$ is estimated by power iteration on the weight seen as a matrix $W$ (dim
`dim` as its rows): in training each forward runs `n_power_iterations` steps
$v \\leftarrow W^T u / \\|W^T u\\|$, $u \\leftarrow W v / \\|W v\\|$, the vectors kept as the
buffers `<name>_u` and `<name>_v` between calls; no gradient flows through them.

>>> import minitorch
>>> layer = spectral_norm(minitorch.nn.Linear(3, 2))
>>> list(layer.state_dict())
['bias', 'weight_orig', 'weight_u', 'weight_v']
"""

from __future__ import annotations

from ..._tensor import Tensor
from ...autograd import no_grad
from ...ops.normalization import normalize
from ...tensors.creation import randn
from ..module import Module
from ..parameter import Parameter
from .weight_norm import refuse_second_hook, remove_hook


def weight_matrix(weight: Tensor, dim: int) -> Tensor:
    """`weight` as a matrix: dim `dim` as its rows, the other dims flattened in order."""
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.ndim) if d != dim))
    return weight.reshape(weight.shape[0], -1)


def normalized_into(target: Tensor, value: Tensor, eps: float) -> Tensor:
    """`target` (a buffer, in place) $\\leftarrow$ `value` / max(‖value‖, eps)."""
    return target.copy_(normalize(value, dim=0, eps=eps))


def default_dim(module: Module) -> int:
    """The dim of the output channels: 1 for a transposed convolution, else 0."""
    transposed = ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
    return 1 if any(cls.__name__ in transposed for cls in type(module).__mro__) else 0


def check_iterations(n_power_iterations: int) -> None:
    if n_power_iterations <= 0:
        raise ValueError(
            "Expected n_power_iterations to be positive, but "
            f"got n_power_iterations={n_power_iterations}"
        )


def random_unit(size: int, like: Tensor, eps: float) -> Tensor:
    """A random direction of `size` elements, of `like`'s dtype and device."""
    return normalize(randn(size, dtype=like.dtype, device=like.device), dim=0, eps=eps)


class SpectralNorm:
    """The forward pre-hook that recomputes `module.<name>` from `<name>_orig`."""

    def __init__(self, name: str, n_power_iterations: int, dim: int, eps: float) -> None:
        check_iterations(n_power_iterations)
        self.name = name
        self.dim = dim
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        """$w_\\text{orig} / (u^T W v)$, after the power iteration steps when asked."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        matrix = weight_matrix(weight, self.dim)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    normalized_into(v, matrix.T.mv(u), self.eps)
                    normalized_into(u, matrix.mv(v), self.eps)
            u, v = u.clone(), v.clone()
        return weight / u.dot(matrix.mv(v))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float):
        """Move parameter `name` of `module` to `<name>_orig` and start $u$, $v$ at random."""
        refuse_second_hook(module, SpectralNorm, name, "spectral_norm")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            height, width = weight_matrix(weight, dim).shape
            u, v = random_unit(height, weight, eps), random_unit(width, weight, eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        setattr(module, name, weight.data)
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        """Put back parameter `name`, holding the weight the current $u$, $v$ give."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Divide parameter `name` of `module` by its spectral norm before each `forward` (see
    the module docstring); `dim=None` is 1 for transposed convolutions, else 0. Returns
    `module`."""
    SpectralNorm.apply(
        module, name, n_power_iterations, default_dim(module) if dim is None else dim, eps
    )
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo `spectral_norm`: parameter `name` again, holding $w_\\text{orig} / \\sigma$."""
    return remove_hook(module, SpectralNorm, name, "spectral_norm")
