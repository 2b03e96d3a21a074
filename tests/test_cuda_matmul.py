"""The blocked cuda matmul (`backends/cuda/matmul.py`) against the exercise's kernel and `cpu`,
in Numba's CUDA simulator.

Like tests/test_cuda_backend.py, this file turns the simulator on when it is the first to
import minitorch; a run of the whole suite leaves it to tests/test_cuda_simulator.py. The
blocks are small (8 x 8 outputs from 16 threads of 2 x 2, tiles 4 deep, and other shapes),
so that a dozen rows already span several blocks and tiles.
"""

import numpy as np
import pytest
from simulated_cuda import requires_cuda

import minitorch
from minitorch.backends import get_backend

pytestmark = requires_cuda

# (block rows, block columns, depth, thread rows, thread columns)
BLOCKS = [(8, 8, 4, 2, 2), (4, 8, 2, 1, 4), (8, 4, 3, 4, 1)]


@pytest.fixture(params=BLOCKS, ids=lambda b: "x".join(map(str, b)))
def blocked(request, monkeypatch):
    backend = get_backend("cuda")
    monkeypatch.setattr(backend, "matmul_kernel", "matmul_blocked")
    monkeypatch.setattr(backend, "matmul_blocks", request.param)
    monkeypatch.setattr(backend, "tile", 4)
    return backend


def product_on(kernel: str, a: np.ndarray, b: np.ndarray, transform=lambda a, b: (a, b)):
    backend = get_backend("cuda")
    saved = backend.matmul_kernel
    backend.matmul_kernel = kernel
    try:
        x, y = transform(minitorch.tensor(a, device="cuda"), minitorch.tensor(b, device="cuda"))
        return (x @ y).cpu().numpy()
    finally:
        backend.matmul_kernel = saved


def values(*shape, seed, dtype=np.float32):
    return np.random.default_rng(seed).uniform(-2, 2, size=shape).astype(dtype)


@pytest.mark.parametrize(
    "a_shape, b_shape",
    [
        ((13, 9), (9, 11)),  # no dimension a multiple of a block or a tile
        ((16, 8), (8, 16)),  # exactly whole blocks and tiles
        ((1, 1), (1, 1)),
        ((2, 1, 5, 7), (3, 7, 6)),  # batch dims broadcast
        ((10,), (10, 3)),  # vector @ matrix
        ((3, 10), (10,)),  # matrix @ vector
    ],
)
def test_the_blocked_product_matches_cpu_and_the_exercise_kernel(blocked, a_shape, b_shape):
    a, b = values(*a_shape, seed=1), values(*b_shape, seed=2)
    got = product_on("matmul_blocked", a, b)
    expected = (minitorch.tensor(a) @ minitorch.tensor(b)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, product_on("matmul", a, b), rtol=1e-5, atol=1e-5)


def test_transposed_and_sliced_operands(blocked):
    a, b = values(11, 9, seed=3), values(10, 11, seed=4)

    def transposed(x, y):
        return x.T, y.T

    def sliced(x, y):
        return x[::2], y[1:, :9].T

    for transform in (transposed, sliced):
        x, y = transform(minitorch.tensor(a), minitorch.tensor(b))
        np.testing.assert_allclose(
            product_on("matmul_blocked", a, b, transform), (x @ y).numpy(), rtol=1e-5, atol=1e-5
        )


def test_integers_are_exact_and_float64_keeps_its_precision(blocked):
    a, b = np.arange(45).reshape(9, 5) - 20, np.arange(35).reshape(5, 7) - 17
    np.testing.assert_array_equal(product_on("matmul_blocked", a, b), a @ b)
    a, b = values(9, 13, seed=5, dtype=np.float64), values(13, 6, seed=6, dtype=np.float64)
    np.testing.assert_allclose(product_on("matmul_blocked", a, b), a @ b, rtol=1e-13)


def test_gradients_through_the_blocked_product(blocked):
    a, b = values(6, 5, seed=7), values(5, 9, seed=8)
    grads = []
    for device in ("cpu", "cuda"):
        x = minitorch.tensor(a, device=device, requires_grad=True)
        y = minitorch.tensor(b, device=device, requires_grad=True)
        (x @ y).tanh().sum().backward()
        grads.append((x.grad.cpu().numpy(), y.grad.cpu().numpy()))
    for cpu_grad, cuda_grad in zip(*grads, strict=True):
        np.testing.assert_allclose(cuda_grad, cpu_grad, rtol=1e-5, atol=1e-5)
