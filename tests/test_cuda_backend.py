"""The cuda backend (`backends/cuda/`): every kernel against the same operation on `cpu`.

Without a GPU these tests run in Numba's CUDA simulator: this module turns it
on (`NUMBA_ENABLE_CUDASIM=1`) unless the variable is set already, which works
when it is the first to import minitorch (`pytest tests/test_cuda_backend.py`,
as grading tasks 3.3-3.5 runs it). A run of the whole suite imports minitorch
earlier without a cuda backend: tests/conftest.py leaves this file out there
and tests/test_cuda_simulator.py runs it in a pytest of its own. On a GPU,
`NUMBA_ENABLE_CUDASIM=0` runs them on the device (scripts/check_gpu.sh).

The simulator runs one Python thread per CUDA thread, so the tensors are
tiny and the kernels' sizes are lowered (`small_kernels`): 8 threads per
block, reduction blocks of 4, matmul tiles of 4, so that a dozen elements
already span several blocks and tiles.
"""

import contextlib
import importlib.util
import inspect
import os

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import minitorch  # noqa: E402
from minitorch.backends import get_backend  # noqa: E402
from minitorch.backends.cuda import backend as cuda_backend  # noqa: E402

if importlib.util.find_spec("numba_cuda") is None:
    pytestmark = pytest.mark.skip(
        reason="numba-cuda (the cuda extra) is not installed: pip install -e '.[test,cuda]'"
    )
else:  # named together with files that import minitorch before this one
    pytestmark = pytest.mark.skipif(
        not minitorch.cuda.is_available(),
        reason="minitorch was imported before this file could turn on Numba's CUDA simulator: "
        "run it alone or with NUMBA_ENABLE_CUDASIM=1",
    )

THREADS, BLOCK, TILE = 8, 4, 4


@pytest.fixture(autouse=True)
def small_kernels(monkeypatch):
    backend = get_backend("cuda")
    monkeypatch.setattr(backend, "threads", THREADS)
    monkeypatch.setattr(backend, "block", BLOCK)
    monkeypatch.setattr(backend, "tile", TILE)
    # the exercise's matmul (task 3.5); tests/test_cuda_matmul.py checks the blocked one
    monkeypatch.setattr(backend, "matmul_kernel", "matmul")


def values(*shape, low=-2.0, high=2.0, seed=0, dtype=np.float32) -> np.ndarray:
    return np.random.default_rng(seed).uniform(low, high, size=shape).astype(dtype)


def both(array: np.ndarray, requires_grad=False):
    """The same values as a cpu tensor and as a cuda tensor."""
    cpu = minitorch.tensor(array, requires_grad=requires_grad)
    gpu = minitorch.tensor(array, device="cuda", requires_grad=requires_grad)
    return cpu, gpu


def assert_matches(gpu, cpu, rtol=1e-5, atol=1e-6):
    """`gpu` is a cuda tensor in device memory with `cpu`'s shape, dtype and values."""
    assert gpu.device == minitorch.device("cuda:0")
    assert not isinstance(gpu._layout.storage, np.ndarray)  # device memory, not host
    assert tuple(gpu.shape) == tuple(cpu.shape)
    assert gpu.dtype is cpu.dtype
    np.testing.assert_allclose(gpu.cpu().numpy(), cpu.numpy(), rtol=rtol, atol=atol)


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


# ---------------------------------------------------------------------------
# gradients and training on cuda
# ---------------------------------------------------------------------------


def written(z, y):
    """`z` after in-place writes: a number into a slice, a tensor into a row."""
    z[:, 1] = 5.0
    z[2] = y * 2
    return z


