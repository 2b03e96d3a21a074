"""An optimizer's options, declared once: `declared_init` turns PyTorch's constructor
signature, written as a string, into the optimizer's `__init__`.

>>> import inspect
>>> from minitorch.optim import Rprop
>>> inspect.signature(Rprop).parameters["etas"]
<Parameter "etas=(0.5, 1.2)">

That `__init__` takes its arguments as the signature says, checks the options `checked`
names (each with its check from `CHECKS`, in PyTorch's order and with its `ValueError`),
and starts the `Optimizer` with every option as a default of the parameter groups.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from typing import Any

from .optimizer import Optimizer


def check_options(**options: float) -> None:
    """PyTorch's `ValueError` for a negative `lr`, `eps`, `weight_decay`, ... (NaN too)."""
    for name, value in options.items():
        if not 0.0 <= value:
            label = {"lr": "learning rate", "eps": "epsilon value"}.get(name, f"{name} value")
            raise ValueError(f"Invalid {label}: {value}")


def check_betas(betas: tuple[float, float]) -> None:
    """Each of Adam's $\\beta_i$ in $[0, 1)$."""
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


def check_rho(rho: float) -> None:
    """Adadelta's decay $\\rho$ in $[0, 1]$."""
    if not 0.0 <= rho <= 1.0:
        raise ValueError(f"Invalid rho value: {rho}")


def check_etas(etas: tuple[float, float]) -> None:
    """Rprop's factors: $0 < \\eta_- < 1 < \\eta_+$."""
    if not 0.0 < etas[0] < 1.0 < etas[1]:
        raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")


# The options whose check is not "nonnegative" (`check_options`).
CHECKS: dict[str, Callable[[Any], None]] = {
    "betas": check_betas,
    "rho": check_rho,
    "etas": check_etas,
}


def check_supported(defaults: dict[str, Any]) -> None:
    """Refuse the PyTorch options that change what a step computes and are not built here."""
    for name in ("differentiable", "capturable"):
        if defaults.get(name):
            raise NotImplementedError(f"minitorch optimizers do not support {name}=True")


def declared_init(
    signature: str,
    *,
    checked: str,
    stored: str = "",
    fixed: dict[str, Any] | None = None,
    check: Callable[[dict[str, Any]], None] | None = None,
) -> Callable[..., None]:
    """The `__init__(self, params, <signature>)` of an optimizer.

    `signature` is PyTorch's, after `params` ("lr=1e-3, betas=(0.9, 0.999), *, maximize=False":
    every option has a default, a literal). `checked` names the options checked, in PyTorch's
    order (each by its `CHECKS` entry, else as nonnegative); then `check(defaults)` runs, if
    given. `defaults` holds the options in the order `stored`
    names them (PyTorch's order, where it is not the signature's), then those of `fixed`
    (options set by the class, not by the caller).
    """
    declared = ast.parse(f"def init(self, params, {signature}): pass").body[0].args
    parameters = [
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        for name in ("self", "params")
    ]
    for kind, names, values in (
        (inspect.Parameter.POSITIONAL_OR_KEYWORD, declared.args[2:], declared.defaults),
        (inspect.Parameter.KEYWORD_ONLY, declared.kwonlyargs, declared.kw_defaults),
    ):
        parameters += [
            inspect.Parameter(name.arg, kind, default=ast.literal_eval(value))
            for name, value in zip(names, values, strict=True)
        ]
    order = stored.split() or [p.name for p in parameters[2:]]
    if sorted(order) != sorted(p.name for p in parameters[2:]):
        raise TypeError(f"stored names other options than the signature: {stored}")
    names = checked.split()

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        bound = __init__.__signature__.bind(self, *args, **kwargs)
        bound.apply_defaults()
        defaults = {name: bound.arguments[name] for name in order} | (fixed or {})
        for name in names:
            if name in CHECKS:
                CHECKS[name](defaults[name])
            else:
                check_options(**{name: defaults[name]})
        if check is not None:
            check(defaults)
        check_supported(defaults)
        Optimizer.__init__(self, bound.arguments["params"], defaults)

    __init__.__signature__ = inspect.Signature(parameters)
    __init__.__doc__ = "Optimize the tensors (or parameter groups) `params` with these options."
    return __init__
