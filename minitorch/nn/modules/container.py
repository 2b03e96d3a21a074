"""Containers: `Sequential` (a chain of modules), `ModuleList` and `ModuleDict` (modules
held in a list or dict, registered so their parameters belong to the model), and
`ParameterList` and `ParameterDict` (parameters held the same way)."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..._tensor import Tensor
from ..module import Module
from ..parameter import Parameter


def _absolute_index(idx: Any, size: int) -> int:
    """`idx` (negative counts from the end) as a position in a container of `size`."""
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


def _extend(container: Any, items: Any, kind: str, refused: tuple[type, ...] = ()) -> Any:
    """Append each of `items` to `container` (a `kind`, named as PyTorch's TypeError names it
    for anything not iterable or of a `refused` type); returns the container."""
    if isinstance(items, refused) or not isinstance(items, Iterable):
        raise TypeError(
            f"{kind}.extend should be called with an iterable, but got " + type(items).__name__
        )
    for item in items:
        container.append(item)
    return container


class _ModuleSequence(Module):
    """What `Sequential` and `ModuleList` share: modules in order, under the names "0",
    "1", ... (a `Sequential` built from an `OrderedDict` keeps its names until renumbered)."""

    def __delitem__(self, idx: int | slice) -> None:
        keys = list(self._modules)
        for key in keys[idx] if isinstance(idx, slice) else [keys[_absolute_index(idx, len(keys))]]:
            delattr(self, key)
        # as PyTorch: the remaining modules are numbered again from 0
        self._renumber(list(self._modules.values()))

    def _renumber(self, modules: list[Module]) -> None:
        """Hold `modules`, in this order, under the names "0", "1", ..."""
        self.__dict__["_modules"] = {str(i): module for i, module in enumerate(modules)}

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> _ModuleSequence:
        """Add `module` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self


class Sequential(_ModuleSequence):
    """Modules run one after the other: the output of each is the input of the next.

    Built from modules (named "0", "1", ...) or from an `OrderedDict` of named ones.

    >>> import minitorch
    >>> from minitorch import nn
    >>> model = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    >>> model
    Sequential(
      (0): Linear(in_features=2, out_features=3, bias=True)
      (1): ReLU()
    )
    >>> model(minitorch.ones(4, 2)).shape
    minitorch.Size([4, 3])
    """

    def __init__(self, *args: Module) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx: int | slice) -> Module:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        keys = list(self._modules)
        return self._modules[keys[_absolute_index(idx, len(keys))]]

    def __setitem__(self, idx: int, module: Module) -> None:
        keys = list(self._modules)
        setattr(self, keys[_absolute_index(idx, len(keys))], module)

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        """Add each module of `sequential` at the end; returns self."""
        for module in sequential:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Put `module` before position `index` (the modules are numbered again); returns self."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        size = len(self)
        if not -size <= index <= size:
            raise IndexError(f"Index out of range: {index}")
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._renumber(modules)
        return self

    def pop(self, key: int | slice) -> Module:
        """Remove the module at `key` and return it."""
        module = self[key]
        del self[key]
        return module

    def forward(self, input: Any) -> Any:  # noqa: A002
        for module in self:
            input = module(input)  # noqa: A001
        return input


class ModuleList(_ModuleSequence):
    """A list of modules whose parameters belong to the model (a Python list's would not).

    >>> from minitorch import nn
    >>> layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    >>> len(list(layers.parameters()))
    6
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx: int | slice) -> Module | ModuleList:
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_absolute_index(idx, len(self)))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, str(_absolute_index(idx, len(self))), module)

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Add each of `modules` at the end; returns self."""
        return _extend(self, modules, "ModuleList")

    def __repr__(self) -> str:
        """As torch prints it: a run of modules that print alike is one line,
        `(0-2): 3 x Linear(...)`."""
        runs: list[list] = []  # [first index, last index, text]
        for i, module in enumerate(self):
            text = repr(module)
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        if not runs:
            return f"{self._get_name()}()"
        lines = [
            (f"({first}): " if first == last else f"({first}-{last}): {last - first + 1} x ")
            + text.replace("\n", "\n  ")
            for first, last, text in runs
        ]
        return f"{self._get_name()}(\n  " + "\n  ".join(lines) + "\n)"

    def insert(self, index: int, module: Module) -> None:
        """Put `module` before position `index`."""
        modules = list(self._modules.values())
        modules.insert(index, module)
        self.__dict__["_modules"] = {}
        self.extend(modules)


