"""minitorch: a small autograd framework that teaches how PyTorch works by building it.

Every public name is imported explicitly below and listed in ``__all__``.
"""

from . import operators
from .autodiff import Context, backpropagate, central_difference, topological_sort
from .module import Module, Parameter
from .scalar import Scalar, derivative_check
from .tensor_format import set_printoptions

__all__: list[str] = [
    "operators",
    "Context",
    "backpropagate",
    "central_difference",
    "topological_sort",
    "Module",
    "Parameter",
    "Scalar",
    "derivative_check",
    "set_printoptions",
]
