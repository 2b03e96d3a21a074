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
    AdaptiveAvgPool2d,
    AvgPool1d,
    AvgPool2d,
    Bilinear,
    Conv1d,
    Conv2d,
    Dropout,
    Embedding,
    Flatten,
    Identity,
    LeakyReLU,
    Linear,
    LogSoftmax,
    MaxPool1d,
    MaxPool2d,
    ModuleDict,
    ModuleList,
    ReLU,
    Sequential,
    Sigmoid,
    SiLU,
    Softmax,
    Tanh,
    Unflatten,
)

__all__ = [
    "AdaptiveAvgPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "Bilinear",
    "Buffer",
    "Conv1d",
    "Conv2d",
    "Dropout",
    "ELU",
    "Embedding",
    "Flatten",
    "functional",
    "GELU",
    "Identity",
    "init",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MaxPool1d",
    "MaxPool2d",
    "Module",
    "ModuleDict",
    "ModuleList",
    "Parameter",
    "ReLU",
    "ScalarParameter",
    "Sequential",
    "Sigmoid",
    "SiLU",
    "Softmax",
    "Tanh",
    "Unflatten",
]
