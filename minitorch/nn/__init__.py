"""`minitorch.nn`, as `torch.nn`: the building blocks of models.

`module.py` is the `Module` tree; `parameter.py` what it holds (`Parameter`,
`Buffer`, and module 0's `ScalarParameter`); `modules/` the layers, one file
per family, each imported here by name as `torch.nn` has them;
`functional.py` the functions layers are made of (`minitorch.nn.functional`,
imported as `F` by convention); `init.py` the starting weights. Everything
here is written with the public tensor API only.
"""

from . import functional, init, utils
from .module import Module
from .modules.activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softmax2d,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from .modules.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .modules.container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .modules.conv import Conv1d, Conv2d
from .modules.dropout import Dropout
from .modules.flatten import Flatten, Unflatten
from .modules.linear import Bilinear, Identity, Linear
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
from .modules.normalization_groups import (
    GroupNorm,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    LocalResponseNorm,
    RMSNorm,
)
from .modules.pooling import AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d
from .modules.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .modules.sparse import Embedding
from .parameter import Buffer, Parameter, ScalarParameter

__all__ = [
    "Buffer",
    "functional",
    "init",
    "utils",
    "Module",
    "Parameter",
    "ScalarParameter",
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
    "ParameterDict",
    "RReLU",
    "Softmax2d",
    "GRU",
    "GRUCell",
    "LSTM",
    "LSTMCell",
    "RNN",
    "RNNBase",
    "RNNCell",
    "RNNCellBase",
    "ParameterList",
    "CELU",
    "GLU",
    "Hardshrink",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "LogSigmoid",
    "Mish",
    "PReLU",
    "ReLU6",
    "SELU",
    "Softmin",
    "Softplus",
    "Softshrink",
    "Softsign",
    "Tanhshrink",
    "Threshold",
    "GroupNorm",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "LocalResponseNorm",
    "RMSNorm",
    "BatchNorm3d",
]
