"""The Numba backends above the parallel threshold with the default settings (against NumPy),
their threads (none for small ops, none started by the import, the environment left alone
from two threads), and the on-disk cache of compiled kernels across processes.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from fast_ops_checks import BACKENDS_3_1, NUMBA_BACKENDS, float32, float64, output_layout, read

import minitorch
from minitorch import operators
from minitorch.backends.fast import FastBackend, elementwise
from minitorch.backends.tensor_data import TensorData

# ---------------------------------------------------------------------------
# Sizes above the parallel threshold, with the default settings
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
def test_large_elementwise_paths_match_numpy(backend_name):
    rng = np.random.default_rng(2)
    n = 1024
    m = FastBackend.parallel_threshold // n + 3  # just above the threshold, not a power of two
    x = rng.standard_normal((n, m)).astype(np.float32)
    y = rng.standard_normal((n, m)).astype(np.float32)
    column, row = x[:, :1].copy(), y[:1, :].copy()
    cases = {
        "contiguous": (TensorData(x.reshape(-1), (n, m)), TensorData(y.reshape(-1), (n, m)), x + y),
        "broadcast": (
            TensorData(column.reshape(-1), (n, 1)),
            TensorData(row.reshape(-1), (1, m)),
            column + row,
        ),
        "transposed": (
            TensorData(np.ascontiguousarray(x.T).reshape(-1), (n, m), (1, n)),
            TensorData(y.reshape(-1), (n, m)),
            x + y,
        ),
    }
    for name, (a, b, expected) in cases.items():
        out = output_layout((n, m), float32)
        NUMBA_BACKENDS[backend_name].zip(operators.add, out, a, b)
        assert np.array_equal(read(out), expected), f"{name}: zip(add) differs from NumPy"


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
@pytest.mark.parametrize("dim", [0, 1])
def test_large_sums_match_numpy(backend_name, dim):
    rng = np.random.default_rng(3)
    n, m = 1000, FastBackend.parallel_threshold // 1000 + 3
    values = rng.standard_normal((n, m)).astype(np.float32)
    expected = values.astype(np.float64).sum(axis=dim, keepdims=True).astype(np.float32)
    out_shape = (1, m) if dim == 0 else (n, 1)
    out = output_layout(out_shape, float32)
    NUMBA_BACKENDS[backend_name].reduce(
        operators.add, out, TensorData(values.reshape(-1), values.shape), dim, 0
    )
    np.testing.assert_allclose(read(out), expected, rtol=1e-6, atol=1e-5)


def test_small_ops_do_not_start_threads():
    """A 10-element op compiles and runs only the serial kernel."""
    backend = FastBackend()
    a = TensorData(np.arange(10.0), (10,))
    backend.map(operators.neg, output_layout((10,), float64), a)
    serial, parallel = backend.kernels(elementwise.flat_map, operators.neg)  # one shape, row-major
    assert serial.signatures and not parallel.signatures, (serial.signatures, parallel.signatures)


def test_import_selects_the_fast_backend_compiles_nothing_and_keeps_the_environment():
    """`import minitorch` makes the tuned kernels the default, compiles nothing, sets nothing."""
    probe = (
        "import os\n"
        "before = dict(os.environ)\n"
        "import minitorch\n"
        "backend = minitorch.get_backend()\n"
        "dispatchers = [*backend._matmul_kernels, *backend._where_kernels]\n"
        "print(backend.name, type(backend).__module__, len(backend._kernels),\n"
        "      sum(len(d.signatures) for d in dispatchers), before == dict(os.environ))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], env=project_env(), capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    # printed: the default backend's name and module, kernels made, signatures compiled,
    # whether the environment is unchanged
    expected = ["fast", "minitorch.backends.fast.backend", "0", "0", "True"]
    assert result.stdout.split() == expected, result.stdout


THREADS_PROBE = """
import os
import threading

import numba
import numpy as np

import minitorch
from minitorch import operators
from minitorch.backends.tensor_data import TensorData

backend = minitorch.get_backend()
backend.parallel_threshold = 0  # every kernel parallel
x = TensorData(np.ones(64, np.float32), (64,))


def add():
    out = TensorData.empty((64,), minitorch.float32)
    backend.zip(operators.add, out, x, x)
    return out.storage.sum()


def adds():
    for _ in range(300):
        add()


threads = [threading.Thread(target=adds) for _ in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(numba.threading_layer(), "OMP_WAIT_POLICY" in os.environ, add() == 128)
"""


def test_parallel_kernels_from_two_threads_leave_the_environment_alone():
    """Two Python threads launch parallel kernels at once (launches take a lock).

    Numba's default layer (GNU OpenMP here) stays chosen; minitorch sets OMP_WAIT_POLICY only
    while Numba starts its threads, so the variable is gone again afterwards.
    """
    env = project_env()
    env.pop("NUMBA_THREADING_LAYER", None)
    env.pop("OMP_WAIT_POLICY", None)
    result = subprocess.run(
        [sys.executable, "-c", THREADS_PROBE], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-2000:]
    # printed: the threading layer, whether the variable is set now, a correct last result
    assert result.stdout.split() == ["omp", "False", "True"], result.stdout


def project_env(**variables) -> dict:
    """The environment of a subprocess that imports this project's minitorch."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(minitorch.__file__)))
    return dict(os.environ, PYTHONPATH=root, **variables)


# ---------------------------------------------------------------------------
# The on-disk cache
# ---------------------------------------------------------------------------

CACHE_PROBE = """
import numpy as np
from scalar_fn import shift
from minitorch.backends.fast import FastBackend, elementwise
from minitorch.backends.tensor_data import TensorData

backend = FastBackend()
out = TensorData(np.zeros(3), (3,))
backend.map(shift, out, TensorData(np.arange(3.0), (3,)))
serial, _ = backend.kernels(elementwise.flat_map, shift)  # row-major operands of one shape
print(sum(serial.stats.cache_hits.values()), sum(serial.stats.cache_misses.values()), *out.storage)
"""


@pytest.mark.slow
def test_kernels_are_cached_across_processes_and_recompiled_when_the_function_changes(tmp_path):
    """A second process loads the compiled kernel; editing the scalar function recompiles it.

    Editing another function of the same file does not.
    """
    (tmp_path / "probe.py").write_text(CACHE_PROBE)
    env = project_env(NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # an edit within one second must not reuse a .pyc

    def run_probe(shift: float, other: float) -> list[float]:
        source = f"""
            def shift(x):
                return x + {shift}

            def other(x):
                return x * {other}
        """
        (tmp_path / "scalar_fn.py").write_text(textwrap.dedent(source))
        result = subprocess.run(
            [sys.executable, "probe.py"], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert result.returncode == 0, result.stderr
        return [float(word) for word in result.stdout.split()]

    # printed: cache hits, cache misses, then the three results
    assert run_probe(10.0, 2.0) == [0, 1, 10.0, 11.0, 12.0]  # first process: compiled
    assert run_probe(10.0, 2.0) == [1, 0, 10.0, 11.0, 12.0]  # second process: loaded
    assert run_probe(10.0, 3.0) == [1, 0, 10.0, 11.0, 12.0]  # another function edited
    assert run_probe(20.0, 3.0) == [0, 1, 20.0, 21.0, 22.0]  # this function edited: compiled
