"""Compile every kernel of the cuda backend with the real CUDA target, to PTX, without a GPU.

Numba's simulator runs kernel bodies as Python and accepts code the CUDA target rejects;
this check compiles each kernel the backend can launch (its table, `backends/cuda/kernels.py`)
for every dtype and scalar function it runs, for sm_70, sm_80 and sm_90, and stops at the
first kernel that does not compile. The scalar functions are every function of two or fewer
scalars (parameters and result annotated `float`, `int` or `bool`) that a module of
minitorch above the backends defines: those are what `map`, `zip`, `reduce`, `scan` and
`arg_reduce` launches pass. With `ptxas` at hand (the `nvidia-cuda-nvcc` wheel, or the
toolkit's) each kernel is also assembled for sm_90, and its registers per thread and shared
memory per block printed.

Needs numba-cuda with NVIDIA's compiler libraries (`pip install "numba-cuda[cu12]"`), no
driver and no GPU:

    python scripts/check_cuda_compile.py            # everything, on every core
    python scripts/check_cuda_compile.py --quick    # one launch of each kernel, sm_90
    python scripts/check_cuda_compile.py --kernels map,reduce   # only these kernels

Exit status 1 names the kernel that failed (or the names `--kernels` does not know); 2 says the
CUDA compiler libraries are missing.
"""

from __future__ import annotations

import argparse
import inspect
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

