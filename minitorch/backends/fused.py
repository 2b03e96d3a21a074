"""The math of the fused optimizer steps (the optional kernels `adam_step` and `sgd_step`) and
of the one-pass softmax cross-entropy, shared by every backend that offers them.

`Adam` written with tensor operations (`lerp_`, `mul_`, `addcmul_`, `sqrt`, `addcdiv_`)
walks the parameter's memory about ten times. `adam_element` is the update of one
element; a backend's `adam_step` runs it over the five tensors of a parameter (the parameter,
its gradient, Adam's two moments and, with amsgrad, the largest second moment), which
reads each once and writes the parameter and moments once, like `torch._fused_adam_`.

The five layouts share one contiguous shape and dtype (the caller checks), so the
kernels walk storage from each offset. The step's numbers come in `settings`, an
array of the tensors' dtype (a float32 step then computes in float32, as PyTorch's).
Without amsgrad the caller passes `exp_avg_sq` again as `max_exp_avg_sq`.
"""

from __future__ import annotations

import math

import numpy as np

from .tensor_data import TensorData

# Positions in `settings` (see `adam_settings`).
SIGN, L2, DECAY, WEIGHT1, BETA2, WEIGHT2, EPS, STEP_SIZE, CORRECTION2, AMSGRAD = range(10)


def adam_settings(
    dtype: np.dtype, step: float, lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, decoupled
) -> np.ndarray:
    """The numbers of one Adam step at step $t$ = `step`, in `dtype`, for `adam_element`:
    from the options of `torch._fused_adam_` (numbers; `amsgrad`, `maximize` and `decoupled`
    flags).

    Weight decay is $\\lambda w$ added to the gradient (L2), or with `decoupled`
    (AdamW) the factor $1 - \\mathrm{lr}\\,\\lambda$ on $w$; the bias corrections
    become the step size $\\mathrm{lr} / (1 - \\beta_1^t)$ and $\\sqrt{1 - \\beta_2^t}$.
    """
    values = [0.0] * 10
    values[SIGN] = -1.0 if maximize else 1.0
    values[L2] = 0.0 if decoupled else weight_decay
    values[DECAY] = 1 - lr * weight_decay if decoupled else 1.0
    values[WEIGHT1] = 1 - beta1
    values[BETA2] = beta2
    values[WEIGHT2] = 1 - beta2
    values[EPS] = eps
    values[STEP_SIZE] = lr / (1 - beta1**step)
    values[CORRECTION2] = (1 - beta2**step) ** 0.5
    values[AMSGRAD] = 1.0 if amsgrad else 0.0
    return np.array(values, dtype=dtype)


def adam_element(p, g, m, v, v_max, s):
    """One element's Adam step: the new $(w, m, v, v_{max})$ (PyTorch's order of operations).

    $g \\leftarrow \\pm g + \\lambda w$, $w \\leftarrow (1 - \\mathrm{lr}\\,\\lambda') w$,
    $m \\leftarrow \\mathrm{lerp}(m, g, 1 - \\beta_1)$,
    $v \\leftarrow \\beta_2 v + (1 - \\beta_2) g^2$, $v_{max} \\leftarrow \\max(v_{max}, v)$
    (amsgrad; without it $v_{max} = v$, so `v_max` may be `v`'s own storage),
    $w \\leftarrow w - s\\, m / (\\sqrt{v_{max}} / c_2 + \\epsilon)$.
    """
    g = g * s[SIGN] + s[L2] * p
    p = p * s[DECAY]
    weight = s[WEIGHT1]
    if weight < 0.5:  # torch.lerp's two forms
        m = m + weight * (g - m)
    else:
        m = g - (g - m) * (1 - weight)
    v = v * s[BETA2] + s[WEIGHT2] * g * g
    v_max = max(v_max, v) if s[AMSGRAD] != 0 else v
    p = p + -s[STEP_SIZE] * (m / (math.sqrt(v_max) / s[CORRECTION2] + s[EPS]))
    return p, m, v, v_max


def adam_loop(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, size: int, settings) -> None:
    """`adam_element` over `size` elements of the five (storage, offset) pairs, in Python."""
    (w, i), (g, j), (m, k), (v, l), (v_max, n) = (  # noqa: E741
        param,
        grad,
        exp_avg,
        exp_avg_sq,
        max_exp_avg_sq,
    )
    for e in range(size):
        w[i + e], m[k + e], v[l + e], v_max[n + e] = adam_element(
            w[i + e], g[j + e], m[k + e], v[l + e], v_max[n + e], settings
        )


