"""`minitorch.nn`, as `torch.nn`: the building blocks of models.

`module.py` is the `Module` tree; `parameter.py` what it holds (`Parameter`,
`Buffer`, and module 0's `ScalarParameter`); `modules/` the layers, one file
per family, named once in `modules/__init__.py`'s `__all__` and re-exported
here as `torch.nn` does; `functional.py` the functions layers are made of
(`minitorch.nn.functional`, imported as `F` by convention); `init.py` the
starting weights. Everything here is written with the public tensor API only.
"""

from . import functional, init, modules
from .module import Module
from .modules import *  # noqa: F403 -- the layers, named once in modules/__init__.py's __all__
from .parameter import Buffer, Parameter, ScalarParameter

__all__ = [
    "Buffer",
    "functional",
    "init",
    "Module",
    "Parameter",
    "ScalarParameter",
    *modules.__all__,
]
