"""`FastBackend`'s fused kernels of a training step: softmax cross-entropy (the optional
kernels `cross_entropy` and `cross_entropy_backward`), ReLU's gradient in one pass
(`relu_backward`) and the SGD step of one parameter in one pass (`sgd_step`).

Cross-entropy composed from `log_softmax` and `nll_loss` walks the (N, C) logits about ten
times each way (max, subtract, exp, sum, log, compare with the targets, select, ...). Here
the forward reads each row once, for its maximum, log-sum-exp and loss
(`fused.cross_entropy_row`), and keeps the log-sum-exp; the backward reads the row again and
writes softmax minus one-hot, scaled (`fused.cross_entropy_row_grad`). Rows run in parallel
chunks from `parallel_threshold` logits; each chunk sums its losses and target weights, and
the chunks' sums are added in order, so a result does not depend on thread timing.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..fused import (
    MOMENTUM,
    class_weight,
    cross_entropy_row,
    cross_entropy_row_grad,
    sgd_element,
    storage_at,
)
from ..kernel_cache import compile_kernel, make_jitable
from ..tensor_data import TensorData
from .layout import _chunk_bounds, _pos

make_jitable(cross_entropy_row)
make_jitable(cross_entropy_row_grad)
make_jitable(sgd_element)


def _cross_entropy(losses, lse, totals, x, x0, target, t0, weight, settings, n_chunks):
    """Each row's loss into `losses` and log-sum-exp into `lse` (float64); `totals` gets the
    reduced loss (the sum, or with `mean` the sum over $\\sum w_t$) and $\\sum w_t$.

    `settings` is (rows, classes, ignore_index, smoothing, mean). Returns the first row whose
    target is outside $[0, C)$ and not `ignore_index`, or -1; such a row reads no logits.
    """
    rows, classes, ignore_index, smoothing, mean = settings
    first_bad = np.full(n_chunks, rows, np.int64)
    loss_sums = np.zeros(n_chunks, np.float64)
    weight_sums = np.zeros(n_chunks, np.float64)
    for chunk in prange(n_chunks):
        begin, end = _chunk_bounds(rows, n_chunks, chunk)
        for i in range(begin, end):
            t = target[t0 + i]
            if t == ignore_index or t < 0 or t >= classes:
                losses[i] = 0.0
                lse[i] = 0.0
                if t != ignore_index and first_bad[chunk] == rows:
                    first_bad[chunk] = i
                continue
            loss, lse[i] = cross_entropy_row(x, x0 + i * classes, classes, t, weight, smoothing)
            losses[i] = loss
            loss_sums[chunk] += loss
            weight_sums[chunk] += class_weight(weight, t)
    loss_sum = 0.0
    weight_sum = 0.0
    for chunk in range(n_chunks):
        loss_sum += loss_sums[chunk]
        weight_sum += weight_sums[chunk]
    totals[0] = loss_sum / weight_sum if mean else loss_sum
    totals[1] = weight_sum
    bad = first_bad.min()
    return bad if bad < rows else -1


def _cross_entropy_backward(out, grad, g0, x, x0, target, t0, weight, lse, settings, n_chunks):
    """Each row's gradient into `out` (contiguous from 0): `grad[g0 + i]` (per row) or
    `grad[g0]` (one reduced loss) times `fused.cross_entropy_row_grad`, divided by `divisor`
    ($\\sum w_t$ for the mean, else 1); 0 in rows of `ignore_index`.

    `settings` is (rows, classes, ignore_index, smoothing, divisor, per_row).
    """
    rows, classes, ignore_index, smoothing, divisor, per_row = settings
    weight_sum = 0.0
    for c in range(classes):
        weight_sum += class_weight(weight, c)
    for chunk in prange(n_chunks):
        begin, end = _chunk_bounds(rows, n_chunks, chunk)
        for i in range(begin, end):
            t = target[t0 + i]
            if t == ignore_index:
                for c in range(classes):
                    out[i * classes + c] = 0.0
                continue
            scale = (grad[g0 + i] if per_row else grad[g0]) / divisor
            row = (scale, lse[i], smoothing, weight_sum)
            cross_entropy_row_grad(out, i * classes, x, x0 + i * classes, classes, t, weight, row)


CROSS_ENTROPY_KERNELS = (
    compile_kernel(_cross_entropy, cross_entropy_row, False),
    compile_kernel(_cross_entropy, cross_entropy_row, True),
)
CROSS_ENTROPY_BACKWARD_KERNELS = (
    compile_kernel(_cross_entropy_backward, cross_entropy_row_grad, False),
    compile_kernel(_cross_entropy_backward, cross_entropy_row_grad, True),
)


def _sgd_kernel(w, i, g, j, b, k, size, settings, n_chunks):
    """`sgd_element` over `size` elements, `n_chunks` chunks in parallel; without momentum
    `b` is `g` and is not written (one store per array keeps the loop vectorizable)."""
    momentum = settings[MOMENTUM] != 0
    for chunk in prange(n_chunks):
        begin, end = _chunk_bounds(size, n_chunks, chunk)
        if momentum:
            for e in range(begin, end):
                w[_pos(i + e)], b[_pos(k + e)] = sgd_element(
                    w[_pos(i + e)], g[_pos(j + e)], b[_pos(k + e)], settings
                )
        else:
            for e in range(begin, end):  # `g` again as `b`: every value in the one dtype
                gradient = g[_pos(j + e)]
                w[_pos(i + e)], _ = sgd_element(w[_pos(i + e)], gradient, gradient, settings)


SGD_KERNELS = (
    compile_kernel(_sgd_kernel, sgd_element, False),
    compile_kernel(_sgd_kernel, sgd_element, True),
)


def relu_grad(a: float, g: float) -> float:
    """$g$ where $a > 0$ or $a$ is NaN, else 0: ReLU's gradient (PyTorch's, at NaN too)."""
    return 0.0 if a <= 0.0 else g


def flat(layout: TensorData) -> np.ndarray:
    """A contiguous layout's elements, as one array from its offset."""
    return layout.storage[layout.offset : layout.offset + layout.numel()]


