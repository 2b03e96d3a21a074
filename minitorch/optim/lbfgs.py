"""`LBFGS`: the limited-memory BFGS quasi-Newton method (Nocedal), with an optional
strong-Wolfe line search; each `step(closure)` runs up to `max_iter` iterations.

The scalars of the algorithm (step sizes, curvatures $1 / y^T s$, the scale of the
initial inverse Hessian) are Python floats: in float64 the steps are PyTorch's, which
keeps them as 0-dim tensors; in float32 they differ by float32 rounding.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from .._tensor import Tensor
from ..autograd import enable_grad, no_grad
from ..ops.joins import cat
from ..tensors.creation import zeros
from .optimizer import Optimizer
from .options import check_options


def _dot(a: Tensor, b: Tensor) -> float:
    return (a * b).sum().item()


def _largest(a: Tensor) -> float:
    return a.abs().max().item()


def cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None) -> float:
    """The minimiser, clamped to `bounds` (else $[x_1, x_2]$), of the cubic through
    $(x_1, f_1)$ and $(x_2, f_2)$ with slopes $g_1$, $g_2$; the middle when it has none."""
    low, high = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square < 0:
        return (low + high) / 2.0
    d2 = math.sqrt(d2_square)
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, low), high)


def strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step $t$ along `d` meeting the strong Wolfe conditions,
    $f(t) \\le f + c_1 t\\, g^T d$ and $|g(t)^T d| \\le -c_2\\, g^T d$: first widen the step
    until the minimum is bracketed, then zoom in by cubic interpolation. `evaluate(t)`
    gives the loss and flat gradient at step $t$. Returns $f(t)$, $g(t)$, $t$ and the
    number of evaluations."""
    d_norm = _largest(d)
    f_new, g_new = evaluate(t)
    evals = 1
    gtd_new = _dot(g_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    ls_iter = 0
    bracket_gtd: list[float] = []
    while ls_iter < max_ls:
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f, bracket_g = [t_prev, t], [f_prev, f_new], [g_prev, g_new]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f, bracket_g = [t_prev, t], [f_prev, f_new], [g_prev, g_new]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        bounds = (t + 0.01 * (t - t_prev), t * 10)
        t_next = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds)
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new, gtd_new
        t = t_next
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = _dot(g_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0.0, t], [f, f_new], [g, g_new]
    insufficient = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = cubic_interpolate(
            bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]
        )
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insufficient or t >= max(bracket) or t <= min(bracket):
                nearer_top = abs(t - max(bracket)) < abs(t - min(bracket))
                t = max(bracket) - eps if nearer_top else min(bracket) + eps
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = _dot(g_new, d)
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low]:
            bracket[high], bracket_f[high], bracket_g[high] = t, f_new, g_new
            bracket_gtd[high] = gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low], bracket_g[low] = t, f_new, g_new
            bracket_gtd[low] = gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evals


class LBFGS(Optimizer):
    """L-BFGS: the direction is $-H g$, $H$ the inverse Hessian estimated from the last
    `history_size` pairs $s = \\Delta w$, $y = \\Delta g$ (the two-loop recursion, started
    from $H_0 = y^T s / y^T y$); the step is `lr` (the first one scaled to
    $\\min(1, 1 / \\lVert g \\rVert_1)$), or found by `line_search_fn="strong_wolfe"`.
    Takes one parameter group; `step` needs `closure` (which returns the loss after
    `backward`)."""

    def __init__(
        self,
        params: Iterable,
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        check_options(lr=lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr,
            "max_iter": max_iter,
            "max_eval": max_eval,
            "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change,
            "history_size": history_size,
            "line_search_fn": line_search_fn,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self) -> Tensor:
        return cat(
            [
                zeros(p.numel(), dtype=p.dtype, device=p.device)
                if p.grad is None
                else p.grad.reshape(-1)
                for p in self._params
            ]
        )

    def _add_grad(self, step_size: float, update: Tensor) -> None:
        offset = 0
        for p in self._params:
            count = p.numel()
            p.add_(update[offset : offset + count].view_as(p), alpha=step_size)
            offset += count

    def _evaluate_at(self, closure: Callable, t: float, d: Tensor) -> tuple[float, Tensor]:
        """The loss and flat gradient at the parameters moved by $t d$ (then put back)."""
        start = [p.clone() for p in self._params]
        self._add_grad(t, d)
        with enable_grad():
            loss = float(closure())
        flat_grad = self._flat_grad()
        for p, value in zip(self._params, start, strict=True):
            p.copy_(value)
        return loss, flat_grad

    @no_grad()
    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Up to `max_iter` L-BFGS iterations; returns the loss `closure()` gave first."""
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if _largest(flat_grad) <= tolerance_grad:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_flat_grad = state.get("H_diag"), state.get("prev_flat_grad")
        prev_loss = state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro, h_diag = [], [], [], 1.0
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = _dot(y, s)
                if ys > 1e-10:
                    if len(old_dirs) == group["history_size"]:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / _dot(y, y)
                d = _two_loop(-flat_grad, old_dirs, old_stps, ro, h_diag)
            prev_flat_grad = flat_grad.clone()
            prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / flat_grad.abs().sum().item()) * lr
            else:
                t = lr
            gtd = _dot(flat_grad, d)
            if gtd > -tolerance_change:
                break
            evals = 0
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                loss, flat_grad, t, evals = strong_wolfe(
                    lambda step, d=d: self._evaluate_at(closure, step, d),
                    t,
                    d,
                    loss,
                    flat_grad,
                    gtd,
                    max_ls=max_eval - current_evals,
                )
                self._add_grad(t, d)
                optimal = _largest(flat_grad) <= tolerance_grad
            else:
                self._add_grad(t, d)
                optimal = False
                if n_iter != max_iter:
                    with enable_grad():
                        loss = float(closure())
                    flat_grad = self._flat_grad()
                    optimal = _largest(flat_grad) <= tolerance_grad
                    evals = 1
            current_evals += evals
            state["func_evals"] += evals
            if n_iter == max_iter or current_evals >= max_eval or optimal:
                break
            if _largest(d * t) <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break
        state.update(
            d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag,
            prev_flat_grad=prev_flat_grad, prev_loss=prev_loss,
        )  # fmt: skip
        return orig_loss


def _two_loop(q: Tensor, old_dirs: list, old_stps: list, ro: list, h_diag: float) -> Tensor:
    """$H q$ by the two-loop recursion over the stored pairs $(s_i, y_i)$, with
    $\\rho_i = 1 / y_i^T s_i$."""
    alphas = [0.0] * len(old_dirs)
    for i in range(len(old_dirs) - 1, -1, -1):
        alphas[i] = _dot(old_stps[i], q) * ro[i]
        q = q.add(old_dirs[i], alpha=-alphas[i])
    r = q * h_diag
    for i in range(len(old_dirs)):
        beta = _dot(old_dirs[i], r) * ro[i]
        r = r.add(old_stps[i], alpha=alphas[i] - beta)
    return r
