"""The names of PyTorch before 0.4 that old scripts still use, and the engine's switches.

`Variable(t)` was a wrapper that gave a tensor autograd; since PyTorch 0.4 every tensor
has it, so `Variable(t, requires_grad=True)` is `t.detach().requires_grad_(True)`: a new
leaf over the same memory. `isinstance(t, Variable)` is true of every tensor, as in torch.
"""

from __future__ import annotations

from ..tensors import creation
from ..tensors.base import TensorBase


class _VariableType(type):
    def __instancecheck__(cls, value) -> bool:
        return isinstance(value, TensorBase)


class Variable(metaclass=_VariableType):
    """`Variable(data, requires_grad=False)`: `data` as a new leaf sharing its memory.

    >>> import minitorch
    >>> minitorch.autograd.Variable(minitorch.ones(2), requires_grad=True)
    tensor([1., 1.], requires_grad=True)
    """

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if data is None:
            return creation.tensor([])
        if not isinstance(data, TensorBase):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)


def variable(*args, **kwargs):
    """Removed in PyTorch: raises its error, which names the replacement."""
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")


class _EngineSwitches:
    multithreading = True


_switches = _EngineSwitches()


def is_multithreading_enabled() -> bool:
    """Whether backward may run on several threads: the setting only, since minitorch's
    engine always runs backward on the calling thread."""
    return _switches.multithreading


class set_multithreading_enabled:  # noqa: N801 -- PyTorch's name
    """Record the setting (now, and back on exit when used with `with`); it changes nothing,
    as backward here always runs on the calling thread."""

    def __init__(self, mode: bool) -> None:
        self._previous = _switches.multithreading
        _switches.multithreading = bool(mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc_info) -> None:
        _switches.multithreading = self._previous


def is_view_replay_enabled() -> bool:
    """False: views are not replayed in backward (no view is ever recorded as a replay)."""
    return False