# numba.cuda without a driver (backends/cuda/driver.py), and never the simulator.
os.environ["MINITORCH_CUDA_COMPILE"] = "1"
if os.environ.pop("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
    sys.exit("check_cuda_compile.py compiles for the real CUDA target: unset NUMBA_ENABLE_CUDASIM")

import numpy as np  # noqa: E402
from numba import types  # noqa: E402
from numba.cuda.compiler import _compile_pyfunc_with_fixup  # noqa: E402

from minitorch.backends.cuda.driver import cuda  # noqa: E402
from minitorch.backends.cuda.kernels import KERNELS  # noqa: E402

# The sizes of a GPU launch (`driver.DEFAULT_SIZES` outside the simulator).
SIZES = (256, 256, 16)
TARGETS = ((7, 0), (8, 0), (9, 0))
SCALAR_TYPES = {"float", "int", "bool"}
# Modules whose functions never reach a cuda kernel: the backends' own helpers, module 1's
# scalar autodiff (`minitorch.scalar`), which runs its functions on Python numbers, and
# `minitorch.utils` (data loading: it uses only the public tensor API, and a function such as
# a worker's seeding is host code).
NOT_LAUNCHED = ("minitorch.backends.", "minitorch.scalar.", "minitorch.utils.")


def annotation(value) -> str:
    """An annotation's name, whether it is a string (postponed annotations) or a type."""
    return value if isinstance(value, str) else getattr(value, "__name__", repr(value))


def scalar_functions() -> dict[str, list[Callable]]:
    """Every function of one or two scalars defined in a module of minitorch above the
    backends, by kind: `unary` (one), `binary` (two, a number back) and `comparison` (two, a
    bool back)."""
    kinds: dict[str, list[Callable]] = {"unary": [], "binary": [], "comparison": []}
    modules = [
        module
        for name, module in sorted(sys.modules.items())
        if name.startswith("minitorch.") and not name.startswith(NOT_LAUNCHED)
    ]
    for module in modules:
        for fn in vars(module).values():
            if not inspect.isfunction(fn) or fn.__module__ != module.__name__:
                continue
            signature = inspect.signature(fn)
            names = [annotation(p.annotation) for p in signature.parameters.values()]
            result = annotation(signature.return_annotation)
            if not 1 <= len(names) <= 2 or not {*names, result} <= SCALAR_TYPES:
                continue
            kind = "unary" if len(names) == 1 else "comparison" if result == "bool" else "binary"
            kinds[kind].append(fn)
    return kinds


def dtypes_of(fn: Callable | None, dtypes: tuple) -> tuple:
    """The dtypes a kernel runs `fn` in: integer ones for a function of `int`s."""
    if fn is None:
        return dtypes
    names = {annotation(p.annotation) for p in inspect.signature(fn).parameters.values()}
    return tuple(d for d in dtypes if d.kind in "iu") if names == {"int"} else dtypes


def launches(quick: bool, names: list[str]) -> list[tuple[str, Callable | None, np.dtype]]:
    """(kernel name, scalar function or None, dtype) of every launch to compile, of the
    kernels `names` in the table's order."""
    functions = scalar_functions()
    out = []
    for name, kernel in KERNELS.items():
        if name not in names:
            continue
        fns = [None] if kernel.scalar is None else functions[kernel.scalar]
        for fn in fns[:1] if quick else fns:
            dtypes = dtypes_of(fn, kernel.dtypes)
            out.extend((name, fn, dtype) for dtype in (dtypes[:1] if quick else dtypes))
    return out


def label(name: str, fn: Callable | None, dtype: np.dtype, settings: tuple = ()) -> str:
    """`zip(operators.add) float32 (256, ...)`: which launch a line is about."""
    what = "" if fn is None else f"({fn.__module__.removeprefix('minitorch.')}.{fn.__name__})"
    rest = [s for s in settings if s is not fn]
    return f"{name}{what} {dtype}" + (f" {tuple(rest)}" if rest else "")


@contextmanager
def stand_in_device(cc: tuple[int, int]):
    """A kernel that calls a device function makes numba-cuda ask the current device for its
    compute capability; here there is no device, so the compile sees one with `cc`."""
    device = SimpleNamespace(compute_capability=cc)
    with mock.patch("numba.cuda.dispatcher.get_current_device", lambda: device):
        yield


def compile_launch(job: tuple, targets: tuple = TARGETS) -> tuple[str, list, str | None]:
    """PTX of one launch's kernels for every target: (label, [(cc, settings, ptx)], error).

    What `numba.cuda.compile_ptx` does once per target, typing and lowering to NVVM IR is
    done once here (for the oldest target), and NVVM then emits PTX for each target.
    """
    name, fn, dtype = job
    kernel = KERNELS[name]
    signature = types.void(*kernel.args(dtype))
    done = []
    for settings in kernel.settings(fn, dtype, SIZES):
        what = label(name, fn, dtype, settings)
        cc = targets[0]
        try:
            with stand_in_device(cc):
                library, _ = _compile_pyfunc_with_fixup(
                    kernel.factory(*settings), signature, device=False, cc=cc, abi="numba"
                )
            for cc in targets:
                (ptx,) = library.get_asm_strs(cc=cc)
                done.append((cc, what, ptx))
        except Exception:  # the failing kernel is named with the compiler's message
            return what, done, f"sm_{cc[0]}{cc[1]}: {traceback.format_exc()}"
    return label(name, fn, dtype), done, None


def ptxas() -> str | None:
    """The `ptxas` of the `nvidia-cuda-nvcc` wheel, or one on PATH."""
    try:
        import nvidia.cuda_nvcc  # noqa: PLC0415 (an optional wheel)

        wheel = Path(next(iter(nvidia.cuda_nvcc.__path__))) / "bin" / "ptxas"
        if wheel.exists():
            return str(wheel)
    except ImportError:
        pass
    return shutil.which("ptxas")


def resources(assembler: str, ptx: str, cc: tuple[int, int]) -> tuple[int, int]:
    """(registers per thread, bytes of shared memory per block) of the entry kernel in `ptx`."""
    with tempfile.NamedTemporaryFile("w", suffix=".ptx") as source:
        source.write(ptx)
        source.flush()
        report = subprocess.run(
            [assembler, f"-arch=sm_{cc[0]}{cc[1]}", "-v", "-o", os.devnull, source.name],
            capture_output=True,
            text=True,
            check=True,
        ).stderr
    entry = report[report.index("Compiling entry function") :]
    registers = re.search(r"Used (\d+) registers", entry)
    shared = re.search(r"(\d+) bytes smem", entry)
    return int(registers.group(1)) if registers else 0, int(shared.group(1)) if shared else 0


def toolkit_present() -> bool:
    """Whether NVVM and NVRTC load: a trivial kernel compiles."""

    def nothing(a):
        a[0] = 0

    try:
        cuda.compile_ptx(nothing, "void(int64[:])", cc=(9, 0))
    except Exception as error:  # numba-cuda reports a missing library in several types
        print(f"the CUDA compiler libraries are missing ({type(error).__name__}: {error})")
        print('install them with: pip install "numba-cuda[cu12]"')
        return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="one launch of each kernel, sm_90")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count(), help="processes")
    parser.add_argument(
        "--kernels", metavar="NAMES", help="comma-separated names of the table (default: all)"
    )
    args = parser.parse_args()
    names = args.kernels.split(",") if args.kernels else list(KERNELS)
    unknown = sorted(set(names) - set(KERNELS))
    if unknown:
        known = ", ".join(KERNELS)
        print(f"check_cuda_compile: no kernel {', '.join(unknown)} in the table: {known}")
        return 1
    if cuda is None or not toolkit_present():
        return 2
    targets = TARGETS[-1:] if args.quick else TARGETS
    jobs = launches(args.quick, names)
    assembler = ptxas()
    print(f"{len(jobs)} launches of {len(names)} kernels")
    print(f"targets: {', '.join(f'sm_{a}{b}' for a, b in targets)}; ptxas: {assembler or 'none'}")
    compiled = 0
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        for what, done, error in pool.map(compile_launch, jobs, [targets] * len(jobs)):
            if error is not None:
                print(f"FAILED: {what} does not compile for {error}")
                return 1
            compiled += len(done)
            for cc, variant, ptx in done:
                if cc != targets[-1]:
                    continue
                if assembler:
                    registers, shared = resources(assembler, ptx, cc)
                    variant = f"{variant:58} {registers:4} registers {shared:6} B shared"
                print(f"  {variant}")
    print(f"{compiled} kernels compiled to PTX, every one of {len(jobs)} launches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
