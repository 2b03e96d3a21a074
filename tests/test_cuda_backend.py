"""The exercise kernels of the cuda backend (`backends/cuda/cuda_ops.py`): map and zip (task
3.3), reduce (task 3.4) and matmul (task 3.5), each against the same operation on `cpu`.

Without a GPU these tests run in Numba's CUDA simulator: this module turns it
on (`NUMBA_ENABLE_CUDASIM=1`) unless the variable is set already, which works
when it is the first to import minitorch (`pytest tests/test_cuda_backend.py`,
as grading tasks 3.3-3.5 runs it). A run of the whole suite imports minitorch
earlier without a cuda backend: tests/conftest.py leaves this file out there
and tests/test_cuda_simulator.py runs it in a pytest of its own. On a GPU,
`NUMBA_ENABLE_CUDASIM=0` runs them on the device (scripts/check_gpu.sh).

The simulator runs one Python thread per CUDA thread, so the tensors are
tiny and the kernels' sizes are lowered (`small_kernels`, tests/conftest.py): 8 threads per
block, reduction blocks of 4, matmul tiles of 4, so that a dozen elements
already span several blocks and tiles.
"""

import numpy as np
import pytest
from cuda_checks import assert_matches, both, values
from simulated_cuda import requires_cuda

import minitorch

# the simulator's small kernels (tests/conftest.py), where a dozen elements span several blocks
pytestmark = [requires_cuda, pytest.mark.usefixtures("small_kernels")]

# ---------------------------------------------------------------------------
# map and zip (task 3.3)
# ---------------------------------------------------------------------------

UNARY = {
    "neg": lambda t: -t,
    "exp": lambda t: t.exp(),
    "log": lambda t: t.abs().log(),
    "sigmoid": lambda t: t.sigmoid(),
    "relu": lambda t: t.relu(),
    "tanh": lambda t: t.tanh(),
    "float64": lambda t: t.double(),
    "to_int": lambda t: t.long(),
}


@pytest.mark.task3_3
@pytest.mark.parametrize("name", UNARY)
def test_map_matches_cpu_across_blocks(name):
    cpu, gpu = both(values(3, 7))  # 21 elements: three blocks of 8 threads, the last part-full
    assert_matches(UNARY[name](gpu), UNARY[name](cpu))


BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "maximum": minitorch.maximum,
    "lt": lambda a, b: a < b,
    "eq": lambda a, b: (a > 0) == (b > 0),
    "ge": lambda a, b: a >= b,
}


@pytest.mark.task3_3
@pytest.mark.parametrize("name", BINARY)
def test_zip_broadcasts_as_on_cpu(name):
    a_cpu, a_gpu = both(values(3, 1, seed=1))
    b_cpu, b_gpu = both(values(1, 5, seed=2))
    assert_matches(BINARY[name](a_gpu, b_gpu), BINARY[name](a_cpu, b_cpu))


@pytest.mark.task3_3
def test_map_reads_non_contiguous_and_expanded_inputs():
    cpu, gpu = both(values(4, 6))
    for view in (
        lambda t: t.T,
        lambda t: t[1:, ::2],
        lambda t: t[:, 2].unsqueeze(1).expand(4, 3),
    ):
        assert_matches(view(gpu).exp(), view(cpu).exp())
        assert_matches(view(gpu).contiguous(), view(cpu).contiguous())


@pytest.mark.task3_3
def test_zip_writes_and_reads_strided_layouts():
    a_cpu, a_gpu = both(values(5, 4, seed=3))
    b_cpu, b_gpu = both(values(4, seed=4))
    assert_matches(a_gpu.T * b_gpu.unsqueeze(1), a_cpu.T * b_cpu.unsqueeze(1))
    target_cpu, target_gpu = minitorch.zeros(4, 5), minitorch.zeros(4, 5, device="cuda")
    target_cpu.T.copy_(a_cpu + 1)  # a write through a transposed view
    target_gpu.T.copy_(a_gpu + 1)
    assert_matches(target_gpu, target_cpu)


