"""Whether `cuda` tensors can run here: the simulator, or an NVIDIA driver and numba.cuda.

`cuda` is `numba.cuda` where kernels can run and None elsewhere; every kernel
module of this package reads it from here.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import warnings

# Importing numba.cuda is slow (numba-cuda loads the CUDA bindings): it is imported only
# where kernels can run, on the simulator or with an NVIDIA driver.
SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
# `MINITORCH_CUDA_COMPILE=1` imports numba.cuda without a driver, so that the kernels can be
# compiled to PTX on any machine (scripts/check_cuda_compile.py); none can run there.
COMPILE_ONLY = os.environ.get("MINITORCH_CUDA_COMPILE", "0") not in ("", "0")
DRIVER_LIBRARY = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"


def driver_present() -> bool:
    """Whether the NVIDIA driver library loads (a cheap test, before importing numba.cuda)."""
    try:
        ctypes.CDLL(DRIVER_LIBRARY)
    except OSError:
        return False
    return True


cuda = None  # stays None where kernels cannot run
if SIMULATOR or COMPILE_ONLY or driver_present():
    with contextlib.suppress(ImportError):  # a Numba without its CUDA target: the `cuda` extra
        from numba import cuda
    # The grid follows the tensor's size: Numba's advice to launch at least 128 blocks, a
    # warning at every kernel on a small tensor, is not for the user of minitorch to act on.
    warnings.filterwarnings("ignore", message=r"Grid size \d+ will likely result in GPU")


# (threads per block of the elementwise kernels, threads per reduction block, matmul tile):
# a GPU runs 256-thread blocks well; the simulator starts one Python thread per CUDA thread.
DEFAULT_SIZES = (32, 8, 4) if SIMULATOR else (256, 256, 16)
# The blocked matmul's (rows, columns, depth) of a block's tiles and (rows, columns) of a
# thread's outputs (`matmul.py`): 64 x 64 outputs from 256 threads on a GPU.
GPU_MATMUL_BLOCKS = (64, 64, 16, 4, 4)
DEFAULT_MATMUL_BLOCKS = (8, 8, 4, 2, 2) if SIMULATOR else GPU_MATMUL_BLOCKS


def available() -> bool:
    """Whether `cuda` tensors can run here: the simulator is on, or numba sees a GPU."""
    return cuda is not None and cuda.is_available()
