"""`minitorch.save` and `minitorch.load`: tensors and state dicts in safetensors files.

A safetensors file is an 8-byte little-endian header length, a JSON header (each
tensor's dtype, shape and byte range, plus a `__metadata__` dict of strings) and the
raw bytes. Reading one runs no code, unlike the pickles of `torch.save`; PyTorch
reads and writes the same files with `safetensors.torch`.

What `save` accepts: a tensor, or a dict (list, tuple) nested to any depth whose
leaves are tensors, numbers, strings, bools or None: a `state_dict`, an optimizer's
state dict. The tensors are stored flat, each under the path of keys that leads to
it joined by "." (a top-level dict of tensors, such as a `state_dict`, keeps its own
keys, so `safetensors.torch.load_file` gives PyTorch the same `state_dict`). The
structure around them, with every non-tensor value, is JSON in the metadata entry
`minitorch.structure`, so `load` gives back the object that was saved.
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Mapping
from typing import Any, BinaryIO

import numpy as np
import safetensors
import safetensors.numpy

from ._tensor import Tensor
from .tensors.creation import from_numpy

STRUCTURE_KEY = "minitorch.structure"
_TENSOR, _DICT, _LIST, _TUPLE = "__tensor__", "__dict__", "__list__", "__tuple__"
_ZIP_MAGIC, _PICKLE_PROTOCOL = b"PK\x03\x04", 0x80

FileLike = str | os.PathLike | BinaryIO


def save(obj: Any, f: FileLike) -> None:
    """Write `obj` (a tensor, or nested dicts/lists of tensors and plain values) to `f`,
    a path or a binary file, in the safetensors format.

    >>> import io, minitorch
    >>> buffer = io.BytesIO()
    >>> minitorch.save({"w": minitorch.ones(2), "step": 3}, buffer)
    >>> minitorch.load(io.BytesIO(buffer.getvalue()))
    {'w': tensor([1., 1.]), 'step': 3}
    """
    arrays: dict[str, np.ndarray] = {}
    structure = _encode(obj, [], arrays, top=True)
    metadata = {"format": "pt", STRUCTURE_KEY: json.dumps(structure)}
    data = safetensors.numpy.save(arrays, metadata=metadata)
    if hasattr(f, "write"):
        f.write(data)
    else:
        with open(f, "wb") as file:
            file.write(data)


def _encode(value: Any, path: list[str], arrays: dict, top: bool = False) -> Any:
    """The JSON skeleton of `value`; its tensors go into `arrays` under their dotted path."""
    if isinstance(value, Tensor):
        name = ".".join(path) if path else "tensor"
        if name in arrays:  # keys such as "a.b" and ("a", "b") would collide
            name = f"{name}#{len(arrays)}"
        arrays[name] = np.array(value.detach().cpu().numpy(), order="C")
        return {_TENSOR: name}
    if isinstance(value, Mapping):
        items = []
        for key, item in value.items():
            if isinstance(key, bool) or not isinstance(key, (str, int)):
                raise TypeError(
                    f"minitorch.save: dict keys must be strings or ints, got {type(key).__name__}"
                )
            # a state_dict's own keys, unchanged at the top level
            inner = [key] if top and isinstance(key, str) else [*path, str(key)]
            items.append([key, _encode(item, inner, arrays)])
        return {_DICT: items}
    if isinstance(value, (list, tuple)):
        encoded = [_encode(item, [*path, str(i)], arrays) for i, item in enumerate(value)]
        return {_TUPLE if isinstance(value, tuple) else _LIST: encoded}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(
        "minitorch.save stores tensors, numbers, strings, bools and None, in (nested) dicts, "
        f"lists and tuples; got {type(value).__name__}"
    )


def load(
    f: FileLike, map_location: Any = None, *, weights_only: bool | None = None, mmap=None
) -> Any:
    """Read what `save` wrote (or any safetensors file, as a dict of tensors) from `f`,
    a path or a binary file; `map_location` moves the tensors to that device.
    `weights_only` and `mmap` are accepted as PyTorch's `load` takes them: every load
    here reads tensors and plain containers only (what `weights_only=True` asks for),
    read whole into memory.

    Never unpickles: a `torch.save` file (.pt, .pth, .bin) is refused with the way to
    convert it.
    """
    name = getattr(f, "name", f if isinstance(f, (str, os.PathLike)) else "the file")
    if hasattr(f, "read"):
        data = f.read()
    else:
        with open(f, "rb") as file:
            data = file.read()
    metadata = _check_header(data, name)
    try:
        arrays = safetensors.numpy.load(data)
    except safetensors.SafetensorError as error:
        raise RuntimeError(f"{name} is not a valid safetensors file: {error}") from None
    tensors = {}
    for key, array in arrays.items():
        t = from_numpy(np.array(array))
        tensors[key] = mapped(t, map_location)
    if STRUCTURE_KEY not in metadata:
        return tensors
    return _decode(json.loads(metadata[STRUCTURE_KEY]), tensors)


def mapped(t, map_location: Any):
    """`t` where `map_location` puts it: a device (or its name), a dict from the saved
    location's name to another, or a function `(tensor, location) -> tensor`, as in PyTorch
    (tensors are saved from the CPU: their location is `"cpu"`)."""
    if map_location is None:
        return t
    if callable(map_location):
        result = map_location(t, "cpu")
        return t if result is None else result
    if isinstance(map_location, dict):
        target = map_location.get("cpu")
        return t if target is None else t.to(target)
    return t.to(map_location)


def _check_header(data: bytes, name: Any) -> dict:
    """The `__metadata__` of a safetensors file; a clear error for a pickle or a broken file.

    A safetensors file starts with the 8-byte length of its JSON header; a PyTorch file is a
    zip archive (`PK\\x03\\x04`) or, in the legacy format, a pickle (`\\x80` and a protocol
    number). The header is tried first: its length can begin with the byte `\\x80` too.
    """
    header = None
    if len(data) >= 8:
        (length,) = struct.unpack("<Q", data[:8])
        if 8 + length <= len(data):
            try:
                header = json.loads(data[8 : 8 + length])
            except (UnicodeDecodeError, ValueError):
                header = None
    if isinstance(header, dict):
        return header.get("__metadata__") or {}
    if data[:4] == _ZIP_MAGIC or (data[:1] == bytes([_PICKLE_PROTOCOL]) and data[1:2] < b"\x06"):
        raise RuntimeError(
            f"{name} is a PyTorch pickle file (written by torch.save), not a safetensors file. "
            "minitorch.load never unpickles: unpickling can run any code the file contains. "
            "Convert it once in PyTorch: `import torch, safetensors.torch; "
            "safetensors.torch.save_file(torch.load(PATH, weights_only=True), "
            "'model.safetensors')` (for a state_dict), then load the .safetensors file."
        )
    if len(data) < 8:
        raise RuntimeError(f"{name} is not a valid safetensors file: it has {len(data)} bytes")
    raise RuntimeError(f"{name} is not a valid safetensors file: its header is broken")


def _decode(skeleton: Any, tensors: dict[str, Tensor]) -> Any:
    """The object `_encode` described by `skeleton`, with the loaded `tensors`."""
    if isinstance(skeleton, dict):
        if _TENSOR in skeleton:
            return tensors[skeleton[_TENSOR]]
        if _DICT in skeleton:
            return {key: _decode(item, tensors) for key, item in skeleton[_DICT]}
        if _TUPLE in skeleton:
            return tuple(_decode(item, tensors) for item in skeleton[_TUPLE])
        return [_decode(item, tensors) for item in skeleton[_LIST]]
    return skeleton


__all__ = ["load", "save"]
