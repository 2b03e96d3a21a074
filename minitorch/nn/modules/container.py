"""Containers: `Sequential` (a chain of modules), `ModuleList` and `ModuleDict` (modules
held in a list or dict, registered so their parameters belong to the model)."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..module import Module


def _absolute_index(idx: Any, size: int) -> int:
    """`idx` (negative counts from the end) as a position in a container of `size`."""
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


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
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        for module in modules:
            self.append(module)
        return self

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


class ModuleDict(Module):
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

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

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
