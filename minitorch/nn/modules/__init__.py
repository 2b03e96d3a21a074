"""The layers of `minitorch.nn`, one file per family as in `torch.nn.modules`.

`minitorch.nn` re-exports each of them (`minitorch.nn.Conv2d`, ...).
"""

from .activation import ELU, GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Tanh
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv1d, Conv2d
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .linear import Bilinear, Identity, Linear
from .pooling import AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d
from .sparse import Embedding

__all__ = [
    "AdaptiveAvgPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "Bilinear",
    "Conv1d",
    "Conv2d",
    "Dropout",
    "ELU",
    "Embedding",
    "Flatten",
    "GELU",
    "Identity",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MaxPool1d",
    "MaxPool2d",
    "ModuleDict",
    "ModuleList",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "SiLU",
    "Softmax",
    "Tanh",
    "Unflatten",
]
