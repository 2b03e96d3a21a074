"""`Optimizer`: the base class that holds the parameter groups and the per-parameter state.

An optimizer keeps its parameters in `param_groups`, a list of dicts: each has
`"params"` (a list of tensors) and that group's hyperparameters (`lr`, ...),
taken from `defaults` where the group does not set them. `state` maps each
parameter to a dict of what the algorithm remembers between steps (a momentum
buffer, Adam's moments, the step count).

The step count is a float32 0-dim tensor, `tensor(3.)`, as PyTorch 2 keeps it:
`state_dict()` then has PyTorch's layout and types, and `load_state_dict` takes
the count back unchanged (other state tensors take their parameter's dtype).
A subclass writes `_update(p, group)`, the update of one parameter; `step`
calls it, under `no_grad()`, for every parameter that has a gradient. PyTorch's
optimizers make their `__init__` from their signature with `declared_init` (options.py).
"""

from __future__ import annotations

import copy
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from .._tensor import Tensor
from ..autograd import enable_grad, no_grad


def _typename(value: Any) -> str:
    """`torch.typename`'s spelling: `float`, `numpy.ndarray`, ..."""
    kind = type(value).__qualname__
    module = type(value).__module__
    return kind if module == "builtins" else f"{module}.{kind}"


def descent_gradient(p: Tensor, group: dict[str, Any]) -> Tensor:
    """The gradient a step of `p` goes against: `p.grad`, negated with `maximize` (to
    climb), plus $\\lambda w$ with weight decay $\\lambda$ = `group["weight_decay"]`
    (L2 regularisation)."""
    grad = -p.grad if group["maximize"] else p.grad
    if group["weight_decay"] != 0:
        grad = grad.add(p, alpha=group["weight_decay"])
    return grad


class Optimizer:
    """Holds `param_groups` and `state`; subclasses write `_update` (or all of `step`).

    `params` is an iterable of tensors, or of dicts (parameter groups) with a
    `"params"` entry and per-group options that override `defaults`.
    """

    def __init__(self, params: Iterable, defaults: dict[str, Any]) -> None:
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {params.type()}"
            )
        self.defaults = defaults
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (with its own options) to `param_groups`."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but "
                "the ordering of tensors in sets will change between runs. "
                "Please use a list instead."
            )
        params = [params] if isinstance(params, Tensor) else list(params)
        # `named_parameters()` gives (name, tensor) pairs: the names are kept as "param_names"
        names = [p[0] for p in params if isinstance(p, tuple)]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        if names:
            if len(names) != len(params):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are "
                    "missing"
                )
            param_group["param_names"] = names
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is " + _typename(p)
                )
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        param_group["params"] = params
        if len({id(p) for p in params}) != len(params):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; "
                "in future, this will cause an error; "
                "see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        for group in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in group):
                kind = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {kind} to the optimizer"
                )
        taken = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in taken for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of the last backward (set them to None, or to zeros)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.zero_()

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns `closure()`'s loss if given.

        `closure` recomputes the loss (and calls backward) before the update.
        """
        loss = self._loss_of(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    self._update(p, group)
        return loss

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        """The algorithm: update `p` from `p.grad`, with `group`'s options and `state[p]`."""
        raise NotImplementedError

    @staticmethod
    def _loss_of(closure: Callable[[], Any] | None) -> Any:
        """Run `closure` (which recomputes the loss and calls backward) with autograd on."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def state_dict(self) -> dict[str, Any]:
        """`{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}`.

        Parameters are numbered in the order of the groups, as PyTorch does, so the
        dict loads into an optimizer built the same way over other tensors.
        """
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)]: s for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take the options and state of `state_dict` (from `state_dict()`) for our parameters.

        State tensors are copied to their parameter's device, in its dtype (the step
        count stays as it is, as torch keeps it where no fused step reads it).
        """
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(
            len(saved["params"]) != len(group["params"])
            for saved, group in zip(saved_groups, self.param_groups, strict=True)
        ):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size "
                "of optimizer's group"
            )
        params = {
            i: p
            for saved, group in zip(saved_groups, self.param_groups, strict=True)
            for i, p in zip(saved["params"], group["params"], strict=True)
        }
        state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        for i, saved_state in state_dict["state"].items():
            param = params[i]
            state[param] = {k: _copied(v, param, k) for k, v in saved_state.items()}
        self.state = state
        self.param_groups = [
            _loaded_group(saved, group)
            for saved, group in zip(saved_groups, self.param_groups, strict=True)
        ]

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            text += "".join(f"    {k}: {group[k]}\n" for k in sorted(group) if k != "params")
        return text + ")"


def _loaded_group(saved: dict[str, Any], group: dict[str, Any]) -> dict[str, Any]:
    """The saved group's options (copied) over our group's tensors (and names, if unsaved)."""
    loaded = copy.deepcopy({k: v for k, v in saved.items() if k != "params"})
    loaded["params"] = group["params"]
    if "param_names" in group:
        loaded.setdefault("param_names", group["param_names"])
    return loaded


def _copied(value: Any, param: Tensor, key: str) -> Any:
    """A saved state entry made ours: tensors copied onto `param`'s device and, for a
    floating `param`, into its dtype; the step count copied as it is."""
    if not isinstance(value, Tensor):
        return copy.deepcopy(value)
    if key == "step":
        return value.detach().clone()
    dtype = param.dtype if param.is_floating_point() else None
    return value.detach().to(device=param.device, dtype=dtype, copy=True)
