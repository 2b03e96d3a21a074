"""The cuda backend's scans (cumsum, cumprod: a thread per line), take/put (indexing: a
thread per position), sorts, scatters and index writes: results and gradients stay on the
device and match `cpu`.

Like every cuda test file (tests/simulated_cuda.py), it turns Numba's CUDA simulator on when it
is the first to import minitorch; a run of the whole suite leaves it to
tests/test_cuda_simulator.py. On a GPU, `NUMBA_ENABLE_CUDASIM=0` runs it on the device
(scripts/check_gpu.sh).
"""

import numpy as np
import pytest
from cuda_checks import assert_matches, both, values
from simulated_cuda import requires_cuda

import minitorch

# the simulator's small kernels (tests/conftest.py), where a dozen elements span several blocks
pytestmark = [requires_cuda, pytest.mark.usefixtures("small_kernels")]

# ---------------------------------------------------------------------------
# scan (cumsum, cumprod): a thread per line; take/put (indexing): a thread per position
# ---------------------------------------------------------------------------

SCANS = {
    "cumsum_rows": lambda t: t.cumsum(1),
    "cumsum_columns": lambda t: t.cumsum(0),
    "cumsum_transposed": lambda t: t.T.cumsum(1),
    "cumprod_strided": lambda t: t[1:, ::3].cumprod(1),
    "cumsum_expanded": lambda t: t[:1].expand(4, 13).cumsum(0),
    "cumsum_3d": lambda t: t.view(2, 2, 13).cumsum(1),
}


@pytest.mark.parametrize("name", SCANS)
def test_scans_on_lines_across_blocks_and_strides(name):
    # 13 lines of 4 (or 4 of 13): more lines than a block of 8 threads, the last block part-full
    cpu, gpu = both(values(4, 13, seed=31, low=0.5, high=1.5), requires_grad=True)
    assert_matches(SCANS[name](gpu).detach(), SCANS[name](cpu).detach())
    SCANS[name](cpu).sum().backward()
    SCANS[name](gpu).sum().backward()
    assert_matches(gpu.grad, cpu.grad)


@pytest.mark.parametrize("shape, dim", [((0, 3), 0), ((0, 3), 1), ((3, 0), 1), ((9,), 0)])
def test_scans_of_empty_and_integer_tensors(shape, dim):
    cpu, gpu = both(np.arange(int(np.prod(shape))).reshape(shape))
    assert_matches(gpu.cumsum(dim), cpu.cumsum(dim))
    assert_matches((gpu > 3).cumsum(dim), (cpu > 3).cumsum(dim))  # bools count as int64


def test_cumsum_adds_in_float64_like_the_cpu():
    cpu, gpu = both(np.full(11, 0.1, dtype=np.float32))
    assert_matches(gpu.cumsum(0), cpu.cumsum(0), rtol=0, atol=0)


INDEX = [4, 0, 12, 2, 2, 7, 9, 11, 3]  # 9 positions: two blocks of 8, with a repeat


def take_cases(t) -> tuple:
    i = minitorch.tensor(INDEX, device=t.device)
    return t[:, i], t.T[i], t[1:, ::2][:, i[:4] // 2], t[i[:0]], t[:, i].T[2:]


def test_take_reads_positions_of_strided_tensors():
    cpu, gpu = both(values(5, 13, seed=32))
    for got, want in zip(take_cases(gpu), take_cases(cpu), strict=True):
        assert_matches(got, want)


def put_cases(t) -> tuple:
    i = minitorch.tensor(INDEX, device=t.device)
    written = t.clone()
    written.T[i[:5]] = minitorch.arange(5.0, device=t.device).unsqueeze(1)
    added = t.clone().index_add_(1, i, minitorch.ones(5, 9, device=t.device))
    counts = minitorch.zeros(13, dtype=minitorch.int64, device=t.device)
    counts.index_put_((i,), minitorch.tensor(1, device=t.device), accumulate=True)
    flags = minitorch.zeros(13, dtype=minitorch.bool, device=t.device)  # bools: on the host
    flags.index_put_((i,), minitorch.tensor(True, device=t.device), accumulate=True)
    unchanged = t.clone()
    unchanged[i[:0]] = 1.0
    return written, added, counts, flags, unchanged


def test_put_writes_and_accumulates_repeated_positions():
    cpu, gpu = both(values(5, 13, seed=33))
    got, want = put_cases(gpu), put_cases(cpu)
    for a, b in zip(got, want, strict=True):
        assert_matches(a, b)
    assert got[2][2].item() == 2  # both threads that add to position 2 count


def test_gradient_of_an_index_accumulates_on_the_device():
    cpu, gpu = both(values(5, 13, seed=34), requires_grad=True)
    for t in (cpu, gpu):
        (t[:, minitorch.tensor(INDEX, device=t.device)] ** 2).sum().backward()
    assert_matches(gpu.grad, cpu.grad)


# ---------------------------------------------------------------------------
# sorts, scatters and indexing: results and gradients stay on the device
# ---------------------------------------------------------------------------

LINE_AND_INDEX_OPS = {
    "cumsum": lambda t: t.cumsum(1),
    "sort": lambda t: t.sort(dim=1, descending=True).values * 2.0,
    "argsort": lambda t: t.argsort(dim=0).float(),
    "index": lambda t: t[[2, 0, 2]],
    "index_two_arrays": lambda t: t[[0, 1], [3, 1]],
    "gather": lambda t: minitorch.gather(
        t, 1, minitorch.tensor([[0, 3], [2, 2], [1, 0]], device=t.device)
    ),
    "mask": lambda t: t[t > 0],
}


@pytest.mark.parametrize("name", LINE_AND_INDEX_OPS)
def test_sorts_scatters_and_indexing_give_cuda_results_and_gradients(name):
    op = LINE_AND_INDEX_OPS[name]
    cpu, gpu = both(values(3, 4, seed=21), requires_grad=True)
    out_cpu, out_gpu = op(cpu), op(gpu)
    assert_matches(out_gpu.detach(), out_cpu.detach())
    if out_cpu.requires_grad:
        (out_cpu * out_cpu).sum().backward()
        (out_gpu * out_gpu).sum().backward()
        assert_matches(gpu.grad, cpu.grad)


def test_an_index_write_stays_on_the_device():
    cpu, gpu = both(np.zeros((3, 2), dtype=np.float32))
    for t in (cpu, gpu):
        t[[0, 2]] = minitorch.tensor([1.5, -2.0], device=t.device)
    assert_matches(gpu, cpu)


def test_where_of_numbers_takes_the_device_of_the_condition():
    condition_cpu, condition_gpu = both(np.array([True, False, True]))
    assert_matches(minitorch.where(condition_gpu, 1, 2.5), minitorch.where(condition_cpu, 1, 2.5))
    scalar = minitorch.tensor(True)  # a 0-dim cpu condition joins cuda values
    assert_matches(minitorch.where(scalar, condition_gpu.float(), 0), condition_cpu.float())
