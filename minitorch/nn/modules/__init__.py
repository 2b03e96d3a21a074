"""The layers of `minitorch.nn`, one file per family as in `torch.nn.modules`.

`minitorch.nn` re-exports each of them (`minitorch.nn.Conv2d`, ...).
"""

from .activation import ELU, GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Tanh
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv1d, Conv2d
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .linear import Bilinear, Identity, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from .normalization import LayerNorm
from .pooling import AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d
from .sparse import Embedding

__all__ = [
    "AdaptiveAvgPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "BatchNorm1d",
    "BatchNorm2d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "Bilinear",
    "Conv1d",
    "Conv2d",
    "CrossEntropyLoss",
    "Dropout",
    "ELU",
    "Embedding",
    "Flatten",
    "GELU",
    "HuberLoss",
    "Identity",
    "L1Loss",
    "LayerNorm",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MaxPool1d",
    "MaxPool2d",
    "ModuleDict",
    "ModuleList",
    "MSELoss",
    "NLLLoss",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "SiLU",
    "SmoothL1Loss",
    "Softmax",
    "Tanh",
    "Unflatten",
]
