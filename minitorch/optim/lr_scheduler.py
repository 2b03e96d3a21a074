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

import bisect
import math
from collections import Counter
from collections.abc import Iterable
from typing import Any

from .lr_schedules import (
    ConstantLR,
    CosineAnnealingWarmRestarts,
    CyclicLR,
    LinearLR,
    MultiplicativeLR,
    PolynomialLR,
)
from .optimizer import Optimizer
from .scheduler import LambdaScheduler, LRScheduler, MomentumCycling, _checked, _per_group


class LambdaLR(LambdaScheduler):
    """$\\mathrm{lr}_t = \\mathrm{base\\_lr} \\cdot \\lambda(t)$.

    `lr_lambda` is one function of the epoch, or a list with one per parameter group.
    """

    def get_lr(self) -> list[float]:
        pairs = zip(self.base_lrs, self.lr_lambdas, strict=True)
        return [base * f(self.last_epoch) for base, f in pairs]


class StepLR(LRScheduler):
    """Multiply the rate by `gamma` every `step_size` epochs:

    $$\\mathrm{lr}_t = \\mathrm{base\\_lr} \\cdot
    \\gamma^{\\lfloor t / \\mathrm{step\\_size} \\rfloor}$$
    """

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        super().__init__(optimizer, last_epoch, step_size=step_size, gamma=gamma)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rate by `gamma` at each epoch listed in `milestones`."""

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Iterable[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        super().__init__(optimizer, last_epoch, milestones=Counter(milestones), gamma=gamma)

    def get_lr(self) -> list[float]:
        times = self.milestones.get(self.last_epoch, 0)
        if times == 0:
            return self._current_lrs()
        return [lr * self.gamma**times for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        passed = sum(n for epoch, n in self.milestones.items() if epoch <= self.last_epoch)
        return [base * self.gamma**passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by `gamma` every epoch: $\\mathrm{lr}_t = \\mathrm{base}\\,\\gamma^t$."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        super().__init__(optimizer, last_epoch, gamma=gamma)

    def get_lr(self) -> list[float]:
        if self._is_initial:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


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
        super().__init__(optimizer, last_epoch, T_max=T_max, eta_min=eta_min)

    def get_lr(self) -> list[float]:
        t, period, low = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current_lrs()
        if self._step_count == 1 and t > 0:  # resumed at epoch t: the closed form
            return self._get_closed_form_lr()
        if (t - 1 - period) % (2 * period) == 0:  # the bottom: the cosine ratio is 0/0
            return [
                lr + (base - low) * (1 - math.cos(math.pi / period)) / 2
                for base, lr in zip(self.base_lrs, self._current_lrs(), strict=True)
            ]
        ratio = (1 + math.cos(math.pi * t / period)) / (1 + math.cos(math.pi * (t - 1) / period))
        return [ratio * (lr - low) + low for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        t, period, low = self.last_epoch, self.T_max, self.eta_min
        return [
            low + (base - low) * (1 + math.cos(t * math.pi / period)) / 2 for base in self.base_lrs
        ]


class OneCycleLR(MomentumCycling, LRScheduler):
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
            self._check_momentum(optimizer)
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


def _check_schedulers(kind: str, schedulers: Any, optimizer: Optimizer) -> None:
    """PyTorch's errors for the schedulers a `SequentialLR` or `ChainedScheduler` combines."""
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{kind} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{kind} does not support `ReduceLROnPlateau` scheduler as it requires "
                "additional kwargs to be specified when calling `step`, but got one at index "
                f"{i} in the given schedulers sequence."
            )
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{kind} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {type(scheduler).__name__} at index {i} has {scheduler.optimizer}, "
                f"which is different from {type(optimizer).__name__}."
            )


def _with_schedulers(state_dict: dict[str, Any], schedulers: list[LRScheduler]) -> None:
    """Load each saved `_schedulers` entry into its scheduler."""
    for scheduler, saved in zip(schedulers, state_dict["_schedulers"], strict=True):
        scheduler.load_state_dict(saved)


class _Combined(LRScheduler):
    """What `SequentialLR` and `ChainedScheduler` share: a state dict that nests those of
    the schedulers they combine."""

    _schedulers: list[LRScheduler]

    def state_dict(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update({k: v for k, v in state_dict.items() if k != "_schedulers"})
        _with_schedulers(state_dict, self._schedulers)


class SequentialLR(_Combined):
    """One schedule after another: `schedulers[i]` runs from `milestones[i - 1]` on,
    each starting at its own epoch 0 (its closed form there, when it has one)."""

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: list[LRScheduler],
        milestones: list[int],
        last_epoch: int = -1,
    ) -> None:
        kind = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{kind} expects at least one scheduler, but got no scheduler.")
        _check_schedulers(kind, schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for scheduler in schedulers:  # undo the step each made when it was built
            _undo_steps(scheduler)
        first = schedulers[bisect.bisect_right(milestones, 0)]
        first._step_count = 0
        first._is_initial = True
        first.step()
        first._is_initial = False
        self._last_lr = first.get_last_lr()

    def step(self) -> None:
        self.last_epoch += 1
        i = bisect.bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            _restart(scheduler)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


def _undo_steps(scheduler: Any) -> None:
    """Take one epoch off `scheduler` (and off every scheduler it combines)."""
    if hasattr(scheduler, "_schedulers"):
        for inner in scheduler._schedulers:
            _undo_steps(inner)
    elif hasattr(scheduler, "last_epoch"):
        scheduler.last_epoch -= 1


def _restart(scheduler: LRScheduler) -> None:
    """Put `scheduler` at its epoch 0 and write its rates there."""
    scheduler.last_epoch = 0
    closed_form = getattr(scheduler, "_get_closed_form_lr", scheduler.get_lr)
    for group, lr in zip(scheduler.optimizer.param_groups, closed_form(), strict=True):
        group["lr"] = lr
    scheduler._last_lr = scheduler._current_lrs()


class ChainedScheduler(_Combined):
    """Several schedules at once: each `step()` steps every scheduler in turn, so their
    factors multiply (each updates the rate the one before it wrote)."""

    def __init__(self, schedulers: Any, optimizer: Optimizer | None = None) -> None:
        kind = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(
                f"{kind} expects at least one scheduler to be chained, but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(kind, schedulers, optimizer)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = schedulers[-1]._current_lrs()

    def step(self) -> None:
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = self._schedulers[-1]._current_lrs()


__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "ExponentialLR",
    "LambdaLR",
    "LinearLR",
    "LRScheduler",
    "MultiplicativeLR",
    "MultiStepLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
]
