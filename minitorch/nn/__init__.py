"""`minitorch.nn`, as `torch.nn`: the building blocks of models.

`module.py` is the `Module` tree (`Module`, `Parameter`, `Buffer`, and module 0's
`ScalarParameter`); `modules/` the layers, one file per family; `functional.py`
the functions layers are made of (`minitorch.nn.functional`, imported as `F` by
convention); `init.py` the starting weights. Everything here is written with the
public tensor API only.
"""

from . import functional, init
from .module import Buffer, Module, Parameter, ScalarParameter
from .modules import (
    ELU,
    GELU,
    BatchNorm1d,
    BatchNorm2d,
    BCELoss,
    BCEWithLogitsLoss,
    Bilinear,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Flatten,
    HuberLoss,
    Identity,
    L1Loss,
    LayerNorm,
    LeakyReLU,
    Linear,
    LogSoftmax,
    ModuleDict,
    ModuleList,
    MSELoss,
    NLLLoss,
    ReLU,
    Sequential,
    Sigmoid,
    SiLU,
    SmoothL1Loss,
    Softmax,
    Tanh,
    Unflatten,
)

__all__ = [
    "Bilinear",
    "Buffer",
    "ELU",
    "GELU",
    "Dropout",
    "Embedding",
    "Flatten",
    "Identity",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "Module",
    "ModuleDict",
    "ModuleList",
    "Parameter",
    "ReLU",
    "ScalarParameter",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "Unflatten",
    "functional",
    "init",
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