# Every public operation, forward and backward, on cuda against cpu. Inputs: `x` (3, 4) and `y`
# (4,) of floats away from 0; `a` (3, 4) and `b` (3, 4) of small integers.
DIFFERENTIABLE = {
    "exp": lambda x, y: x.exp(),
    "log": lambda x, y: x.abs().log(),
    "sqrt": lambda x, y: x.abs().sqrt(),
    "reciprocal": lambda x, y: x.reciprocal(),
    "abs": lambda x, y: x.abs(),
    "neg": lambda x, y: minitorch.negative(x),
    "add": lambda x, y: x + y,
    "sub_number": lambda x, y: 2.5 - x,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "pow": lambda x, y: x.abs() ** y,
    "pow_number": lambda x, y: x**2,
    "rpow": lambda x, y: 2.0**x,
    "remainder": lambda x, y: x % 1.5,
    "clamp": lambda x, y: x.clamp(-0.5, 0.7),
    "maximum": lambda x, y: minitorch.maximum(x, y),
    "minimum": lambda x, y: minitorch.minimum(x, y),
    "where": lambda x, y: minitorch.where(x > y, x, y * 2),
    "sum_dim": lambda x, y: x.sum(1),
    "sum": lambda x, y: x.sum(),
    "mean_dims": lambda x, y: x.mean((0, 1), keepdim=True),
    "prod": lambda x, y: x.prod(0),
    "max_dim": lambda x, y: x.max(1).values,
    "min": lambda x, y: x.min(),
    "softmax": lambda x, y: x.softmax(1),
    "log_softmax": lambda x, y: x.log_softmax(0),
    "matmul_vector": lambda x, y: x @ y,
    "dot": lambda x, y: minitorch.dot(y, y),
    "mm": lambda x, y: minitorch.mm(x.T, x),
    "permute": lambda x, y: x.unsqueeze(0).permute(2, 0, 1) * y.view(4, 1, 1),
    "reshape_flatten": lambda x, y: x.T.reshape(2, 6).flatten() * 3,
    "expand_squeeze": lambda x, y: x[:, :1].expand(3, 4).squeeze() * y,
    "index": lambda x, y: x[1:, ::2] * x[0, 1],
    "index_tensor": lambda x, y: x[minitorch.tensor([2, 0, 2])],
    "index_mask": lambda x, y: x[x > 0],
    "setitem": lambda x, y: written(x * 1, y),
    "to_float64": lambda x, y: x.double() * y.double(),
}
NOT_DIFFERENTIABLE = {
    "comparisons": lambda a, b: (a < b, a <= b, a > b, a >= b, a == b, a != b),
    "logical": lambda a, b: (
        minitorch.logical_and(a > 0, b > 0),
        minitorch.logical_or(a > 0, b > 0),
        minitorch.logical_not(a > 0),
    ),
    "bitwise": lambda a, b: (a & b, a | b, a ^ b, ~a),
    "floor_divide": lambda a, b: a // (b.abs() + 1),
    "argmax": lambda a, b: (a.argmax(1), a.argmin(0), a.argmax()),
    "any_all": lambda a, b: ((a > 1).any(), (a > -3).all(1)),
    "sum_int": lambda a, b: (a.sum(0), a.prod(1), a.max()),
    "matmul_int": lambda a, b: a @ b.T,
}


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_every_differentiable_op_and_its_gradient(name):
    signs = np.array([1, -1, 1, -1], np.float32)
    x_cpu, x_gpu = both(values(3, 4, low=0.3, high=1.7, seed=20) * signs, True)
    y_cpu, y_gpu = both(values(4, low=0.5, high=1.5, seed=21), True)
    outputs = []
    for x, y in ((x_cpu, y_cpu), (x_gpu, y_gpu)):
        out = DIFFERENTIABLE[name](x, y)
        weights = minitorch.tensor(values(*out.shape, seed=22), device=x.device)
        (out * weights.to(out.dtype)).sum().backward()
        outputs.append(out)
    assert_matches(outputs[1].detach(), outputs[0].detach(), rtol=1e-5, atol=1e-5)
    assert type(outputs[1].grad_fn).__name__ == type(outputs[0].grad_fn).__name__
    for gpu, cpu in ((x_gpu, x_cpu), (y_gpu, y_cpu)):
        assert (gpu.grad is None) == (cpu.grad is None)
        if cpu.grad is not None:
            assert_matches(gpu.grad, cpu.grad, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", NOT_DIFFERENTIABLE)
def test_every_integer_and_bool_op(name):
    a_cpu, a_gpu = both(np.arange(12).reshape(3, 4) % 5 - 2)
    b_cpu, b_gpu = both((np.arange(12).reshape(3, 4) * 7) % 4 - 1)
    gpu, cpu = NOT_DIFFERENTIABLE[name](a_gpu, b_gpu), NOT_DIFFERENTIABLE[name](a_cpu, b_cpu)
    gpu, cpu = (gpu, cpu) if isinstance(gpu, tuple) else ((gpu,), (cpu,))
    for ours, expected in zip(gpu, cpu, strict=True):
        assert_matches(ours, expected, rtol=0, atol=0)


def test_gradients_stay_on_the_device_and_match_cpu():
    x_cpu, x_gpu = both(values(4, 3, seed=10), requires_grad=True)
    w_cpu, w_gpu = both(values(3, 5, seed=11), requires_grad=True)
    for x, w in ((x_cpu, w_cpu), (x_gpu, w_gpu)):
        ((x @ w).sigmoid() * x.sum(1, keepdim=True)).max(1).values.log().mean().backward()
    assert_matches(x_gpu.grad, x_cpu.grad, atol=1e-5)
    assert_matches(w_gpu.grad, w_cpu.grad, atol=1e-5)


def test_gradient_of_a_copy_to_the_device_flows_back_to_the_cpu_leaf():
    cpu, _ = both(values(2, 3), requires_grad=True)
    moved = cpu.to("cuda")
    assert type(moved.grad_fn).__name__ == "ToCopyBackward0"
    (moved * moved).sum().backward()
    assert cpu.grad.device == minitorch.device("cpu")
    np.testing.assert_allclose(cpu.grad.numpy(), 2 * cpu.detach().numpy(), rtol=1e-6)


def test_gradients_on_cuda_pass_central_differences():
    x = minitorch.tensor(values(2, 3, seed=30, dtype=np.float64), device="cuda", requires_grad=True)
    y = minitorch.tensor(values(3, seed=31, dtype=np.float64), device="cuda", requires_grad=True)
    assert minitorch.grad_check(lambda a, b: ((a * b).sigmoid() @ b).exp(), x, y)


def test_gradients_agree_with_torch(torch):
    array = values(3, 4, seed=12)
    x = minitorch.tensor(array, device="cuda", requires_grad=True)
    (x.exp() * x).sum(0).relu().pow(2).sum().backward()
    expected = torch.tensor(array, requires_grad=True)
    (expected.exp() * expected).sum(0).relu().pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), expected.grad.numpy(), rtol=1e-5)


