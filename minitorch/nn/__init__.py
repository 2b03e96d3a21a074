"""`minitorch.nn`, as `torch.nn`: the building blocks of models.

`module.py` is the `Module` tree of module 0 (`Module`, `Parameter`);
`linear.py` the fully connected layer; `functional.py` the functions layers
are made of (`minitorch.nn.functional`, imported as `F` by convention).
Everything here is written with the public tensor API only.
"""

from . import functional
from .linear import Linear
from .module import Module, Parameter
from .modules.batchnorm import BatchNorm1d, BatchNorm2d
from .modules.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from .modules.normalization import LayerNorm

__all__ = [
    "Linear",
    "Module",
    "Parameter",
    "functional",
    # losses and normalization
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "CrossEntropyLoss",
    "HuberLoss",
    "L1Loss",
    "LayerNorm",
    "MSELoss",
    "NLLLoss",
    "SmoothL1Loss",
]
