"""Where a tensor's storage lives: `minitorch.device('cpu')`, `device('cuda:0')`."""

from __future__ import annotations

from ..backends import device_types, has_backend


class device:  # noqa: N801 -- PyTorch's name
    """Where a tensor's storage lives: `minitorch.device('cpu')`, `device('cuda:0')`."""

    __slots__ = ("type", "index")

    def __init__(self, spec: str | device, index: int | None = None):
        if isinstance(spec, device):
            spec, index = spec.type, spec.index if index is None else index
        kind, _, number = str(spec).partition(":")
        known = device_types()  # cpu, cuda, and any other registered by a backend
        if kind not in known:
            raise RuntimeError(
                f"Expected one of {', '.join(known)} device type at start of device string: {spec}"
            )
        self.type = kind
        self.index = int(number) if number else index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")
CUDA = device("cuda", 0)

_default_device: device | None = None  # set_default_device's; None means the CPU


def set_default_device(spec) -> None:
    """Where factory functions (`tensor`, `zeros`, `rand`, ...) put tensors without `device=`
    (None: back to the CPU). Checked when a tensor is made there, as in PyTorch."""
    global _default_device
    _default_device = None if spec is None else device(spec)


def get_default_device() -> device:
    """The device of `set_default_device` (the CPU unless changed)."""
    return CPU if _default_device is None else _default_device


def legacy_constructor_device(spec, expected: str = "cpu") -> device:
    """Where a legacy constructor (`Tensor(...)`, `FloatTensor(...)`, `cuda.FloatTensor(...)`)
    puts its tensor: on its device type (`expected`) whatever the default device, as PyTorch's;
    naming another device is refused with PyTorch's text."""
    if spec is not None and (named := device(spec)).type != expected:
        raise RuntimeError(
            f"legacy constructor expects device type: {expected} but device type: {named.type} "
            "was passed"
        )
    return device(expected)


def check_device(target: device) -> device:
    """`target` if tensors can live there; a clear RuntimeError otherwise.

    Every device type but `cpu` has one device, index 0 (`cuda` is `cuda:0`).
    """
    if not has_backend(target.type):
        if target.type == "cuda":
            raise RuntimeError(
                f"cannot place a tensor on '{target}': minitorch has no CUDA device available "
                "(minitorch.cuda.is_available() is False)"
            )
        raise RuntimeError(f"cannot place a tensor on '{target}': no backend runs it")
    if target.type == "cpu":
        return target
    if target.index not in (None, 0):
        raise RuntimeError(
            f"{target.type.upper()} error: invalid device ordinal "
            f"(minitorch uses {target.type}:0 only)"
        )
    return CUDA if target.type == "cuda" else device(target.type, 0)


def check_same_device(first: device, second: device) -> None:
    """PyTorch's error when an operation gets tensors on two devices."""
    if first != second:
        # the accelerator first, as PyTorch names them ("cuda:0 and cpu")
        device_one, other = (first, second) if first.type != "cpu" else (second, first)
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found at least two devices, "
            f"{device_one} and {other}!"
        )