def mlp_step(on_device):
    """One SGD step of a 3-5-2 MLP moved to `on_device`: the loss and the new parameters."""
    minitorch.manual_seed(0)
    hidden, output = minitorch.nn.Linear(3, 5), minitorch.nn.Linear(5, 2)
    parameters = [*hidden.to(on_device).parameters(), *output.to(on_device).parameters()]
    optimizer = minitorch.optim.SGD(parameters, lr=0.5)
    x = minitorch.tensor(values(6, 3, seed=13), device=on_device)
    y = minitorch.tensor(values(6, 2, seed=14), device=on_device)
    loss = minitorch.nn.functional.mse_loss(output(hidden(x).relu()), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss, list(parameters)


def test_an_mlp_trains_on_cuda_as_on_cpu():
    gpu_loss, gpu_parameters = mlp_step("cuda")
    cpu_loss, cpu_parameters = mlp_step("cpu")
    assert_matches(gpu_loss.detach(), cpu_loss.detach(), atol=1e-6)
    for gpu, cpu in zip(gpu_parameters, cpu_parameters, strict=True):
        assert gpu.grad.device == minitorch.device("cuda:0")
        assert_matches(gpu.detach(), cpu.detach(), atol=1e-6)


# ---------------------------------------------------------------------------
# devices: creation, moves, printing, errors
# ---------------------------------------------------------------------------


def test_creation_functions_take_the_device():
    for t in (
        minitorch.zeros(2, 3, device="cuda"),
        minitorch.ones(2, device=minitorch.device("cuda:0")),
        minitorch.full((2,), 7.0, device="cuda"),
        minitorch.arange(5, device="cuda"),
        minitorch.rand(3, device="cuda"),
        minitorch.zeros_like(minitorch.zeros(2, device="cuda")),
    ):
        assert t.is_cuda and t.device == minitorch.device("cuda", 0)
        assert str(t.device) == "cuda:0"
    assert minitorch.full((2,), 7.0, device="cuda").tolist() == [7.0, 7.0]


def test_moves_between_devices():
    cpu = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]])
    gpu = cpu.cuda()
    assert gpu.is_cuda and not cpu.is_cuda
    assert gpu.cuda() is gpu and cpu.cpu() is cpu
    assert cpu.cuda(0).is_cuda and cpu.cuda("cuda:0").is_cuda
    assert gpu.to("cuda:0") is gpu
    assert cpu.to(gpu).is_cuda and gpu.to(cpu).device == minitorch.device("cpu")
    assert gpu.to(minitorch.float64).dtype is minitorch.float64
    assert gpu.T.cpu().tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert gpu[1, 0].item() == 3.0