class _Keyed(Module):
    """The sized, iterable and `in` parts of a dict-like container, over `_names()`: its
    ordered mapping from entry names."""

    def _names(self) -> Mapping[str, Any]:
        raise NotImplementedError

    def __len__(self) -> int:
        return len(self._names())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __contains__(self, key: object) -> bool:
        return key in self._names()


class ModuleDict(_Keyed):
    """A dict of modules (insertion order kept) whose parameters belong to the model.

    >>> from minitorch import nn
    >>> heads = nn.ModuleDict({"a": nn.Linear(2, 1), "b": nn.Identity()})
    >>> list(heads.keys())
    ['a', 'b']
    """

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def _names(self) -> Mapping[str, Any]:
        return self._modules

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove the module `key` and return it."""
        module = self[key]
        del self[key]
        return module

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def items(self) -> Iterable[tuple[str, Module]]:
        return self._modules.items()

    def values(self) -> Iterable[Module]:
        return self._modules.values()

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        """Add the modules of a mapping, or of an iterable of (key, module) pairs."""
        pairs = modules.items() if isinstance(modules, Mapping) else modules
        for key, module in pairs:
            self[key] = module


def _as_parameter(value: Any) -> Any:
    """A tensor becomes a `Parameter` (as PyTorch's parameter containers make it); a
    `Parameter` or another value stays as it is."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _describe(value: Any, kind: str) -> str:
    """PyTorch's line for a held value: `Parameter containing: [<kind> of size 2x3]`."""
    if not isinstance(value, Tensor):
        return f"Object of type: {type(value).__name__}"
    size = "x".join(str(n) for n in value.shape)
    device = f" ({value.device})" if value.device.type == "cuda" else ""
    label = "Parameter" if isinstance(value, Parameter) else "Tensor"
    return f"{label} containing: [{kind} of size {size}{device}]"


class ParameterList(Module):
    """A list of parameters registered as "0", "1", ... (tensors given become Parameters).

    >>> import minitorch
    >>> from minitorch import nn
    >>> weights = nn.ParameterList([minitorch.ones(2), minitorch.zeros(3)])
    >>> [name for name, _ in weights.named_parameters()]
    ['0', '1']
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return ParameterList(list(self)[idx])
        return getattr(self, str(_absolute_index(idx, len(self))))

    def __setitem__(self, idx: int, value: Any) -> None:
        setattr(self, str(_absolute_index(idx, len(self))), _as_parameter(value))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))

    def __iadd__(self, values: Iterable[Any]) -> ParameterList:
        return self.extend(values)

    def append(self, value: Any) -> ParameterList:
        """Add `value` at the end."""
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Add each of `values` at the end (a tensor is refused, as by PyTorch)."""
        return _extend(self, values, "ParameterList", (Tensor,))

    def extra_repr(self) -> str:
        return "\n".join(
            f"  ({i}): " + _describe(p, str(p.dtype) if isinstance(p, Tensor) else "")
            for i, p in enumerate(self)
        )


class ParameterDict(_Keyed):
    """A dict of parameters under their keys (insertion order kept; tensors given become
    Parameters), registered so they belong to the model."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def _names(self) -> Mapping[str, Any]:
        return self._keys

    def keys(self) -> Iterable[str]:
        return self._keys.keys()

    def items(self) -> Iterable[tuple[str, Any]]:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterable[Any]:
        return (self[k] for k in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def pop(self, key: str) -> Any:
        """Remove the entry `key` and return its value."""
        value = self[key]
        del self[key]
        return value

    def clear(self) -> None:
        """Remove every entry."""
        for key in list(self._keys):
            del self[key]

    def update(self, parameters: Any) -> None:
        """Add the entries of a mapping (or `ParameterDict`), or of (key, value) pairs."""
        if isinstance(parameters, Mapping | ParameterDict):
            pairs = list(parameters.items())
        else:
            pairs = []
            for i, pair in enumerate(parameters):
                if len(pair) != 2:
                    raise ValueError(
                        f"ParameterDict update sequence element #{i} has length {len(pair)}; "
                        "2 is required"
                    )
                pairs.append(pair)
        for key, value in pairs:
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(
            f"  ({k}): " + _describe(p, p.type() if isinstance(p, Tensor) else "")
            for k, p in self.items()
        )