@pytest.mark.task3_3
def test_zip_on_integers_and_a_python_number():
    a_cpu, a_gpu = both(np.arange(-6, 6).reshape(3, 4))
    assert_matches(a_gpu * 3 - 1, a_cpu * 3 - 1)
    assert_matches(a_gpu // 4, a_cpu // 4)


def test_zero_size_tensors():
    cpu, gpu = both(np.zeros((0, 3), np.float32))
    assert_matches(gpu + 1, cpu + 1)
    assert_matches(gpu.sum(0), cpu.sum(0))  # a sum of nothing: zeros
    assert_matches(gpu.sum(1), cpu.sum(1))
    left_cpu, left_gpu = both(np.zeros((2, 0), np.float32))
    right_cpu, right_gpu = both(np.zeros((0, 3), np.float32))
    assert_matches(left_gpu @ right_gpu, left_cpu @ right_cpu)  # 2x3 of zeros


def test_where_and_comparisons():
    a_cpu, a_gpu = both(values(3, 4, seed=5))
    assert_matches(minitorch.where(a_gpu > 0, a_gpu, 0.5), minitorch.where(a_cpu > 0, a_cpu, 0.5))
    assert_matches((a_gpu > 0) & (a_gpu < 1), (a_cpu > 0) & (a_cpu < 1))


# ---------------------------------------------------------------------------
# reduce (task 3.4)
# ---------------------------------------------------------------------------


@pytest.mark.task3_4
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_sum_over_each_dim(dim):
    cpu, gpu = both(values(3, 2, 5))
    assert_matches(gpu.sum(dim), cpu.sum(dim))


@pytest.mark.task3_4
@pytest.mark.parametrize("length", [1, 3, 4, 13])
def test_reductions_shorter_and_longer_than_a_block(length):
    # a block has 4 threads: 13 elements give threads 4, 3, 3, 3 of them before the tree
    cpu, gpu = both(values(2, length, low=0.5, high=1.5))
    assert_matches(gpu.sum(1), cpu.sum(1))
    assert_matches(gpu.prod(1), cpu.prod(1))
    assert_matches(gpu.mean(1), cpu.mean(1))


@pytest.mark.task3_4
def test_reduce_of_a_non_contiguous_view_and_all_dims():
    cpu, gpu = both(values(6, 5))
    assert_matches(gpu.T.sum(1), cpu.T.sum(1))
    assert_matches(gpu[::2].sum(), cpu[::2].sum())
    assert_matches(gpu.sum(), cpu.sum())


@pytest.mark.task3_4
def test_sum_of_integers_and_bools():
    cpu, gpu = both(np.arange(20).reshape(4, 5))
    assert_matches(gpu.sum(0), cpu.sum(0))
    assert_matches((gpu > 7).any(1), (cpu > 7).any(1))
    assert_matches((gpu > 7).all(1), (cpu > 7).all(1))


def test_max_and_argmax_keep_the_first_of_ties():
    cpu, gpu = both(np.array([[1.0, 3.0, 3.0, 0.0, 3.0], [2.0, 2.0, -1.0, 5.0, 5.0]], np.float32))
    for dim in (0, 1):
        gpu_values, gpu_indices = gpu.max(dim)
        cpu_values, cpu_indices = cpu.max(dim)
        assert_matches(gpu_values, cpu_values)
        assert_matches(gpu_indices, cpu_indices)
        assert_matches(gpu.argmin(dim), cpu.argmin(dim))


# ---------------------------------------------------------------------------
# matmul (task 3.5)
# ---------------------------------------------------------------------------


@pytest.mark.task3_5
@pytest.mark.parametrize(
    "a_shape, b_shape",
    [
        ((5, 7), (7, 6)),  # not a multiple of the 4x4 tile in any dimension
        ((4, 8), (8, 4)),  # exactly two tiles deep
        ((1, 3), (3, 1)),
        ((2, 1, 3, 5), (4, 5, 2)),  # batch dims broadcast
        ((6,), (6, 3)),  # vector @ matrix
        ((3, 6), (6,)),  # matrix @ vector
    ],
)
def test_matmul_matches_cpu(a_shape, b_shape):
    a_cpu, a_gpu = both(values(*a_shape, seed=6))
    b_cpu, b_gpu = both(values(*b_shape, seed=7))
    assert_matches(a_gpu @ b_gpu, a_cpu @ b_cpu, rtol=1e-5, atol=1e-5)


@pytest.mark.task3_5
def test_matmul_of_transposed_and_sliced_operands():
    a_cpu, a_gpu = both(values(7, 5, seed=8))
    b_cpu, b_gpu = both(values(6, 7, seed=9))
    assert_matches(a_gpu.T @ b_gpu.T, a_cpu.T @ b_cpu.T, atol=1e-5)
    assert_matches(a_gpu[::2] @ b_gpu[1:, :5].T, a_cpu[::2] @ b_cpu[1:, :5].T, atol=1e-5)


@pytest.mark.task3_5
def test_matmul_of_integers_is_exact():
    a_cpu, a_gpu = both(np.arange(15).reshape(3, 5))
    b_cpu, b_gpu = both(np.arange(10).reshape(5, 2) - 4)
    assert_matches(a_gpu @ b_gpu, a_cpu @ b_cpu, rtol=0, atol=0)