def test_repr_names_the_device():
    assert repr(minitorch.tensor([1.0, 2.0], device="cuda")) == (
        "tensor([1., 2.], device='cuda:0')"
    )
    x = minitorch.tensor([1.0], device="cuda", requires_grad=True)
    assert repr(x * 2) == "tensor([2.], device='cuda:0', grad_fn=<MulBackward0>)"


def test_numpy_of_a_cuda_tensor_is_refused_with_torchs_text():
    message = (
        "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
        "to host memory first."
    )
    gpu = minitorch.ones(2, device="cuda")
    with pytest.raises(TypeError) as error:
        gpu.numpy()
    assert str(error.value) == message
    with pytest.raises(TypeError):
        np.asarray(gpu)


@pytest.mark.parametrize(
    "combine",
    [lambda a, b: a + b, lambda a, b: b * a, lambda a, b: a @ b.T, minitorch.maximum],
    ids=["add", "mul_reversed", "matmul", "maximum"],
)
def test_mixing_devices_raises_torchs_error(combine):
    gpu, cpu = minitorch.ones(2, 2, device="cuda"), minitorch.ones(2, 2)
    message = (
        "Expected all tensors to be on the same device, but found at least two devices, "
        "cuda:0 and cpu!"
    )
    with pytest.raises(RuntimeError) as error:
        combine(gpu, cpu)
    assert str(error.value) == message


def test_a_cpu_scalar_tensor_joins_a_cuda_operation():
    gpu = minitorch.tensor([1.0, 2.0], device="cuda")
    assert_matches(gpu * minitorch.tensor(3.0), minitorch.tensor([3.0, 6.0]))
    assert_matches(minitorch.tensor(3.0) - gpu, minitorch.tensor([2.0, 1.0]))


def test_copy_into_a_cuda_tensor_from_the_cpu():
    gpu = minitorch.zeros(3, device="cuda")
    gpu.copy_(minitorch.tensor([1.0, 2.0, 3.0]))
    assert gpu.is_cuda and gpu.tolist() == [1.0, 2.0, 3.0]


def test_minitorch_cuda_functions():
    assert minitorch.cuda.is_available() is True
    assert minitorch.cuda.device_count() == 1
    assert minitorch.cuda.current_device() == 0
    minitorch.cuda.synchronize()
    minitorch.cuda.manual_seed(3)
    first = minitorch.rand(4, device="cuda").tolist()
    minitorch.cuda.manual_seed(3)
    assert minitorch.rand(4, device="cuda").tolist() == first


def test_only_cuda_0_exists():
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        minitorch.zeros(1, device="cuda:1")


def test_the_reduction_block_must_be_a_power_of_two():
    with pytest.raises(ValueError, match="power of two"):
        type(get_backend("cuda"))((8, 6, 4))


def test_matmul_refuses_a_grid_larger_than_cuda_allows(monkeypatch):
    monkeypatch.setattr(cuda_backend, "MAX_GRID_YZ", 2)  # 65535 on a GPU: too big for the simulator
    ones = minitorch.ones(3, 2, 2, device="cuda")
    with pytest.raises(RuntimeError, match="at most 2 matrices"):
        ones @ ones
    assert_matches(ones[:2] @ ones[:2], minitorch.full((2, 2, 2), 2.0))


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


ADAM_SETTINGS = {
    "adam": dict(lr=0.1),
    "amsgrad": dict(lr=0.1, amsgrad=True),
    "weight_decay_maximize": dict(lr=0.05, weight_decay=0.1, maximize=True),
    "adamw_amsgrad": dict(lr=0.1, weight_decay=0.2, amsgrad=True, decoupled_weight_decay=True),
}


