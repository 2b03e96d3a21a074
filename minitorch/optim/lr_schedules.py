"""Schedules that warm up, decay to a floor, restart or cycle: `MultiplicativeLR`,
`ConstantLR`, `LinearLR`, `PolynomialLR`, `CosineAnnealingWarmRestarts` and `CyclicLR`
(collected with the others in `minitorch.optim.lr_scheduler`).

As PyTorch's, each `get_lr` updates the current rates (so schedulers chain), and the
ones with a closed form give it as `_get_closed_form_lr`, the rates of epoch
`last_epoch` from the base rates (what `SequentialLR` starts each schedule with).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import FunctionType
from typing import Any

from .optimizer import Optimizer
from .scheduler import LambdaScheduler, LRScheduler, MomentumCycling, _checked, _per_group


def _check_factor(factor: float, error: str, zero: bool = True) -> None:
    """`ValueError(error)` unless $0 \\le$ `factor` $\\le 1$ ($0 <$ `factor` without `zero`)."""
    if factor > 1.0 or factor < 0 or (factor == 0 and not zero):
        raise ValueError(error)


class MultiplicativeLR(LambdaScheduler):
    """Multiply the rate by $\\lambda(t)$ at every epoch $t > 0$:
    $\\mathrm{lr}_t = \\mathrm{lr}_{t-1} \\lambda(t)$ (one function, or one per group)."""

    checks_callable = True

    def get_lr(self) -> list[float]:
        if self._is_initial:
            return self._current_lrs()
        pairs = zip(self._current_lrs(), self.lr_lambdas, strict=True)
        return [lr * f(self.last_epoch) for lr, f in pairs]


class ConstantLR(LRScheduler):
    """The base rate times `factor` until epoch `total_iters`, then the base rate."""

    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        _check_factor(factor, "Constant multiplicative factor expected to be between 0 and 1.")
        super().__init__(optimizer, last_epoch, factor=factor, total_iters=total_iters)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current_lrs()]
        if self.last_epoch != self.total_iters:
            return self._current_lrs()
        return [lr * (1.0 / self.factor) for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        reached = self.last_epoch >= self.total_iters
        return [base * (self.factor + reached * (1 - self.factor)) for base in self.base_lrs]


class LinearLR(LRScheduler):
    """The factor of the base rate goes linearly from `start_factor` to `end_factor` over
    `total_iters` epochs, then stays:
    $\\mathrm{lr}_t = \\mathrm{base}\\,(s + (e - s) \\min(t, T) / T)$."""

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        start_error = "Starting multiplicative factor expected to be greater than 0 and less or"
        _check_factor(start_factor, start_error + " equal to 1.", zero=False)
        _check_factor(end_factor, "Ending multiplicative factor expected to be between 0 and 1.")
        super().__init__(
            optimizer,
            last_epoch,
            start_factor=start_factor,
            end_factor=end_factor,
            total_iters=total_iters,
        )

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current_lrs()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        change = self.end_factor - self.start_factor
        ratio = 1.0 + change / (
            self.total_iters * self.start_factor + (self.last_epoch - 1) * change
        )
        return [lr * ratio for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        done = min(self.total_iters, self.last_epoch) / self.total_iters
        factor = self.start_factor + (self.end_factor - self.start_factor) * done
        return [base * factor for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay to 0 over `total_iters` epochs as a power:
    $\\mathrm{lr}_t = \\mathrm{base}\\,(1 - \\min(t, T) / T)^{p}$."""

    def __init__(
        self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1
    ) -> None:
        super().__init__(optimizer, last_epoch, total_iters=total_iters, power=power)

    def get_lr(self) -> list[float]:
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        t, total = self.last_epoch, self.total_iters
        decay = ((1.0 - t / total) / (1.0 - (t - 1) / total)) ** self.power
        return [lr * decay for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        left = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * left**self.power for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every period (SGDR, Loshchilov & Hutter): with $T_{cur}$
    the epochs since the last restart and $T_i$ the current period ($T_0$, times `T_mult`
    after each restart),
    $\\mathrm{lr} = \\eta_{min} + \\tfrac12 (\\mathrm{base} - \\eta_{min})
    (1 + \\cos(\\pi T_{cur} / T_i))$. `step(epoch)` may give a fractional epoch."""

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, float | int):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        cosine = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (base - self.eta_min) * cosine for base in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """Move to the next epoch, or to `epoch` (restarts found from it)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur %= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult**n
        else:
            self.T_i = self.T_0
            self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        for group, lr in zip(self.optimizer.param_groups, self.get_lr(), strict=True):
            group["lr"] = lr
        self._last_lr = self._current_lrs()


CYCLIC_MODES = ("triangular", "triangular2", "exp_range")


class CyclicLR(MomentumCycling, LRScheduler):
    """The cyclical rate policy (Smith): each cycle climbs linearly from `base_lr` to
    `max_lr` over `step_size_up` steps and back over `step_size_down`, the height scaled
    per cycle (`triangular`: 1, `triangular2`: halved each cycle, `exp_range`:
    $\\gamma^\\text{step}$, or `scale_fn`). With `cycle_momentum` the momentum (or Adam's
    $\\beta_1$) moves the opposite way between `max_momentum` and `base_momentum`.
    Stepped once per batch."""

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float | list[float],
        max_lr: float | list[float],
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float = 0.8,
        max_momentum: float = 0.9,
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = _checked(optimizer)
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in CYCLIC_MODES and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode if scale_fn is not None else self._mode_scale()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self._check_momentum(optimizer)
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                pairs = zip(self.max_momentums, self.base_momentums, strict=True)
                for (high, low), group in zip(pairs, optimizer.param_groups, strict=True):
                    self._set_momentum(group, high)
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _mode_scale(self) -> str:
        """What the scale of a built-in mode counts: cycles, or steps for `exp_range`."""
        return "iterations" if self.mode == "exp_range" else "cycle"

    def scale_fn(self, x: float) -> float:
        """The height of the cycle `x` (or at step `x`): `scale_fn`'s, or the mode's."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma**x

    def get_lr(self) -> list[float]:
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [
            low + (high - low) * scale_factor * scale
            for low, high in zip(self.base_lrs, self.max_lrs, strict=True)
        ]
        if self.cycle_momentum:
            pairs = zip(self.base_momentums, self.max_momentums, strict=True)
            for (low, high), group in zip(pairs, self.optimizer.param_groups, strict=True):
                self._set_momentum(group, high - (high - low) * scale_factor * scale)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        """As the base's; a custom `scale_fn` is saved only as a callable object's
        `__dict__` (a function is not)."""
        state = super().state_dict()
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = (
            None if fn is None or isinstance(fn, FunctionType) else dict(fn.__dict__)
        )
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        fn = state.pop("_scale_fn_custom")
        super().load_state_dict(state)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)


__all__ = [
    "ConstantLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "LinearLR",
    "MultiplicativeLR",
    "PolynomialLR",
]
