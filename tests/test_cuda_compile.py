"""The PTX check (`scripts/check_cuda_compile.py`) and the cuda backend's table of kernels.

The table (`backends/cuda/kernels.py`) is what the check compiles: every kernel body factory
the backend package defines must be a row of it, or a kernel would launch without ever being
compiled by the real CUDA target. With numba-cuda and NVIDIA's compiler libraries installed,
the check's quick mode compiles one launch of every kernel to PTX for sm_90 (no GPU needed).
"""

import importlib
import inspect
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import minitorch.backends.cuda as cuda_package
from minitorch.backends.cuda.kernels import KERNELS

ROOT = Path(__file__).resolve().parents[1]


def kernel_factories() -> set:
    """Every `cuda_*` function defined in a module of the cuda backend package: the body
    factories (a kernel body is a closure built by one)."""
    found = set()
    for info in pkgutil.iter_modules(cuda_package.__path__):
        module = importlib.import_module(f"{cuda_package.__name__}.{info.name}")
        for name, fn in vars(module).items():
            if name.startswith("cuda_") and inspect.isfunction(fn):
                if fn.__module__ == module.__name__:
                    found.add(fn)
    return found


def test_every_kernel_factory_of_the_cuda_backend_is_in_its_table():
    factories = kernel_factories()
    assert len(factories) >= 10  # map, zip, reduce, matmul, where, fill, take, put, ...
    missing = {f.__name__ for f in factories} - {k.factory.__name__ for k in KERNELS.values()}
    assert not missing, f"kernel factories the PTX check would not compile: {sorted(missing)}"


def test_every_row_describes_its_launches():
    for name, kernel in KERNELS.items():
        assert kernel.dtypes, name
        for dtype in kernel.dtypes:
            assert all(isinstance(s, tuple) for s in kernel.settings(None, dtype, (256, 256, 16)))
            assert kernel.args(dtype), name


# The check with one more row in the table, a kernel the CUDA target refuses.
WITH_A_BROKEN_KERNEL = """
import sys
sys.argv = ["check_cuda_compile.py", "--quick", "-j", "1", "--kernels", "fill,slice_copy"]
sys.path.insert(0, "scripts")
import check_cuda_compile as check
from minitorch.backends.cuda.kernels import KERNELS, Kernel, storage

def cuda_slice_copy():
    def _copy(a, b):
        a[:] = b  # a slice copy needs Numba's runtime, which kernels lack

    return _copy

KERNELS["slice_copy"] = Kernel(cuda_slice_copy, lambda dtype: (storage(dtype),) * 2)
sys.exit(check.main())
"""


def run_check(*command: str) -> subprocess.CompletedProcess:
    """`python *command` from the project root, outside the simulator; a skip when
    numba-cuda or NVIDIA's compiler libraries are missing (the check exits 2)."""
    if importlib.util.find_spec("numba_cuda") is None:
        pytest.skip("numba-cuda is not installed: pip install -e '.[test,cuda]'")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])  # this checkout
    result = subprocess.run(
        [sys.executable, *command], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600
    )
    if result.returncode == 2:
        pytest.skip(f"no CUDA compiler libraries: {result.stdout.strip().splitlines()[-1]}")
    return result


def test_the_quick_ptx_check_compiles_one_launch_of_every_kernel():
    result = run_check("scripts/check_cuda_compile.py", "--quick", "-j", "1")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    compiled = {line.split()[0].split("(")[0] for line in lines if line.startswith("  ")}
    assert compiled == set(KERNELS)


def test_the_ptx_check_stops_at_a_kernel_the_cuda_target_refuses_and_names_it():
    result = run_check("-c", WITH_A_BROKEN_KERNEL)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "\n  fill float32 " in result.stdout  # the kernel before it compiled
    assert "FAILED: slice_copy float32 does not compile for sm_90" in result.stdout
    assert "kernels compiled to PTX" not in result.stdout


def test_the_ptx_check_names_a_kernel_it_does_not_know():
    result = run_check("scripts/check_cuda_compile.py", "--kernels", "fill,no_such_kernel")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "no kernel no_such_kernel in the table" in result.stdout
