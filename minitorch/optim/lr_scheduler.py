"""`minitorch.optim.lr_scheduler`, as `torch.optim.lr_scheduler`: learning rates that change.

A scheduler rewrites `group["lr"]` of its optimizer's parameter groups each
time its `step()` is called (once per epoch, or per batch for `OneCycleLR`),
after `optimizer.step()`:

>>> import minitorch
>>> w = minitorch.zeros(1, requires_grad=True)
>>> optimizer = minitorch.optim.SGD([w], lr=1.0)
>>> scheduler = minitorch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
>>> lrs = []
>>> for epoch in range(5):
...     optimizer.step()
...     lrs.append(scheduler.get_last_lr()[0])
...     scheduler.step()
>>> lrs
[1.0, 1.0, 0.5, 0.5, 0.25]

Like PyTorch's, the schedules are written as updates of the current rate
(`lr * gamma`), so several schedulers can be chained on one optimizer.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections import Counter
from collections.abc import Callable, Iterable
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
    rates of epoch `last_epoch`.
    """

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
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


class LambdaLR(LRScheduler):
    """$\\mathrm{lr}_t = \\mathrm{base\\_lr} \\cdot \\lambda(t)$.

    `lr_lambda` is one function of the epoch, or a list with one per parameter group.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = _checked(optimizer)
        mismatch = "Expected {expected} lr_lambdas, but got {got}"
        self.lr_lambdas = _per_group("lr_lambda", optimizer, lr_lambda, mismatch)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        pairs = zip(self.base_lrs, self.lr_lambdas, strict=True)
        return [base * f(self.last_epoch) for base, f in pairs]

    def state_dict(self) -> dict[str, Any]:
        """As the base's, but functions are not saved (a callable object's `__dict__` is)."""
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


class StepLR(LRScheduler):
    """Multiply the rate by `gamma` every `step_size` epochs:

    $$\\mathrm{lr}_t = \\mathrm{base\\_lr} \\cdot
    \\gamma^{\\lfloor t / \\mathrm{step\\_size} \\rfloor}$$
    """

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]


class MultiStepLR(LRScheduler):
    """Multiply the rate by `gamma` at each epoch listed in `milestones`."""

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Iterable[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        times = self.milestones.get(self.last_epoch, 0)
        if times == 0:
            return self._current_lrs()
        return [lr * self.gamma**times for lr in self._current_lrs()]


class ExponentialLR(LRScheduler):
    """Multiply the rate by `gamma` every epoch: $\\mathrm{lr}_t = \\mathrm{base}\\,\\gamma^t$."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self._is_initial:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]


