"""`BatchNorm1d`, `BatchNorm2d` and `BatchNorm3d`, as in `torch.nn.modules.batchnorm`.

In training a batch-norm layer normalizes each channel with the statistics of the batch
and keeps running averages of them in its buffers `running_mean` and `running_var`
(`num_batches_tracked` counts the batches); in evaluation it uses those averages, so one
sample's output does not depend on the rest of its batch.
"""

from __future__ import annotations

from ... import dtypes
from ..._tensor import Tensor
from ...autograd import no_grad
from ...tensors.creation import ones, tensor, zeros
from .. import functional as F
from ..module import Module
from .normalization import register_affine


class _BatchNorm(Module):
    """Batch normalization of the channels (dim 1) of the input (`F.batch_norm`).

    `momentum` $m$ moves the running statistics $r \\leftarrow (1 - m) r + m s$ towards each
    batch's mean and unbiased variance $s$; `momentum=None` makes them the plain average of
    all batches so far. `affine` learns a per-channel scale $\\gamma$ and shift $\\beta$;
    `track_running_stats=False` keeps no statistics and always uses the batch's.
    """

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        register_affine(self, (num_features,), affine, affine and bias, device, dtype)
        options = {"dtype": dtype, "device": device}
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, **options))
            self.register_buffer("running_var", ones(num_features, **options))
            self.register_buffer(
                "num_batches_tracked", tensor(0, dtype=dtypes.int64, device=device)
            )
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batch seen."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        raise NotImplementedError

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # the average of all batches: the n-th weighs 1/n
                factor = 1.0 / self.num_batches_tracked.item()
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        keep_stats = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if keep_stats else None,
            self.running_var if keep_stats else None,
            self.weight,
            self.bias,
            use_batch_stats,
            factor,
            self.eps,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalization of (N, C) or (N, C, L) inputs.

    >>> import minitorch
    >>> minitorch.nn.BatchNorm1d(3)
    BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization of (N, C, H, W) inputs: one mean and variance per channel."""

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.ndim != 4:
            raise ValueError(f"expected 4D input (got {input.ndim}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalization of (N, C, D, H, W) inputs: one mean and variance per channel."""

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.ndim != 5:
            raise ValueError(f"expected 5D input (got {input.ndim}D input)")
