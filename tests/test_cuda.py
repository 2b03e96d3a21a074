"""minitorch.cuda without a CUDA backend: nothing available, and a clear error for a tensor
asked for on `cuda`.

minitorch has no CUDA backend yet; when one is registered, `is_available()` answers for the
machine's GPU and these tests change with it.
"""

from __future__ import annotations

import pytest

import minitorch


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
