"""Which backend runs a tensor's operations: a table keyed by device type.

A tensor reaches its kernels through its device: `backend_for(t.device)`. The
device types are the ones registered here: each backend module registers its
backends (`register_backend`), and a device type can be known before any backend
runs it (`register_device_type`: `cuda` is a device type on a machine without a
GPU, as in PyTorch, where placing a tensor there is a clear error). This file
imports no backend: `backends/__init__.py` has the registration lines.

Each device type has one active backend, the first registered unless
`set_backend` chooses another; `cpu` has three (`"fast"`, `"student"`, `"simple"`).
"""

from __future__ import annotations

from .interface import Backend

# device type -> {backend name -> backend}; the first one registered is active
_BACKENDS: dict[str, dict[str, Backend]] = {}
_ACTIVE: dict[str, Backend] = {}
# every known device type, in the order they were made known (the order of error messages)
_DEVICE_TYPES: dict[str, bool] = {}  # device type -> whether known without a backend


def register_device_type(device_type: str) -> None:
    """Make `device_type` a known device type even while no backend runs it."""
    _DEVICE_TYPES[device_type] = True


def register_backend(device_type: str, backend: Backend) -> None:
    """Make `backend` available to tensors on `device_type` (active if it is the first)."""
    _DEVICE_TYPES.setdefault(device_type, False)
    _BACKENDS.setdefault(device_type, {})[backend.name] = backend
    _ACTIVE.setdefault(device_type, backend)


def unregister_backend(device_type: str, name: str | None = None) -> None:
    """Take backend `name` (every backend when None) away from `device_type`.

    When it was the active one, the first one left becomes active; when none is
    left, tensors can no longer be placed there, and a device type that only its
    backends made known is forgotten (`device(device_type)` is an error again).
    """
    choices = _BACKENDS.get(device_type, {})
    for key in list(choices) if name is None else [name]:
        removed = choices.pop(key, None)
        if removed is not None and _ACTIVE.get(device_type) is removed:
            del _ACTIVE[device_type]
    if choices:
        _ACTIVE.setdefault(device_type, next(iter(choices.values())))
        return
    _BACKENDS.pop(device_type, None)
    if _DEVICE_TYPES.get(device_type) is False:
        del _DEVICE_TYPES[device_type]


def device_types() -> tuple[str, ...]:
    """Every known device type: those with a backend and those registered without one."""
    return tuple(_DEVICE_TYPES)


def backend_for(device) -> Backend:
    """The backend that runs operations on tensors of `device` (a `minitorch.device`)."""
    return _ACTIVE[device.type]


def has_backend(device_type: str) -> bool:
    """Whether tensors can live on `device_type`."""
    return device_type in _ACTIVE


def set_backend(name: str, device_type: str = "cpu") -> None:
    """Choose the backend of `cpu` tensors: `"fast"` (the default), `"student"` or `"simple"`.

    >>> import minitorch
    >>> minitorch.get_backend().name
    'fast'
    >>> minitorch.set_backend("simple")  # the reference loops, for learning and debugging
    >>> minitorch.get_backend().name
    'simple'
    >>> minitorch.set_backend("fast")
    """
    choices = _BACKENDS.get(device_type, {})
    if name not in choices:
        raise ValueError(f"unknown backend {name!r}; choose one of {sorted(choices)}")
    _ACTIVE[device_type] = choices[name]


def active_backends() -> dict[str, Backend]:
    """The active backend of each device type that has one."""
    return dict(_ACTIVE)


def activate(device_type: str, backend: Backend) -> None:
    """Run `device_type`'s operations on `backend`: a registered one, or a stand-in in
    front of one (the profiler's timing wrapper) that `set_backend` can replace again."""
    _ACTIVE[device_type] = backend


def get_backend(device_type: str = "cpu") -> Backend:
    """The backend `device_type` tensors currently run on."""
    return _ACTIVE[device_type]
