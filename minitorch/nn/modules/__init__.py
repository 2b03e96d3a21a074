"""The layers of `minitorch.nn`, one file per family as in `torch.nn.modules`.

`minitorch.nn` re-exports each of them (`minitorch.nn.Conv2d`, ...).
"""

from .activation import ELU, GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Tanh
from .container import ModuleDict, ModuleList, Sequential
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .linear import Bilinear, Identity, Linear
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
]
