"""`minitorch.nn.utils`, as `torch.nn.utils`: gradient clipping, flat parameter vectors,
batch norms folded into the layer before them, and reparametrized weights (weight norm,
spectral norm, `parametrize`).

>>> import minitorch
>>> w = minitorch.tensor([3.0, 4.0], requires_grad=True)
>>> w.grad = minitorch.tensor([3.0, 4.0])
>>> minitorch.nn.utils.clip_grad_norm_([w], max_norm=1.0)
tensor(5.)
"""

from . import parametrizations, parametrize, rnn
from .clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from .init import skip_init
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
    "get_total_norm",
    "parameters_to_vector",
    "rnn",
    "vector_to_parameters",
    "parametrizations",
    "parametrize",
    "remove_spectral_norm",
    "remove_weight_norm",
    "skip_init",
    "spectral_norm",
    "weight_norm",
]
