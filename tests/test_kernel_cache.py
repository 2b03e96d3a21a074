"""The on-disk kernel cache: its location, its keys, and what happens when its files are damaged.

Each test runs fresh processes, as a cache only matters across processes, and
compiles one small kernel.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import minitorch
from minitorch.backends import kernel_cache

ROOT = Path(minitorch.__file__).resolve().parent.parent

NEGATE_PROBE = """
import warnings

import numpy as np

from minitorch import operators
from minitorch.backends.fast import FastBackend, elementwise
from minitorch.backends.tensor_data import TensorData

backend = FastBackend()
out = TensorData(np.zeros(3), (3,))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    backend.map(operators.neg, out, TensorData(np.arange(3.0), (3,)))
serial, _ = backend.kernels(elementwise.flat_map, operators.neg)  # row-major, one shape
damaged = sum("damaged kernel cache file" in str(w.message) for w in caught)
print(sum(serial.stats.cache_hits.values()), damaged, *out.storage)
"""


def run_probe(probe: str, **variables) -> list[str]:
    """The lines `probe` prints in a fresh process with these extra environment variables."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), **variables)
    result = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip().splitlines()


def truncate(files: list[Path]) -> None:
    """Cut each file to half its length."""
    assert files, "the cache folder holds no such files"
    for path in files:
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


@pytest.mark.slow
def test_damaged_cache_files_are_dropped_with_a_warning_and_recompiled(tmp_path):
    """MINITORCH_CACHE_DIR holds the cache; truncated data, then truncated everything, heal."""
    cache = tmp_path / "kernels"
    env = {"MINITORCH_CACHE_DIR": str(cache)}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba")  # must not be used: minitorch's wins
    # printed: cache hits, warnings about damaged files, then -x for x = 0, 1, 2
    assert run_probe(NEGATE_PROBE, **env)[0].split() == ["0", "0", "-0.0", "-1.0", "-2.0"]
    assert run_probe(NEGATE_PROBE, **env)[0].split() == ["1", "0", "-0.0", "-1.0", "-2.0"]
    assert not (tmp_path / "numba").exists()

    truncate(sorted(cache.rglob("*.nbc")))  # the machine code, its index intact
    assert run_probe(NEGATE_PROBE, **env)[0].split() == ["0", "1", "-0.0", "-1.0", "-2.0"]
    assert run_probe(NEGATE_PROBE, **env)[0].split() == ["1", "0", "-0.0", "-1.0", "-2.0"]

    truncate([path for path in cache.rglob("*") if path.is_file()])  # index files too
    assert run_probe(NEGATE_PROBE, **env)[0].split() == ["0", "1", "-0.0", "-1.0", "-2.0"]
    assert run_probe(NEGATE_PROBE, **env)[0].split() == ["1", "0", "-0.0", "-1.0", "-2.0"]


KEY_PROBE = """
from minitorch.backends.fast import FastBackend

backend = FastBackend()
parallel_matmul = backend._matmul_kernels[1]  # compiled with fastmath={"reassoc", "contract"}
print(repr(parallel_matmul._cache._key))
print(str({"reassoc", "contract"}))
"""


@pytest.mark.slow
def test_cache_keys_are_the_same_under_any_hash_seed():
    """`str()` of a set changes with PYTHONHASHSEED: a key using it misses on warm starts."""
    keys, set_texts = set(), set()
    for seed in range(6):
        key, set_text = run_probe(KEY_PROBE, PYTHONHASHSEED=str(seed))
        keys.add(key)
        set_texts.add(set_text)
    assert len(set_texts) == 2, f"these seeds do not reorder the set: {set_texts}"
    assert len(keys) == 1, "\n".join(sorted(keys))


KERNEL_SOURCE = """
from numba import njit

OFFSET = {offset}


@njit
def scaled(x):
    return x * {factor}


def body(out, a):
    for i in range(len(out)):
        out[i] = scaled(a[i]) + OFFSET
"""


def key_of(blank_lines: int = 0, **changes) -> tuple:
    """The cache key of `body` in KERNEL_SOURCE, written with these values, so many lines down."""
    source = "\n" * blank_lines + KERNEL_SOURCE.format(**{"offset": 1.0, "factor": 2.0, **changes})
    namespace: dict = {}
    exec(compile(source, "<kernel source>", "exec"), namespace)
    return kernel_cache.kernel_key(namespace["body"], None, {"parallel": False})


def test_cache_keys_follow_the_helpers_and_constants_a_kernel_compiles():
    """A kernel's helpers live in other files than its body, whose edits Numba does not see."""
    assert key_of() == key_of(blank_lines=7), "moving code must not recompile"
    assert key_of(factor=3.0) != key_of(), "an edited njit helper must recompile its kernels"
    assert key_of(offset=0.5) != key_of(), "an edited constant must recompile its kernels"
