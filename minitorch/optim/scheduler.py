"""`LRScheduler`: the base class of the learning-rate schedulers, and the checks they share.

A scheduler holds its optimizer and the epoch count `last_epoch`; each `step()` moves
to the next epoch and writes the rates `get_lr()` gives into `group["lr"]` of every
parameter group. `minitorch.optim.lr_scheduler` collects the schedulers.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from types import FunctionType
from typing import Any

from .optimizer import Optimizer


def _checked(optimizer: Any) -> Optimizer:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
    return optimizer


PER_GROUP_MISMATCH = (
    "{name} must have the same length as optimizer.param_groups. {name} has {got} values, "
    "param_groups has {expected}."
)


def _per_group(
    name: str, optimizer: Optimizer, value: Any, mismatch: str = PER_GROUP_MISMATCH
) -> list[Any]:
    """`value` for each parameter group: a list of that length, or one value repeated.

    A list of another length raises `mismatch` (the error text of the scheduler that asks).
    """
    expected = len(optimizer.param_groups)
    if isinstance(value, list | tuple):
        if len(value) != expected:
            raise ValueError(mismatch.format(name=name, got=len(value), expected=expected))
        return list(value)
    return [value] * expected


STEP_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
    "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
    "will result in PyTorch skipping the first value of the learning rate schedule. "
    "See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)


def _note_optimizer_steps(optimizer: Optimizer) -> None:
    """Make `optimizer.step` record that it ran, so a scheduler can warn when stepped first."""
    step = optimizer.step
    if getattr(step, "_noted_by_scheduler", False):
        return

    @functools.wraps(step)
    def noted_step(*args: Any, **kwargs: Any) -> Any:
        optimizer._opt_called = True
        return step(*args, **kwargs)

    noted_step._noted_by_scheduler = True
    optimizer.step = noted_step


class LRScheduler:
    """The base of the schedulers: `step()` moves to the next epoch and sets its rates.

    `last_epoch` counts the `step()` calls (the constructor makes the first, to
    epoch 0); `base_lrs` are the groups' rates when the schedule started
    (kept in each group as `"initial_lr"`). Subclasses write `get_lr`, the
    rates of epoch `last_epoch`, and pass their `options` (`gamma=...`), which are
    kept as attributes (set before the first step reads them; saved by `state_dict`).
    """

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1, **options: Any) -> None:
        vars(self).update(options)
        self.optimizer = _checked(optimizer)
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not recommended)"
                    )
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _note_optimizer_steps(optimizer)
        self._step_count = 0
        self._is_initial = True
        self.step()
        self._is_initial = False

    def get_lr(self) -> list[float]:
        """The rate of each group at epoch `last_epoch`."""
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The rates the last `step()` set, one per parameter group."""
        return self._last_lr

    def step(self) -> None:
        """Move to the next epoch and write its rates into the optimizer."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(STEP_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        self.last_epoch += 1
        for group, lr in zip(self.optimizer.param_groups, self.get_lr(), strict=True):
            group["lr"] = lr
        self._last_lr = self._current_lrs()

    def _current_lrs(self) -> list[float]:
        return [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self) -> dict[str, Any]:
        """Everything the scheduler keeps except the optimizer (save the optimizer's apart)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take back what `state_dict()` returned."""
        self.__dict__.update(state_dict)


class LambdaScheduler(LRScheduler):
    """The base of the schedulers of functions of the epoch (`LambdaLR`, `MultiplicativeLR`):
    `lr_lambdas`, one per parameter group, which their state dicts save only as a
    callable object's `__dict__` (a function is not saved), as PyTorch's. A subclass
    with `checks_callable` refuses an `lr_lambda` that is not callable."""

    checks_callable = False

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = _checked(optimizer)
        mismatch = "Expected {expected} lr_lambdas, but got {got}"
        self.lr_lambdas = _per_group("lr_lambda", optimizer, lr_lambda, mismatch)
        for f in self.lr_lambdas if self.checks_callable else []:
            if not callable(f):
                raise TypeError(f"lr_lambda should be a function, but got {type(f).__name__}")
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(f, FunctionType) else dict(f.__dict__) for f in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        saved = state_dict.get("lr_lambdas", [])
        self.__dict__.update({k: v for k, v in state_dict.items() if k != "lr_lambdas"})
        for f, attributes in zip(self.lr_lambdas, saved, strict=True):
            if attributes is not None:
                f.__dict__.update(attributes)


class MomentumCycling:
    """What `OneCycleLR` and `CyclicLR` share: they move each group's momentum, or Adam's
    $\\beta_1$ when the optimizer has `betas`."""

    use_beta1: bool

    def _check_momentum(self, optimizer: Optimizer) -> None:
        if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
            raise ValueError(
                "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
            )
        self.use_beta1 = "betas" in optimizer.defaults

    def _set_momentum(self, group: dict[str, Any], value: float) -> None:
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value