# Positions in the settings of an SGD step (see `sgd_settings`).
SGD_SIGN, SGD_DECAY, MOMENTUM, KEEP, NESTEROV, FIRST, NEG_LR = range(7)


def sgd_settings(
    dtype: np.dtype, lr, momentum, dampening, weight_decay, nesterov, maximize, first
) -> np.ndarray:
    """The numbers of one SGD step, in `dtype`, for `sgd_element`: the options of
    `torch._fused_sgd_` (`first`: the momentum buffer starts as the gradient)."""
    values = [-1.0 if maximize else 1.0, weight_decay, momentum, 1 - dampening]
    values += [1.0 if nesterov else 0.0, 1.0 if first else 0.0, -lr]
    return np.array(values, dtype=dtype)


def sgd_element(p, g, b, s):
    """One element's SGD step: the new $(w, b)$, in the order of `optim.SGD`'s tensor
    operations (so in the same rounding): $g \\leftarrow \\pm g + \\lambda w$,
    $b \\leftarrow \\mu b + (1 - \\tau) g$ ($b = g$ at the first step),
    $w \\leftarrow w - \\mathrm{lr}\\, d$ with $d = b$, $g + \\mu b$ (Nesterov) or, without
    momentum, $d = g$ (`b` is then not used).
    """
    g = g * s[SGD_SIGN]
    if s[SGD_DECAY] != 0:
        g = g + s[SGD_DECAY] * p
    direction = g
    if s[MOMENTUM] != 0:
        b = g if s[FIRST] != 0 else b * s[MOMENTUM] + s[KEEP] * g
        direction = g + s[MOMENTUM] * b if s[NESTEROV] != 0 else b
    return p + s[NEG_LR] * direction, b


def storage_at(layout: TensorData) -> tuple:
    """A contiguous layout's (storage, offset)."""
    return layout.storage, layout.offset


# ---------------------------------------------------------------------------
# Softmax cross-entropy of class indices (the optional kernels `cross_entropy` and
# `cross_entropy_backward`): one pass over a row of logits each way
# ---------------------------------------------------------------------------


def class_weight(weight, c: int) -> float:
    """$w_c$, or 1 when `weight` is empty (no class weights)."""
    return weight[c] if len(weight) else 1.0


def cross_entropy_row(x, start: int, classes: int, t: int, weight, smoothing: float):
    """The loss and the log-sum-exp of the logits `x[start : start + classes]` with target
    class `t`, in float64: $m = \\max_c x_c$, $L = m + \\ln \\sum_c e^{x_c - m}$,

    $\\ell = (1 - \\varepsilon)\\, w_t (L - x_t)
    + \\frac{\\varepsilon}{C} \\sum_c w_c (L - x_c)$ (label smoothing $\\varepsilon$).
    """
    top = x[start]
    for c in range(1, classes):
        top = max(top, x[start + c])
    total = 0.0
    for c in range(classes):
        total += math.exp(x[start + c] - top)
    lse = top + math.log(total)
    loss = class_weight(weight, t) * (lse - x[start + t])
    if smoothing > 0.0:
        spread = 0.0
        for c in range(classes):
            spread += class_weight(weight, c) * (lse - x[start + c])
        loss = (1.0 - smoothing) * loss + smoothing / classes * spread
    return loss, lse


def cross_entropy_row_grad(out, o: int, x, start: int, classes: int, t: int, weight, settings):
    """$\\partial \\ell / \\partial x_c$ of `cross_entropy_row`, times the row's `scale`, into
    `out[o : o + classes]`, with $p_c = e^{x_c - L}$ and $W = \\sum_c w_c$:

    $s [(1 - \\varepsilon) w_t (p_c - [c = t]) + \\frac{\\varepsilon}{C} (W p_c - w_c)]$.
    `settings` is (scale, lse, smoothing, W).
    """
    scale, lse, smoothing, weight_sum = settings
    keep = (1.0 - smoothing) * class_weight(weight, t) * scale
    spread = smoothing / classes * scale
    for c in range(classes):
        g = (keep + spread * weight_sum) * math.exp(x[start + c] - lse)
        g -= spread * class_weight(weight, c)
        out[o + c] = g - keep if c == t else g
