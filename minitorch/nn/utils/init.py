"""`skip_init`, as `torch.nn.utils.skip_init`: a module built without the promise of any
starting values."""

from __future__ import annotations

import inspect

from ..module import Module


def skip_init(module_cls: type, *args, **kwargs) -> Module:
    """`module_cls(*args, **kwargs)` whose parameters and buffers are to be written by the
    caller (their values are unspecified, as in PyTorch). PyTorch builds the module on its
    `meta` device and then allocates it; minitorch has no `meta` device, so the module is
    built on its device directly, which is why `module_cls` must take `device`.

    >>> import minitorch
    >>> tuple(skip_init(minitorch.nn.Linear, 5, 1).weight.shape)
    (1, 5)
    """
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    return module_cls(*args, **kwargs)
