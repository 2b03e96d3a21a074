"""minitorch.cuda on a machine with neither a GPU nor Numba's CUDA simulator: nothing available,
and a clear error for a tensor asked for on `cuda`.

Where a GPU or the simulator is there, the files of tests/conftest.py's CUDA_BACKEND_FILES test
the cuda backend instead.
"""

from __future__ import annotations

import pytest

import minitorch
from minitorch.backends.cuda import driver

pytestmark = pytest.mark.skipif(
    driver.SIMULATOR or driver.driver_present(),
    reason="a GPU or Numba's CUDA simulator is there (CUDA_BACKEND_FILES cover it)",
)


def test_cuda_is_not_available():
    assert minitorch.cuda.is_available() is False


def test_no_cuda_device_is_counted():
    count = minitorch.cuda.device_count()
    assert type(count) is int and count == 0


@pytest.mark.parametrize(
    "make",
    [
        lambda: minitorch.tensor([1.0], device="cuda"),
        lambda: minitorch.tensor([1.0], device="cuda:0"),
        lambda: minitorch.ones(2, device="cuda"),
        lambda: minitorch.zeros(2).to("cuda"),
        lambda: minitorch.zeros(2).cuda(),
    ],
    ids=["tensor", "tensor_cuda0", "ones", "to", "cuda_method"],
)
def test_a_tensor_on_cuda_raises_a_clear_runtime_error(make):
    with pytest.raises(RuntimeError, match=r"cuda.*(not available|is_available\(\) is False)"):
        make()
