"""Compiling the Numba backends' kernels, and keeping the machine code on disk.

`to_index`, `index_to_position` and `broadcast_index` are the functions of
`tensor_data.py`, compiled inline into the kernels that call them.
`compile_kernel(body, fn, parallel, fastmath)` returns a Numba dispatcher
that compiles `body` lazily for each signature it is called with and stores
the result on disk, so a later process loads it instead of compiling again.

Where the cache lives, first match wins:

1. `MINITORCH_CACHE_DIR`, when set: minitorch's kernels only;
2. `NUMBA_CACHE_DIR`, when set: Numba's own setting, for every cached function;
3. `minitorch/backends/__pycache__`, beside the source (or a per-user folder
   when that one is not writable).

Deleting the folder is always safe. A damaged file in it (a truncated index,
a data file that does not match its checksum or its key) is dropped with a
warning and the kernel is compiled again.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import types
import warnings
from collections.abc import Callable

import numpy as np
from numba import njit
from numba.core.caching import (
    CompileResultCacheImpl,
    FunctionCache,
    IndexDataCacheFile,
    UserProvidedCacheLocator,
)
from numba.core.registry import CPUDispatcher
from numba.extending import register_jitable

from . import tensor_data

CACHE_DIR_VARIABLE = "MINITORCH_CACHE_DIR"
# The index functions of tensor_data.py, compiled into every kernel that calls them.
INDEX_FUNCTIONS = (tensor_data.to_index, tensor_data.index_to_position, tensor_data.broadcast_index)
to_index, index_to_position, broadcast_index = (njit(inline="always")(f) for f in INDEX_FUNCTIONS)


def canonical(value) -> str:
    """A text for `value` that is the same in every process.

    `str` of a set follows the hash order of its items, which changes between
    processes for strings (hash randomisation): sets are sorted here; a function's
    `repr` holds its address, so functions and classes are written by name.
    """
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(canonical(item) for item in value)) + "}"
    if isinstance(value, dict):
        items = sorted(f"{canonical(k)}: {canonical(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    if isinstance(value, (tuple, list)):
        return type(value).__name__ + "(" + ", ".join(canonical(item) for item in value) + ")"
    named = getattr(value, "py_func", value)  # functions and classes: by name, not address
    if isinstance(named, (types.FunctionType, type)):
        return f"{named.__module__}.{named.__qualname__}"
    return repr(value)


def kernel_key(body: Callable, fn: Callable | None, options: dict) -> tuple[str, str, str]:
    """The part of a kernel's cache key that Numba does not know: `fn`, the options, the code.

    The code digest covers `body`, `fn`, the index functions, and everything they
    compile from other files: the functions and compiled helpers they call and the
    constants they read.
    """
    fn_name = "" if fn is None else f"{fn.__module__}.{fn.__qualname__}"
    compiled = [*INDEX_FUNCTIONS, body, *([] if fn is None else [fn])]
    return fn_name, canonical(options), _code_digest(compiled)


def compile_kernel(body: Callable, fn: Callable | None, parallel: bool, fastmath=False):
    """`body` (which calls `fn`) as a Numba dispatcher, compiled lazily and cached on disk."""
    options = {"parallel": parallel, "error_model": "numpy", "fastmath": fastmath}
    dispatcher = njit(**options)(body)
    dispatcher._cache = _KernelCache(body, kernel_key(body, fn, options))
    return dispatcher


_jitable: set = set()


def make_jitable(fn: Callable) -> Callable:
    """Let compiled kernels call the plain Python function `fn` (and the functions it calls).

    `register_jitable` teaches Numba to compile `fn` where a kernel calls it;
    `fn` itself stays a Python function, so the reference backend and the
    scalar autodiff keep using it unchanged.
    """
    if isinstance(fn, CPUDispatcher) or fn in _jitable:
        return fn
    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"the Numba backends compile Python functions, got {fn!r}")
    _jitable.add(fn)
    for called in _called_functions(fn):
        make_jitable(called)
    register_jitable(fn)
    return fn


def _called_functions(fn: Callable) -> list:
    """The plain Python functions that `fn`'s code names as globals (what a kernel compiles too)."""
    found = []
    for name in fn.__code__.co_names:
        called = fn.__globals__.get(name)
        if isinstance(called, types.FunctionType):
            found.append(called)
    return found


# Values whose text (`canonical`) is the same in every process: what a kernel reads as data.
CONSTANT_TYPES = (
    type(None),
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    tuple,
    list,
    dict,
    set,
    frozenset,
    np.generic,
    np.ndarray,
)


