"""`weight_norm` and `remove_weight_norm`, as `torch.nn.utils.weight_norm`: a weight
$w = g \\, v / \\|v\\|$ learned as its magnitude $g$ (`weight_g`) and direction $v$
(`weight_v`), recomputed by a forward pre-hook before each `forward` (Salimans and Kingma,
2016). `nn.utils.parametrizations.weight_norm` is the same reparametrization written with
`parametrize`, which PyTorch recommends instead.

>>> import minitorch, warnings
>>> with warnings.catch_warnings():  # the FutureWarning that points to parametrizations
...     warnings.simplefilter("ignore")
...     layer = weight_norm(minitorch.nn.Linear(3, 2))
>>> [name for name, _ in layer.named_parameters()]
['bias', 'weight_g', 'weight_v']
>>> tuple(layer.weight_g.shape)
(2, 1)
"""

from __future__ import annotations

import warnings

from ..._tensor import Tensor
from ...ops.normalization_groups import norm_except_dim
from ..module import Module
from ..parameter import Parameter


def weight_from(v: Tensor, g: Tensor, dim: int) -> Tensor:
    """$g \\, v / \\|v\\|$, the norm as `norm_except_dim` takes it (`torch._weight_norm`)."""
    return v * (g / norm_except_dim(v, 2, dim))


def registered_hook(module: Module, kind: type, name: str):
    """The key and the forward pre-hook of class `kind` that recomputes `name`, or None."""
    for key, hook in module.__dict__.get("_forward_pre_hooks", {}).items():
        if isinstance(hook, kind) and hook.name == name:
            return key, hook
    return None


def remove_hook(module: Module, kind: type, name: str, function: str) -> Module:
    """Undo the reparametrization of `name` by a hook of class `kind` (made by `function`)."""
    found = registered_hook(module, kind, name)
    if found is None:
        raise ValueError(f"{function} of '{name}' not found in {module}")
    key, hook = found
    hook.remove(module)
    del module._forward_pre_hooks[key]
    return module


def refuse_second_hook(module: Module, kind: type, name: str, function: str) -> None:
    if registered_hook(module, kind, name) is not None:
        raise RuntimeError(f"Cannot register two {function} hooks on the same parameter {name}")


class WeightNorm:
    """The forward pre-hook that recomputes `module.<name>` from `<name>_g` and `<name>_v`."""

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return weight_from(v, g, self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        """Replace parameter `name` of `module` by its magnitude and direction."""
        warnings.warn(
            "`minitorch.nn.utils.weight_norm` is deprecated in favor of "
            "`minitorch.nn.utils.parametrizations.weight_norm`.",
            FutureWarning,
            stacklevel=3,
        )
        refuse_second_hook(module, WeightNorm, name, "weight_norm")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        """Put back parameter `name`, holding the weight the magnitude and direction give."""
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Learn parameter `name` as `<name>_g` $g$ and `<name>_v` $v$, $w = g \\, v / \\|v\\|$,
    the norm over every dim but `dim` (one magnitude per slice of `dim`; `dim=None`: one
    for the whole tensor). Returns `module`."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo `weight_norm`: parameter `name` again, holding $g \\, v / \\|v\\|$."""
    return remove_hook(module, WeightNorm, name, "weight_norm")
