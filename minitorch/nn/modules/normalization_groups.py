"""`GroupNorm`, `RMSNorm`, `LocalResponseNorm` (as in `torch.nn.modules.normalization`) and
`InstanceNorm1d`/`2d`/`3d` (as in `torch.nn.modules.instancenorm`)."""

from __future__ import annotations

import warnings

from ..._tensor import Tensor
from .. import functional as F
from ..module import Module
from .batchnorm import _BatchNorm
from .function_layer import options_repr
from .normalization import register_affine, set_up_shape_norm, shape_norm_repr


class GroupNorm(Module):
    """$\\gamma (x - \\mu_g) / \\sqrt{\\sigma_g^2 + \\epsilon} + \\beta$ with the channels
    (dim 1) in `num_groups` groups, each normalized over its channels and positions
    (`F.group_norm`); `affine` learns $\\gamma$ (ones) and $\\beta$ (zeros, unless
    `bias=False`), one per channel.

    >>> import minitorch
    >>> minitorch.nn.GroupNorm(2, 4)
    GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
    """

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(
                f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        register_affine(self, (num_channels,), affine, affine and bias, device, dtype)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        options = options_repr(self, ("eps", "affine"))
        return f"{self.num_groups}, {self.num_channels}, {options}, bias={self.bias is not None}"


class RMSNorm(Module):
    """$\\gamma \\, x / \\sqrt{\\overline{x^2} + \\epsilon}$ over the last dims, those of
    `normalized_shape` (`F.rms_norm`); `eps=None` is the dtype's machine epsilon;
    `elementwise_affine` learns $\\gamma$ (ones).

    >>> import minitorch
    >>> minitorch.nn.RMSNorm(3)
    RMSNorm((3,), eps=None, elementwise_affine=True)
    """

    def __init__(
        self,
        normalized_shape,
        eps: float | None = None,
        elementwise_affine: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        set_up_shape_norm(self, normalized_shape, eps, elementwise_affine, None, device, dtype)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return shape_norm_repr(self)


class LocalResponseNorm(Module):
    """$x_c / (k + \\frac{\\alpha}{n} \\sum_{c'} x_{c'}^2)^\\beta$ over windows of `size`
    channels (`F.local_response_norm`).

    >>> import minitorch
    >>> minitorch.nn.LocalResponseNorm(2)
    LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, " + options_repr(self, ("alpha", "beta", "k"))


class _InstanceNorm(_BatchNorm):
    """Each channel of each sample normalized over its positions (`F.instance_norm`).

    Unlike batch norm, `affine` and `track_running_stats` are off by default; with running
    statistics, evaluation uses them (and `num_batches_tracked` stays 0, as in PyTorch). An
    input without the batch dim is one sample.
    """

    no_batch_dim: int  # the number of dims of one sample

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )
        self._register_load_state_dict_pre_hook(self._refuse_running_stats)

    def _refuse_running_stats(
        self, state_dict, prefix, metadata, strict, missing, unexpected, errors
    ):
        """PyTorch's error for running statistics given to a layer that keeps none (a state
        dict without version metadata, as every minitorch one is, may be from before
        instance norms stopped keeping them by default)."""
        if self.track_running_stats:
            return
        keys = [prefix + name for name in ("running_mean", "running_var")]
        keys = [key for key in keys if key in state_dict]
        if not keys:
            return
        names, kind = " and ".join(f'"{key}"' for key in keys), type(self).__name__
        errors.append(
            f"Unexpected running stats buffer(s) {names} for {kind} with "
            "track_running_stats=False. If state_dict is a checkpoint saved before 0.4.0, this "
            f"may be expected because {kind} does not track running stats by default since "
            "0.4.0. Please remove these keys from state_dict. If the running stats are "
            f"actually needed, instead set track_running_stats=True in {kind} to enable them. "
            f"See the documentation of {kind} for details."
        )
        for key in keys:
            state_dict.pop(key)

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.ndim not in (self.no_batch_dim, self.no_batch_dim + 1):
            raise ValueError(
                f"expected {self.no_batch_dim}D or {self.no_batch_dim + 1}D input "
                f"(got {input.ndim}D input)"
            )

    def _apply_instance_norm(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        self._check_input_dim(input)
        feature_dim = input.ndim - self.no_batch_dim
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.shape[feature_dim]}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can "
                "silence this warning by not passing in num_features, which is not used "
                "because affine=False",
                stacklevel=2,
            )
        if input.ndim == self.no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L) or unbatched (C, L) inputs.

    >>> import minitorch
    >>> minitorch.nn.InstanceNorm1d(3)
    InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
    """

    no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W) or unbatched (C, H, W) inputs."""

    no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W) or unbatched (C, D, H, W) inputs."""

    no_batch_dim = 4
