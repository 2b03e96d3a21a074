"""cuda devices: creation functions that take the device, moves between devices, printing,
`minitorch.cuda`'s functions, and torch's errors (host reads, mixed devices, launch limits).

Like every cuda test file (tests/simulated_cuda.py), it turns Numba's CUDA simulator on when it
is the first to import minitorch; a run of the whole suite leaves it to
tests/test_cuda_simulator.py. On a GPU, `NUMBA_ENABLE_CUDASIM=0` runs it on the device
(scripts/check_gpu.sh).
"""

import pickle

import numpy as np
import pytest
from cuda_checks import assert_matches
from simulated_cuda import requires_cuda

import minitorch
from minitorch.backends import get_backend
from minitorch.backends.cuda import backend as cuda_backend

# the simulator's small kernels (tests/conftest.py), where a dozen elements span several blocks
pytestmark = [requires_cuda, pytest.mark.usefixtures("small_kernels")]

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


def test_pickled_cuda_tensors_unpickle_on_cuda_sharing_their_storage():
    """As torch's: the values go through the host; a view and its base pickled together
    share one storage again, and a Parameter stays one."""
    base = minitorch.arange(6.0, device="cuda").reshape(2, 3)
    weight = minitorch.nn.Parameter(minitorch.tensor([0.5, -1.0], device="cuda"))
    restored_base, view, restored_weight = pickle.loads(pickle.dumps((base, base[1], weight)))
    assert restored_base.is_cuda and view.is_cuda
    view.add_(100.0)  # writes through to the restored base, and only to it
    assert restored_base.tolist() == [[0.0, 1.0, 2.0], [103.0, 104.0, 105.0]]
    assert base.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert isinstance(restored_weight, minitorch.nn.Parameter) and restored_weight.is_cuda
    assert restored_weight.requires_grad and restored_weight.tolist() == [0.5, -1.0]


def test_packing_refuses_lengths_on_cuda_with_torchs_error():
    padded = minitorch.zeros(3, 2, 1, device="cuda")
    with pytest.raises(RuntimeError) as raised:
        minitorch.nn.utils.rnn.pack_padded_sequence(padded, minitorch.tensor([3, 2], device="cuda"))
    assert str(raised.value) == (
        "'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long tensor"
    )
    packed = minitorch.nn.utils.rnn.pack_padded_sequence(padded, minitorch.tensor([3, 2]))
    assert packed.data.is_cuda and packed.batch_sizes.tolist() == [2, 2, 1]


def test_legacy_type_names_name_the_device():
    """torch's `type()` names a cuda tensor `torch.cuda.FloatTensor`; a type name with `cuda.`
    moves a tensor there, one without it (or a legacy type) to the CPU."""
    gpu = minitorch.tensor([1.5, -2.5], device="cuda")
    assert gpu.type() == "minitorch.cuda.FloatTensor"
    assert gpu.long().type() == "minitorch.cuda.LongTensor"
    assert gpu.type(minitorch.float64).type() == "minitorch.cuda.DoubleTensor"
    for to_host in (gpu.type("minitorch.IntTensor"), gpu.type(minitorch.IntTensor)):
        assert to_host.device.type == "cpu" and to_host.tolist() == [1, -2]
    to_gpu = minitorch.tensor([3.0]).type("torch.cuda.LongTensor")
    assert to_gpu.type() == "minitorch.cuda.LongTensor" and to_gpu.tolist() == [3]
    assert gpu.type("minitorch.cuda.FloatTensor") is gpu
    params = minitorch.nn.ParameterDict({"w": minitorch.nn.Parameter(gpu)})
    assert repr(params) == (
        "ParameterDict("
        "  (w): Parameter containing: [minitorch.cuda.FloatTensor of size 2 (cuda:0)])"
    )


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


# Operations that make helper tensors of their own (a range, a mask, the quantiles' q): with
# the default device the CPU, as a PyTorch user's is, each must make them on its input's device.
HELPER_TENSOR_OPERATIONS = {
    "triu": lambda t: t.triu(1),
    "tril": lambda t: t.tril(-1),
    "quantile": lambda t: t.quantile(0.25, dim=1),
    "nanquantile of several q": lambda t: t.nanquantile(
        minitorch.tensor([0.5, 0.9], device=t.device), dim=0
    ),
    "nanmedian of a 0-d tensor": lambda t: t[0, 0].nanmedian(0).indices,
    "nanmedian of an empty tensor": lambda t: t[:0].nanmedian(),
    "vander": lambda t: minitorch.vander(t[0, :3], increasing=True),
    "vander of integers": lambda t: minitorch.vander(t[0, :2].long()),
    "sort of a 0-d tensor": lambda t: t[0, 1].sort().indices,
    "argsort of a 0-d tensor": lambda t: t[0, 1].argsort(),
    "topk of a 0-d tensor": lambda t: t[0, 1].topk(1).indices,
    "median of an empty tensor": lambda t: t[:0].median(),
    "causal mask": lambda t: minitorch.nn.Transformer.generate_square_subsequent_mask(
        3, device=t.device
    ),
}