class CosineAnnealingLR(LRScheduler):
    """Half a cosine from the base rate down to `eta_min` over `T_max` epochs:

    $$\\mathrm{lr}_t = \\eta_{min} + \\tfrac{1}{2}(\\mathrm{base\\_lr} - \\eta_{min})
    (1 + \\cos(\\pi t / T_{max}))$$

    (then back up, as PyTorch's, if stepped past `T_max`). Each step scales the
    current rate's distance to `eta_min` by the ratio of consecutive cosine terms.
    """

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        t, period, low = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current_lrs()
        if self._step_count == 1 and t > 0:  # resumed at epoch t: the closed form
            return [
                low + (base - low) * (1 + math.cos(t * math.pi / period)) / 2
                for base in self.base_lrs
            ]
        if (t - 1 - period) % (2 * period) == 0:  # the bottom: the cosine ratio is 0/0
            return [
                lr + (base - low) * (1 - math.cos(math.pi / period)) / 2
                for base, lr in zip(self.base_lrs, self._current_lrs(), strict=True)
            ]
        ratio = (1 + math.cos(math.pi * t / period)) / (1 + math.cos(math.pi * (t - 1) / period))
        return [ratio * (lr - low) + low for lr in self._current_lrs()]


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith): the rate climbs from `max_lr / div_factor` to `max_lr`
    over the first `pct_start` of `total_steps`, then anneals to
    `initial_lr / final_div_factor` (cosine or linear); momentum (or Adam's
    $\\beta_1$) moves the opposite way between `max_momentum` and `base_momentum`.
    Step it once per batch.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | list[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85,
        max_momentum: float | list[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = _checked(optimizer)
        self.total_steps = self._total_steps(total_steps, epochs, steps_per_epoch)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self.anneal_strategy = anneal_strategy
        self._phases = self._schedule(pct_start, three_phase)
        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for group, top in zip(optimizer.param_groups, max_lrs, strict=True):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            highs = _per_group("max_momentum", optimizer, max_momentum)
            lows = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for high, low, group in zip(highs, lows, optimizer.param_groups, strict=True):
                    self._set_momentum(group, high)
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _total_steps(total_steps: int | None, epochs: int | None, per_epoch: int | None) -> int:
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            return total_steps
        if epochs is None or per_epoch is None:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if not isinstance(epochs, int) or epochs <= 0:
            raise ValueError(f"Expected positive integer epochs, but got {epochs}")
        if not isinstance(per_epoch, int) or per_epoch <= 0:
            raise ValueError(f"Expected positive integer steps_per_epoch, but got {per_epoch}")
        return epochs * per_epoch

    def _schedule(self, pct_start: float, three_phase: bool) -> list[tuple]:
        """The phases: (last step, start lr key, end lr key, start momentum, end momentum)."""
        warmup_end = float(pct_start * self.total_steps) - 1
        last = self.total_steps - 1
        if three_phase:
            return [
                (warmup_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (2 * warmup_end, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
                (last, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
        return [
            (warmup_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
            (last, "max_lr", "min_lr", "base_momentum", "max_momentum"),
        ]

    def _anneal(self, start: float, end: float, pct: float) -> float:
        """From `start` (pct 0) to `end` (pct 1), along half a cosine or a line."""
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def _set_momentum(self, group: dict[str, Any], value: float) -> None:
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def get_lr(self) -> list[float]:
        t = self.last_epoch
        if t > self.total_steps:
            raise ValueError(
                f"Tried to step {t} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, (end, lr_from, lr_to, m_from, m_to) in enumerate(self._phases):
                if t <= end or i == len(self._phases) - 1:
                    pct = (t - start) / (end - start)
                    lrs.append(self._anneal(group[lr_from], group[lr_to], pct))
                    if self.cycle_momentum:
                        self._set_momentum(group, self._anneal(group[m_from], group[m_to], pct))
                    break
                start = end
        return lrs


class ReduceLROnPlateau(LRScheduler):
    """Multiply the rate by `factor` when a metric stopped improving for `patience` epochs.

    `step(metric)` takes the epoch's metric (a validation loss in mode `"min"`).
    An improvement must beat the best by `threshold` (relative: best $\\cdot (1 \\mp$
    threshold$)$, or absolute); after a reduction, `cooldown` epochs are not counted.
    Rates never go below `min_lr`, and a change smaller than `eps` is skipped.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: list[float] | float = 0,
        eps: float = 1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        self.optimizer = _checked(optimizer)
        mismatch = "expected {expected} min_lrs, got {got}"
        self.min_lrs = _per_group("min_lr", optimizer, min_lr, mismatch)
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = self._current_lrs()
        self.best = math.inf if mode == "min" else -math.inf
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics: Any) -> None:  # type: ignore[override]
        """Count the epoch with its metric (a number or a 0-dim tensor); reduce if stuck."""
        current = float(metrics)
        self.last_epoch += 1
        if self._is_better(current):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            for group, floor in zip(self.optimizer.param_groups, self.min_lrs, strict=True):
                new_lr = max(float(group["lr"]) * self.factor, floor)
                if float(group["lr"]) - new_lr > self.eps:
                    group["lr"] = new_lr
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._current_lrs()

    def _is_better(self, current: float) -> bool:
        """Whether `current` beats the best so far by more than the threshold."""
        relative = self.threshold_mode == "rel"
        if self.mode == "min":
            return current < (
                self.best * (1 - self.threshold) if relative else self.best - self.threshold
            )
        return current > (
            self.best * (1 + self.threshold) if relative else self.best + self.threshold
        )
