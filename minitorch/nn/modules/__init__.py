"""The layers of `minitorch.nn`, one file per family as in `torch.nn.modules`.

`minitorch.nn` re-exports each of them (`minitorch.nn.Conv2d`, ...).
"""

from .activation import ELU, GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Tanh
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, Sequential
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
from .sparse import Embedding

__all__ = [
    "Bilinear",
    "ELU",
    "GELU",
    "Dropout",
    "Embedding",
    "Flatten",
    "Identity",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "ModuleDict",
    "ModuleList",
    "ReLU",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "Unflatten",
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