@pytest.mark.parametrize("kernel", ["fused", "composed"])
@pytest.mark.parametrize("settings", ADAM_SETTINGS)
def test_a_fused_adam_step_on_cuda_parameters_equals_the_cpu_step(settings, kernel, monkeypatch):
    """`minitorch._fused_adam_` on cuda tensors, by the backend's `adam_step` kernel or (with
    it unregistered) composed from tensor operations on the device, stays there and gives the
    cpu result; 35 elements span five blocks."""
    if kernel == "composed":
        monkeypatch.setitem(get_backend("cuda")._optional, "adam_step", None)
    else:
        assert get_backend("cuda").kernel("adam_step") is not None
    start = values(5, 7, seed=22)
    start[1, 1] = 0.0  # a zero gradient: the step divides by eps alone
    cpu, gpu = both(start, requires_grad=True)
    steps = []
    for p in (cpu, gpu):
        optimizer = minitorch.optim.Adam([p], **ADAM_SETTINGS[settings])
        for _ in range(3):
            optimizer.zero_grad()
            (p**4).sum().backward()
            if p is gpu and kernel == "fused":
                with no_host_copies():
                    optimizer.step()
            else:
                optimizer.step()
        steps.append(optimizer.state[p])
    assert_matches(gpu.detach(), cpu.detach())
    for key in steps[0]:
        if key != "step":
            assert_matches(steps[1][key], steps[0][key])


def test_conv_pooling_and_a_loss_on_cuda_as_on_cpu():
    """nn's window ops on cuda tensors: conv2d, max pooling (with its indices), average
    pooling (padding, divisor), adaptive pooling and cross-entropy give the cpu results,
    forward and backward, and every result and gradient stays on the device."""
    functional = minitorch.nn.functional
    weights = values(2, 1, 3, 3, seed=31)
    cpu_x, gpu_x = both(values(2, 1, 6, 6, seed=30), requires_grad=True)
    cpu_w, gpu_w = both(weights, requires_grad=True)
    target = np.array([1, 0])
    results = []
    for x, w, device in ((cpu_x, cpu_w, "cpu"), (gpu_x, gpu_w, "cuda")):
        h = functional.conv2d(x, w, padding=1).relu()
        pooled, indices = functional.max_pool2d(h, 2, return_indices=True)
        averaged = functional.avg_pool2d(h, 3, stride=2, padding=1, count_include_pad=False)
        divided = functional.avg_pool2d(h, 2, divisor_override=3)
        adaptive = functional.adaptive_avg_pool2d(h, (2, 1))
        logits = pooled.sum((2, 3)) + averaged.mean((2, 3)) + divided.amax((2, 3))
        logits = logits + adaptive.flatten(1)[:, :2]
        loss = functional.cross_entropy(logits, minitorch.tensor(target, device=device))
        loss.backward()
        results.append((loss.detach(), indices, adaptive.detach(), x.grad, w.grad))
    for cpu, gpu in zip(*results, strict=True):
        assert_matches(gpu, cpu)


# ---------------------------------------------------------------------------
# sort, scatter, folding and boolean puts, Adam: each runs with host copies refused
# ---------------------------------------------------------------------------


def refuse_host_copy(self, storage):
    raise AssertionError("a cuda storage was copied to the host")


