"""What a test file of cuda kernels imports before minitorch: it turns on Numba's CUDA
simulator (unless `NUMBA_ENABLE_CUDASIM` is set already), which works when it is the first to
import minitorch, and `requires_cuda` is the file's `pytestmark`: a skip that says why when
the cuda extra is missing or minitorch was imported without the simulator."""

import importlib.util
import os

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import pytest  # noqa: E402

import minitorch  # noqa: E402

if importlib.util.find_spec("numba_cuda") is None:
    requires_cuda = pytest.mark.skip(
        reason="numba-cuda (the cuda extra) is not installed: pip install -e '.[test,cuda]'"
    )
else:
    requires_cuda = pytest.mark.skipif(
        not minitorch.cuda.is_available(),
        reason="minitorch was imported before this file could turn on Numba's CUDA simulator: "
        "run it alone or with NUMBA_ENABLE_CUDASIM=1",
    )