def weight_storage(weight: TensorData | None, dtype) -> np.ndarray:
    """The class weights as one contiguous array; empty for no weights (`fused.class_weight`)."""
    return np.empty(0, dtype) if weight is None else flat(weight)


class TrainingKernels:
    """Cross-entropy of class indices in one pass each way, an SGD step in one pass and
    ReLU's backward as one zip
    (mixed into `FastBackend`, whose `choose` picks the serial or the parallel build): the
    optional kernels of those names, as `interface.OPTIONAL_KERNELS` describes them."""

    def cross_entropy(
        self, losses, lse, totals, logits, target, weight, ignore_index, smoothing, mean
    ) -> int:
        """`_cross_entropy` over the rows of the contiguous (N, C) `logits`."""
        rows, classes = logits.shape
        kernel, n_chunks = self.choose(
            CROSS_ENTROPY_KERNELS, rows * classes, self.parallel_threshold
        )
        settings = (rows, classes, ignore_index, float(smoothing), bool(mean))
        return kernel(
            flat(losses), flat(lse), flat(totals), logits.storage, logits.offset,
            target.storage, target.offset, weight_storage(weight, logits.storage.dtype),
            settings, n_chunks,
        )  # fmt: skip

    def cross_entropy_backward(
        self, grad_logits, grad, logits, target, weight, lse, totals, ignore_index, smoothing, mean
    ) -> None:
        """`_cross_entropy_backward` into the contiguous (N, C) `grad_logits`."""
        rows, classes = logits.shape
        divisor = float(totals.storage[totals.offset + 1]) if mean else 1.0
        per_row = grad.numel() == rows and len(grad.shape) == 1
        settings = (rows, classes, ignore_index, float(smoothing), divisor, per_row)
        kernel, n_chunks = self.choose(
            CROSS_ENTROPY_BACKWARD_KERNELS, rows * classes, self.parallel_threshold
        )
        kernel(
            flat(grad_logits), grad.storage, grad.offset, logits.storage, logits.offset,
            target.storage, target.offset, weight_storage(weight, logits.storage.dtype),
            flat(lse), settings, n_chunks,
        )  # fmt: skip

    def sgd_step(self, param, grad, momentum_buffer, settings) -> None:
        """One SGD step of each element of the three contiguous layouts (`_sgd_kernel`)."""
        size = param.numel()
        kernel, n_chunks = self.choose(SGD_KERNELS, size, self.parallel_threshold)
        layouts = (param, grad, momentum_buffer)
        kernel(*(x for layout in layouts for x in storage_at(layout)), size, settings, n_chunks)

    def relu_backward(self, out: TensorData, a: TensorData, grad: TensorData) -> None:
        """$out = g$ where $a > 0$ (or NaN), else 0: one zip kernel over the two layouts."""
        self.zip(relu_grad, out, a, grad)
