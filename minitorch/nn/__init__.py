"""`minitorch.nn`, as `torch.nn`: the building blocks of models.

`module.py` is the `Module` tree of module 0 (`Module`, `Parameter`);
`linear.py` the fully connected layer; `functional.py` the functions layers
are made of (`minitorch.nn.functional`, imported as `F` by convention).
Everything here is written with the public tensor API only.
"""

from . import functional
from .linear import Linear
from .module import Module, Parameter
from .modules.conv import Conv1d, Conv2d
from .modules.pooling import AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d

__all__ = [
    "Linear",
    "Module",
    "Parameter",
    "functional",
    # convolution and pooling layers
    "AdaptiveAvgPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "Conv1d",
    "Conv2d",
    "MaxPool1d",
    "MaxPool2d",
]