def _code_digest(functions) -> str:
    """A hash of what `functions` and the code they reach compute.

    It covers bytecode, constants, names and captured values, not line
    numbers: editing one function of a file changes the key of the kernels
    that compile it, not of the others, and moving code changes nothing.
    Reached are the Python functions, Numba helpers (`njit`) and intrinsics
    named as globals or captured, and the values of the constants read (tables,
    thresholds); modules and classes are Numba's, NumPy's or the standard
    library's, whose versions Numba's key already holds.
    """
    hasher = hashlib.sha256()
    seen = set()

    def visit_code(code: types.CodeType, names: set) -> None:
        hasher.update(code.co_code)
        hasher.update(canonical((code.co_names, code.co_varnames)).encode())
        names.update(code.co_names)
        for constant in code.co_consts:
            if isinstance(constant, types.CodeType):
                visit_code(constant, names)
            else:
                hasher.update(canonical(constant).encode())

    def visit_value(value) -> None:
        # a Numba dispatcher: its Python function; a Numba intrinsic: its definition
        target = getattr(value, "py_func", None) or getattr(value, "_defn", None) or value
        if isinstance(target, types.FunctionType):
            visit(target)
        elif isinstance(value, CONSTANT_TYPES):
            hasher.update(canonical(value).encode())

    def visit(fn) -> None:
        if fn in seen:
            return
        seen.add(fn)
        names: set = set()
        visit_code(fn.__code__, names)
        for cell in fn.__closure__ or ():
            visit_value(cell.cell_contents)
        for name in sorted(names):
            if name in fn.__globals__:
                hasher.update(name.encode())
                visit_value(fn.__globals__[name])

    for fn in functions:
        visit(getattr(fn, "py_func", fn))
    return hasher.hexdigest()


class _DirectoryLocator(UserProvidedCacheLocator):
    """Numba's locator for `NUMBA_CACHE_DIR`, reading `MINITORCH_CACHE_DIR` instead."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        subpath = self.get_suitable_cache_subpath(py_file)
        self._cache_path = os.path.join(os.environ[CACHE_DIR_VARIABLE], subpath)

    @classmethod
    def from_function(cls, py_func, py_file):
        if not os.environ.get(CACHE_DIR_VARIABLE):
            return None
        return super(UserProvidedCacheLocator, cls).from_function(py_func, py_file)


class _KernelCacheImpl(CompileResultCacheImpl):
    _locator_classes = [_DirectoryLocator, *CompileResultCacheImpl._locator_classes]


class _DamagedFile(Exception):
    """A cache file that cannot be what minitorch wrote."""


class _CheckedCacheFile(IndexDataCacheFile):
    """Numba's index and data files, with damage detected instead of raised.

    Each data file starts with the SHA-256 of the rest, which holds the
    entry's key next to the machine code: a truncated or altered file, or an
    index that points at the wrong file, is dropped (with a warning) and the
    kernel compiled again.
    """

    def _load_index(self):
        try:
            return super()._load_index()
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError) as error:
            self._drop(self._index_path, error)
            return {}

    def save(self, key, data):
        super().save(key, (key, data))

    def load(self, key):
        name = self._load_index().get(key)
        if name is None:
            return None
        try:
            stored_key, data = self._load_data(name)
            if stored_key != key:
                raise _DamagedFile("it holds another kernel than its index says")
        except FileNotFoundError:
            return None
        except (_DamagedFile, pickle.UnpicklingError, EOFError, ValueError, TypeError) as error:
            self._drop(self._data_path(name), error)
            return None
        return data

    def _save_data(self, name, data):
        payload = self._dump(data)
        with self._open_for_write(self._data_path(name)) as f:
            f.write(hashlib.sha256(payload).digest() + payload)

    def _load_data(self, name):
        with open(self._data_path(name), "rb") as f:
            raw = f.read()
        digest, payload = raw[:32], raw[32:]
        if hashlib.sha256(payload).digest() != digest:
            raise _DamagedFile("its checksum does not match")
        return pickle.loads(payload)

    @staticmethod
    def _drop(path: str, error: Exception) -> None:
        warnings.warn(
            f"minitorch: dropped damaged kernel cache file {path} "
            f"({type(error).__name__}: {error}); compiling again",
            RuntimeWarning,
            stacklevel=2,
        )
        try:
            os.remove(path)
        except FileNotFoundError:
            pass


class _KernelCache(FunctionCache):
    """Numba's on-disk cache for a kernel made by a factory, with a key that says what it compiled.

    Numba keys a cached kernel on its bytecode and, for a closure, on a pickle of
    the captured values. A captured Numba function pickles with a random id, so
    with Numba's key the next process would never find the kernel again; and that key knows neither
    `parallel=` nor the code the kernel inlined from other files. This key
    holds the bytecode and `kernel_key`: the scalar function's name, the
    compile options, and a hash of the code the kernel compiles from other
    files, so editing an exercise recompiles the kernels that use it, and
    nothing else does. Numba itself discards the entries of a file when that
    file changes.
    """

    _impl_class = _KernelCacheImpl

    def __init__(self, py_func: Callable, key: tuple):
        super().__init__(py_func)
        self._key = key
        self._cache_file = _CheckedCacheFile(
            cache_path=self._cache_path,
            filename_base=self._impl.filename_base,
            source_stamp=self._impl.locator.get_source_stamp(),
        )

    def _index_key(self, sig, codegen):
        code = hashlib.sha256(self._py_func.__code__.co_code).hexdigest()
        return (sig, codegen.magic_tuple(), code, self._key)