@contextlib.contextmanager
def no_host_copies():
    """Inside, copying a cuda storage to the host is an error."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cuda_backend.CudaBackend, "to_host", refuse_host_copy)
        yield


def test_a_boolean_accumulating_put_is_an_or_of_repeated_positions():
    rng = np.random.default_rng(40)
    positions = rng.integers(0, 7, size=37)  # 37 positions: five blocks of 8 threads
    flags = rng.random(37) < 0.3
    start = np.array([True, False, False, True, False, False, False])
    results = []
    for device in ("cpu", "cuda"):
        a = minitorch.tensor(start, device=device)
        i = minitorch.tensor(positions, device=device)
        v = minitorch.tensor(flags, device=device)
        with no_host_copies():
            get_backend(device).put(a._layout, i._layout, v._layout, True)
        results.append(a)
    want = start.copy()
    np.logical_or.at(want, positions, flags)
    np.testing.assert_array_equal(results[0].numpy(), want)
    assert_matches(results[1], results[0])


def scatter_on(device: str, source: np.ndarray, index: np.ndarray, width: int, dim: int):
    """`scatter_along` of the backend of `device` into zeros with `width` along `dim`; `source`
    and `index` are read through a transposed view (strided layouts)."""
    src = minitorch.tensor(source.T.copy(), device=device).T
    idx = minitorch.tensor(index.T.copy(), device=device).T
    shape = list(source.shape)
    shape[dim] = width
    out = minitorch.zeros(*shape, device=device)
    get_backend(device).scatter_along(out._layout, src._layout, idx._layout, dim)
    return out


@pytest.mark.parametrize("dim", [0, 1])
def test_scatter_along_keeps_the_last_of_repeated_positions_as_on_cpu(dim):
    rng = np.random.default_rng(41)
    source = values(19, 6, seed=42)  # 19 lines along dim 1: three blocks of 8 threads
    source[3, 2] = np.nan
    width = 4
    index = rng.integers(0, width, size=source.shape)  # repeats in every line
    want = scatter_on("cpu", source, index, width, dim)
    with no_host_copies():
        got = scatter_on("cuda", source, index, width, dim)
    assert_matches(got, want)
    expected = np.zeros(want.shape, np.float32)
    for i in np.ndindex(source.shape):  # in order: the last write to a position stays
        at = list(i)
        at[dim] = index[i]
        expected[tuple(at)] = source[i]
    np.testing.assert_array_equal(want.numpy(), expected)


def test_the_gradient_of_sort_scatters_on_the_device():
    cpu, gpu = both(values(9, 5, seed=43), requires_grad=True)
    for t in (cpu, gpu):
        (t.sort(dim=0).values * minitorch.arange(5.0, device=t.device)).sum().backward()
    assert_matches(gpu.grad, cpu.grad)


def sort_input(dtype) -> np.ndarray:
    """19 × 11 values with ties and, in floats, NaN and signed zeros: 19 lines along dim 1
    (three blocks of 8 threads), lines of 19 along dim 0 (runs merged five times)."""
    rng = np.random.default_rng(44)
    a = rng.integers(-3, 4, size=(19, 11)).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a[rng.random(a.shape) < 0.15] = np.nan
        a[0, :4] = [0.0, -0.0, 0.0, -0.0]
    return a


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dim", [0, 1])
def test_sort_is_stable_with_nan_largest_as_on_cpu(dim, descending, dtype):
    a = sort_input(dtype)
    cpu = minitorch.tensor(a)
    gpu = minitorch.tensor(a.T.copy(), device="cuda").T  # a strided layout
    want = cpu.sort(dim=dim, descending=descending)
    with no_host_copies():
        got = gpu.sort(dim=dim, descending=descending)
    assert_matches(got.values, want.values)
    assert_matches(got.indices, want.indices)
    keys = a.astype(np.float64)  # NumPy's stable sort puts NaN last: the largest
    if descending:
        keys = np.where(np.isnan(keys), -np.inf, -keys)
    order = np.argsort(keys, axis=dim, kind="stable")
    np.testing.assert_array_equal(want.indices.numpy(), order)


@pytest.mark.parametrize("reduce", ["prod", "amax", "amin", "mean", "sum"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_folds_repeated_positions_in_order_as_on_cpu(reduce, include_self):
    rng = np.random.default_rng(45)
    start = values(6, 5, seed=46)
    source = values(6, 9, low=0.5, high=1.5, seed=47)  # 54 positions: seven blocks of 8
    source[2, 3] = np.nan
    index = rng.integers(0, 5, size=source.shape)
    index[0] = 1  # a row that folds all its values into one position
    results = []
    for device in ("cpu", "cuda"):
        a, src = (minitorch.tensor(x, device=device) for x in (start, source))
        idx = minitorch.tensor(index, device=device)
        results.append(a.scatter_reduce(1, idx, src, reduce, include_self=include_self))
    assert_matches(results[1], results[0])
    fold = {"prod": np.multiply, "amax": np.fmax, "amin": np.fmin}.get(reduce)
    if fold is not None and include_self:  # an independent check, NaN aside
        expected = start.copy()
        for (row, j), column in np.ndenumerate(index):
            expected[row, column] = fold(expected[row, column], source[row, j])
        finite = ~np.isnan(results[0].numpy())
        np.testing.assert_allclose(results[0].numpy()[finite], expected[finite], rtol=1e-6)


def test_no_cuda_backend_method_but_to_host_copies_a_storage_to_the_host():
    """Index bounds checks read a bool mask back through `to_host`, as torch's do; the
    kernels themselves never do. `from_host` is the one door the other way."""
    for name, method in vars(cuda_backend.CudaBackend).items():
        if callable(method) and name not in ("to_host", "from_host"):
            source = inspect.getsource(method)
            assert "to_host" not in source and "copy_to_device" not in source, name
