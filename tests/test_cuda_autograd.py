"""Gradients and training on cuda: every public operation, forward and backward, on cuda
against cpu; gradients that stay on the device, pass central differences and agree with
torch; an MLP that trains on cuda as on cpu.

Like every cuda test file (tests/simulated_cuda.py), it turns Numba's CUDA simulator on when it
is the first to import minitorch; a run of the whole suite leaves it to
tests/test_cuda_simulator.py. On a GPU, `NUMBA_ENABLE_CUDASIM=0` runs it on the device
(scripts/check_gpu.sh).
"""

import numpy as np
import pytest
from cuda_checks import assert_matches, both, values, written
from simulated_cuda import requires_cuda

import minitorch

# the simulator's small kernels (tests/conftest.py), where a dozen elements span several blocks
pytestmark = [requires_cuda, pytest.mark.usefixtures("small_kernels")]

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
