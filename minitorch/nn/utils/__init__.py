"""`minitorch.nn.utils`, as `torch.nn.utils`: gradient clipping and flat parameter vectors.

>>> import minitorch
>>> w = minitorch.tensor([3.0, 4.0], requires_grad=True)
>>> w.grad = minitorch.tensor([3.0, 4.0])
>>> minitorch.nn.utils.clip_grad_norm_([w], max_norm=1.0)
tensor(5.)
"""

from .clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
    "parameters_to_vector",
    "vector_to_parameters",
]
