"""minitorch: a small autograd framework that teaches how PyTorch works by building it.

Every public name is imported explicitly below and listed in ``__all__``.
"""

from . import autograd, cuda, linalg, nn, operators, optim, profiler, utils
from ._tensor import Tensor
from .autodiff import Context, backpropagate, central_difference, topological_sort
from .autograd import (
    Function,
    GradcheckError,
    enable_grad,
    grad_check,
    inference_mode,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .backends import get_backend, set_backend
from .backends.tensor_data import TensorData
from .dtypes import DType as dtype
from .dtypes import bool_ as bool  # noqa: A004 -- PyTorch's dtype names
from .dtypes import (
    can_cast,
    finfo,
    float32,
    float64,
    get_default_dtype,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    result_type,
    set_default_dtype,
    uint8,
)
from .dtypes import float32 as float  # noqa: A004
from .dtypes import float64 as double
from .dtypes import int16 as short
from .dtypes import int32 as int  # noqa: A004
from .dtypes import int64 as long
from .nn import Module, Parameter, ScalarParameter
from .ops.api import TORCH_FUNCTIONS
from .scalar import Scalar, derivative_check
from .serialization import load, save
from .tensors.base import Size
from .tensors.creation import (
    Generator,
    arange,
    bernoulli,
    default_generator,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    initial_seed,
    is_tensor,
    linspace,
    manual_seed,
    multinomial,
    normal,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    seed,
    tensor,
    zeros,
    zeros_like,
)
from .tensors.device import device, get_default_device, set_default_device
from .tensors.format import set_printoptions

# The operations (`minitorch.add`, `minitorch.exp`, ...) come from their declarations in ops/
# (`ops/public.py`), each written once beside its Function; `__init__.pyi` lists them for IDEs.
globals().update(TORCH_FUNCTIONS)

__all__: list[str] = [
    "Generator",
    "bernoulli",
    "default_generator",
    "initial_seed",
    "multinomial",
    "normal",
    "randperm",
    "seed",
    "manual_seed",
    "arange",
    "empty",
    "empty_like",
    "eye",
    "from_numpy",
    "full",
    "full_like",
    "is_tensor",
    "linspace",
    "ones",
    "ones_like",
    "rand",
    "rand_like",
    "randint",
    "randn",
    "randn_like",
    "tensor",
    "zeros",
    "zeros_like",
    "get_default_device",
    "set_default_device",
    "device",
    "set_printoptions",
    "autograd",
    "cuda",
    "linalg",
    "nn",
    "operators",
    "optim",
    "profiler",
    "utils",
    "Context",
    "backpropagate",
    "central_difference",
    "topological_sort",
    "Function",
    "GradcheckError",
    "enable_grad",
    "grad_check",
    "inference_mode",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_grad_enabled",
    "get_backend",
    "set_backend",
    "Module",
    "Parameter",
    "ScalarParameter",
    "load",
    "save",
    "Scalar",
    "derivative_check",
    "Size",
    "Tensor",
    "TensorData",
    "dtype",
    "bool",
    "float",
    "double",
    "long",
    "int",
    "short",
    "float32",
    "float64",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "can_cast",
    "finfo",
    "iinfo",
    "promote_types",
    "result_type",
    "get_default_dtype",
    "set_default_dtype",
    *TORCH_FUNCTIONS,
]