@pytest.mark.parametrize("operation", HELPER_TENSOR_OPERATIONS)
def test_operations_make_their_helper_tensors_on_the_input_device(operation):
    assert minitorch.get_default_device() == minitorch.device("cpu")
    a = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    a[1, 2] = np.nan
    want = HELPER_TENSOR_OPERATIONS[operation](minitorch.tensor(a))
    assert_matches(HELPER_TENSOR_OPERATIONS[operation](minitorch.tensor(a, device="cuda")), want)


class TwoOutputs(minitorch.autograd.Function):
    """$(2x, x^2)$, whose backward sees zeros for an output that got no gradient."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2, x * x

    @staticmethod
    def backward(ctx, g_double, g_square):
        (x,) = ctx.saved_tensors
        ctx.received = (g_double.device, g_square.device)
        return g_double * 2 + g_square * 2 * x


def test_an_unused_output_gets_its_zeros_on_the_cuda_device():
    x = minitorch.tensor([1.0, -2.0], device="cuda", requires_grad=True)
    _, square = TwoOutputs.apply(x)
    square.sum().backward()
    assert square.grad_fn.ctx.received == (minitorch.device("cuda:0"),) * 2
    assert_matches(x.grad, minitorch.tensor([2.0, -4.0]))


def test_gradgradcheck_of_cuda_inputs():
    x = minitorch.tensor([0.5, -1.5], dtype=minitorch.float64, device="cuda", requires_grad=True)
    assert minitorch.autograd.gradgradcheck(lambda t: (t * t * t).sum(), (x,))


def test_quantiles_on_another_device_than_the_input_are_refused_with_torchs_text():
    with pytest.raises(RuntimeError) as error:
        minitorch.ones(3, device="cuda").quantile(minitorch.tensor([0.5]))
    assert str(error.value) == "quantile() q tensor must be on the same device as the input tensor"


def test_legacy_constructors_stay_on_the_cpu_whatever_the_default_device():
    minitorch.set_default_device("cuda")
    try:
        made = [minitorch.Tensor([1.0]), minitorch.Tensor(2), minitorch.FloatTensor([1.0])]
        assert [t.device for t in made] == [minitorch.device("cpu")] * 3
        for legacy in (lambda: minitorch.Tensor([1.0], device="cuda"),
                       lambda: minitorch.LongTensor(2, device="cuda:0")):  # fmt: skip
            with pytest.raises(RuntimeError) as error:
                legacy()
            assert str(error.value) == (
                "legacy constructor expects device type: cpu but device type: cuda was passed"
            )
    finally:
        minitorch.set_default_device(None)


def test_cuda_legacy_types_make_and_recognise_tensors_on_cuda():
    """`minitorch.cuda.FloatTensor` as torch's: its calls make tensors on cuda (the idiom
    `Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor` of older scripts), it
    recognises float32 tensors on cuda only, and `type()` to it moves a tensor there."""
    Tensor = minitorch.cuda.FloatTensor
    ones = Tensor(3, 1).fill_(1.0)
    assert ones.is_cuda and ones.tolist() == [[1.0]] * 3
    assert isinstance(ones, Tensor) and not isinstance(ones, minitorch.FloatTensor)
    assert not isinstance(ones.cpu(), Tensor) and isinstance(ones.cpu(), minitorch.FloatTensor)
    assert not isinstance(ones.double(), Tensor)
    data = minitorch.cuda.LongTensor([1, 2])
    assert data.type() == "minitorch.cuda.LongTensor" and data.tolist() == [1, 2]
    assert minitorch.cuda.BoolTensor(2, device="cuda:0").tolist() == [False, False]
    moved = minitorch.tensor([1.5]).type(minitorch.cuda.DoubleTensor)
    assert moved.type() == "minitorch.cuda.DoubleTensor" and moved.tolist() == [1.5]
    with pytest.raises(RuntimeError) as error:
        minitorch.cuda.FloatTensor(2, device="cpu")
    assert str(error.value) == (
        "legacy constructor expects device type: cuda but device type: cpu was passed"
    )


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


def test_a_launch_starts_no_more_threads_than_it_has_elements():
    backend = cuda_backend.CudaBackend(sizes=(8, 8, 4))
    configurations = []

    class RecordingKernel:  # what `kernel[blocks, threads](*args)` launches
        def __getitem__(self, configuration):
            configurations.append(configuration)
            return lambda *args: None

    for size in (3, 8, 20, 0):
        backend.launch(RecordingKernel(), size)
    assert configurations == [(1, 3), (1, 8), (3, 8)]  # nothing for no elements
