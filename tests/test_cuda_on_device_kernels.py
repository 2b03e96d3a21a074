"""The cuda kernels that run with host copies refused: the fused Adam step, sort, scatter,
folding and boolean puts (each against `cpu`), and convolution, pooling and a loss on cuda
as on cpu.

Like every cuda test file (tests/simulated_cuda.py), it turns Numba's CUDA simulator on when it
is the first to import minitorch; a run of the whole suite leaves it to
tests/test_cuda_simulator.py. On a GPU, `NUMBA_ENABLE_CUDASIM=0` runs it on the device
(scripts/check_gpu.sh).
"""

import inspect

import numpy as np
import pytest
from cuda_checks import assert_matches, both, no_host_copies, values
from simulated_cuda import requires_cuda

import minitorch
from minitorch.backends import get_backend
from minitorch.backends.cuda import backend as cuda_backend

# the simulator's small kernels (tests/conftest.py), where a dozen elements span several blocks
pytestmark = [requires_cuda, pytest.mark.usefixtures("small_kernels")]

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
    source = values(19, 6, seed=42)  # 114 elements: fifteen blocks of 8 threads
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


@pytest.mark.parametrize("length", [1, 2, 77])
@pytest.mark.parametrize("descending", [False, True])
def test_a_long_line_sorts_across_blocks_as_on_cpu(length, descending):
    """One line whose elements span many blocks of 8 threads (77: seven merge rounds, the last
    pair of runs cut short), in float64 with ties, NaN and infinities; and lines too short
    for any round (1) or for more than one (2)."""
    rng = np.random.default_rng(48)
    a = rng.integers(-5, 6, size=length).astype(np.float64)
    a[rng.random(length) < 0.2] = np.nan
    a[rng.random(length) < 0.1] = np.inf
    a[: min(length, 2)] = -np.inf
    want = minitorch.tensor(a).sort(descending=descending)
    with no_host_copies():
        got = minitorch.tensor(a, device="cuda").sort(descending=descending)
    assert_matches(got.values, want.values)
    assert_matches(got.indices, want.indices)
    keys = np.where(np.isnan(a), np.inf, a)  # NaN largest, after inf in a stable order
    keys = -keys if descending else keys
    ranks = np.lexsort((np.arange(length), np.isnan(a) != descending, keys))
    np.testing.assert_array_equal(want.indices.numpy(), ranks)


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
