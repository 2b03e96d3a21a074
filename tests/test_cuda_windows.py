"""The cuda backend's window kernels (`backends/cuda/windows.py`) against the cpu backend's.

Convolution (forward, input, weight and bias gradients), max pooling (values, indices,
gradient) and average pooling (values, gradient) on `cuda` tensors must give what the same
calls give on `cpu`, whose window kernels `tests/test_nn_kernels.py` checks against the
exercise path (average pooling on `cpu` is the exercise path), with stride, padding,
dilation, groups, overlapping windows, ties, `ceil_mode` and `count_include_pad`. Like
tests/test_cuda_backend.py this file runs in Numba's CUDA simulator (it is one of conftest's
SIMULATOR_FILES), with 8 threads per block, so that tiny tensors span several blocks.
"""

import contextlib

import numpy as np
import pytest
from cuda_checks import assert_matches, both, no_host_copies, values
from simulated_cuda import requires_cuda

import minitorch
from minitorch.backends import get_backend
from minitorch.backends.interface import AVG_POOL_KERNELS, WINDOW_KERNELS

pytestmark = requires_cuda
functional = minitorch.nn.functional


@pytest.fixture(autouse=True)
def window_calls(monkeypatch):
    """Counts of the cuda backend's window kernel calls in the test, by name (so a test can
    tell the kernels ran, not the exercise path), with 8 threads per block."""
    backend = get_backend("cuda")
    monkeypatch.setattr(backend, "threads", 8)
    names = (*WINDOW_KERNELS, *AVG_POOL_KERNELS)
    calls = dict.fromkeys(names, 0)
    originals = {name: backend.kernel(name) for name in names}

    def counted(name):
        def call(*args):
            calls[name] += 1
            originals[name](*args)

        return call

    for name in names:
        backend.register_kernel(name, counted(name))
    yield calls
    for name, kernel in originals.items():
        backend.register_kernel(name, kernel)


def conv_both(x, w, b, conv=functional.conv2d, **settings):
    """`conv(x, w, b, **settings)` and its gradients for a random upstream gradient, on cpu
    and on cuda (with host copies refused there): [(out, grad x, grad w, grad b)] each."""
    shape = conv(minitorch.tensor(x), minitorch.tensor(w), **settings).shape
    upstream = values(*shape, seed=4)
    results = []
    for device in ("cpu", "cuda"):
        tensors = [
            None if a is None else minitorch.tensor(a, device=device, requires_grad=True)
            for a in (x, w, b)
        ]
        g = minitorch.tensor(upstream, device=device)
        with no_host_copies() if device == "cuda" else contextlib.nullcontext():
            out = conv(*tensors, **settings)
            (out * g).sum().backward()
        results.append((out.detach(), *(t.grad for t in tensors if t is not None)))
    return results


CONVOLUTIONS = {
    "plain": dict(stride=1, padding=0, dilation=1, groups=1),
    "stride": dict(stride=(2, 1), padding=0, dilation=1, groups=1),
    "padding": dict(stride=1, padding=(1, 2), dilation=1, groups=1),
    "dilation": dict(stride=1, padding=1, dilation=(2, 1), groups=1),
    "everything": dict(stride=2, padding=1, dilation=2, groups=2),
    "groups": dict(stride=1, padding=1, dilation=1, groups=2),
}


@pytest.mark.parametrize("name", CONVOLUTIONS)
def test_conv2d_and_its_gradients_match_cpu(name, window_calls):
    settings = CONVOLUTIONS[name]
    groups = settings["groups"]
    x = values(2, 4, 5, 6, seed=1)
    w = values(4, 4 // groups, 3, 2, seed=2)
    b = values(4, seed=3)
    cpu, gpu = conv_both(x, w, b, **settings)
    for want, got in zip(cpu, gpu, strict=True):
        assert_matches(got, want, rtol=1e-5, atol=1e-5)
    assert window_calls["conv2d"] == 1 and window_calls["conv2d_backward"] == 1


def test_conv2d_reads_strided_inputs_and_runs_in_float64():
    """A transposed input and weight (non-contiguous views), no bias, float64."""
    x = values(2, 3, 4, 5, seed=5, dtype=np.float64)
    w = values(3, 3, 2, 3, seed=6, dtype=np.float64)
    results = []
    for device in ("cpu", "cuda"):
        xt = minitorch.tensor(x.transpose(0, 1, 3, 2).copy(), device=device)
        wt = minitorch.tensor(w.transpose(1, 0, 2, 3).copy(), device=device)
        xt.requires_grad_(True)
        wt.requires_grad_(True)
        out = functional.conv2d(xt.transpose(2, 3), wt.transpose(0, 1), padding=1, stride=(1, 2))
        out.pow(2).sum().backward()
        results.append((out.detach(), xt.grad, wt.grad))
    for want, got in zip(*results, strict=True):
        assert_matches(got, want, rtol=1e-12, atol=1e-12)


def test_only_the_wanted_gradients_are_computed(window_calls):
    """An input that needs no gradient, and a convolution without a bias."""
    x_cpu, x_gpu = both(values(1, 2, 4, 4, seed=7))
    w_cpu, w_gpu = both(values(3, 2, 2, 2, seed=8), requires_grad=True)
    for x, w in ((x_cpu, w_cpu), (x_gpu, w_gpu)):
        functional.conv2d(x, w, padding=1).sum().backward()
    assert x_gpu.grad is None
    assert_matches(w_gpu.grad, w_cpu.grad, rtol=1e-5, atol=1e-5)
    assert window_calls["conv2d_backward"] == 1


def test_conv1d_and_conv_transpose2d_match_cpu(window_calls):
    """conv1d (an image of height 1) and the transposed convolution, whose forward is
    `conv2d_backward`'s input gradient and whose backward is `conv2d` and the weight's."""
    x = values(2, 4, 7, seed=9)
    w = values(2, 2, 3, seed=10)  # groups 2: 4 channels in, 2 out
    cpu, gpu = conv_both(
        x, w, values(2, seed=11), conv=functional.conv1d,
        stride=2, padding=1, dilation=1, groups=2,
    )  # fmt: skip
    for want, got in zip(cpu, gpu, strict=True):
        assert_matches(got, want, rtol=1e-5, atol=1e-5)
    x = values(1, 2, 3, 4, seed=13)
    w = values(2, 3, 3, 2, seed=14)
    cpu, gpu = conv_both(
        x, w, values(3, seed=15), conv=functional.conv_transpose2d,
        stride=2, padding=(1, 0), output_padding=1, dilation=(1, 2),
    )  # fmt: skip
    for want, got in zip(cpu, gpu, strict=True):
        assert_matches(got, want, rtol=1e-5, atol=1e-5)
    assert window_calls["conv2d"] >= 2 and window_calls["conv2d_backward"] >= 3


POOLINGS = {
    "disjoint": dict(kernel_size=2),
    "overlapping": dict(kernel_size=3, stride=1, padding=1),
    "strided": dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0)),
    "dilation": dict(kernel_size=2, stride=1, dilation=(2, 1)),
    "ceil": dict(kernel_size=2, stride=2, padding=1, ceil_mode=True),
}


@pytest.mark.parametrize("name", POOLINGS)
def test_max_pool2d_values_indices_and_gradient_match_cpu(name, window_calls):
    """Values from {-1, 0, 1}: every window has ties, and overlapping windows share maxima,
    whose gradients add up."""
    rng = np.random.default_rng(20)
    x = rng.integers(-1, 2, size=(2, 3, 5, 6)).astype(np.float32)
    results = []
    for device in ("cpu", "cuda"):
        t = minitorch.tensor(x, device=device, requires_grad=True)
        with no_host_copies() if device == "cuda" else contextlib.nullcontext():
            out, indices = functional.max_pool2d(t, return_indices=True, **POOLINGS[name])
            g = minitorch.tensor(values(*out.shape, seed=21), device=device)
            (out * g).sum().backward()
        results.append((out.detach(), indices, t.grad))
    for want, got in zip(*results, strict=True):
        assert_matches(got, want)
    assert window_calls["max_pool2d"] == 1 and window_calls["max_pool2d_backward"] == 1


def test_max_pool2d_of_nans_infinities_and_empty_windows_matches_cpu():
    """A NaN wins its window, -inf loses to nothing, and the middle windows along the width
    (2 wide, two taps 3 apart, padding 2: taps -1 and 2) lie wholly in the padding: their
    maximum is -inf, and they pass no gradient on."""
    x = values(1, 2, 4, 2, seed=22)
    x[0, 0, 1, 0] = np.nan
    x[0, 1, :2, :] = -np.inf
    results = []
    for device in ("cpu", "cuda"):
        t = minitorch.tensor(x, device=device, requires_grad=True)
        out, indices = functional.max_pool2d(
            t, (2, 2), stride=1, padding=(1, 2), dilation=(1, 3), return_indices=True
        )
        out.nan_to_num(0.0, 0.0, 0.0).sum().backward()
        results.append((out.detach(), indices, t.grad))
    cpu_values = results[0][0].numpy()
    assert np.isnan(cpu_values).any() and np.isneginf(cpu_values[:, :, :, 1]).all()
    for want, got in zip(*results, strict=True):
        assert_matches(got, want)


def test_the_window_kernels_leave_no_storage_on_the_host():
    """Direct calls of the four registered kernels, with host copies refused."""
    backend = get_backend("cuda")
    x = minitorch.tensor(values(1, 2, 4, 4, seed=23), device="cuda")
    w = minitorch.tensor(values(2, 2, 2, 2, seed=24), device="cuda")
    out = minitorch.zeros(1, 2, 3, 3, device="cuda")
    grads = [minitorch.zeros(*s, device="cuda") for s in ((1, 2, 4, 4), (2, 2, 2, 2), (2,))]
    pooled = minitorch.zeros(1, 2, 2, 2, device="cuda")
    indices = minitorch.zeros(1, 2, 2, 2, dtype=minitorch.int64, device="cuda")
    with no_host_copies():
        backend.kernel("conv2d")(out._layout, x._layout, w._layout, None, (1, 1), (1, 1), (0, 0), 1)
        backend.kernel("conv2d_backward")(
            *(g._layout for g in grads), out._layout, x._layout, w._layout,
            (1, 1), (1, 1), (0, 0), 1,
        )  # fmt: skip
        backend.kernel("max_pool2d")(
            pooled._layout, indices._layout, x._layout, (2, 2), (2, 2), (1, 1), (0, 0)
        )
        backend.kernel("max_pool2d_backward")(grads[0]._layout, pooled._layout, indices._layout)
    cpu_x = minitorch.tensor(values(1, 2, 4, 4, seed=23))
    assert_matches(out, functional.conv2d(cpu_x, w.cpu()), rtol=1e-5, atol=1e-5)
    want_values, want_indices = functional.max_pool2d(cpu_x, 2, return_indices=True)
    assert_matches(pooled, want_values)
    assert_matches(indices, want_indices)


AVERAGES = {
    "disjoint": dict(kernel_size=2),
    "overlapping": dict(kernel_size=3, stride=1, padding=1),
    "strided": dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0)),
    "ceil": dict(kernel_size=2, stride=2, padding=1, ceil_mode=True),
    "ceil, padding not counted": dict(
        kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False
    ),
    "padding not counted": dict(kernel_size=(2, 3), stride=1, padding=1, count_include_pad=False),
    "divisor": dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, divisor_override=5),
}


def avg_pool_both(x, pool=functional.avg_pool2d, **settings):
    """`pool(x, **settings)` and its gradient for a random upstream gradient, on cpu and on
    cuda (host copies refused there): [(out, grad x)] each."""
    results = []
    for device in ("cpu", "cuda"):
        t = minitorch.tensor(x, device=device, requires_grad=True)
        with no_host_copies() if device == "cuda" else contextlib.nullcontext():
            out = pool(t, **settings)
            g = minitorch.tensor(values(*out.shape, seed=31), device=device)
            (out * g).sum().backward()
        results.append((out.detach(), t.grad))
    return results


@pytest.mark.parametrize("name", AVERAGES)
def test_avg_pool2d_values_and_gradient_match_cpu(name, window_calls):
    """Odd sizes (5 x 7), so strided and `ceil_mode` windows hang over the edge."""
    cpu, gpu = avg_pool_both(values(2, 2, 5, 7, seed=30), **AVERAGES[name])
    for want, got in zip(cpu, gpu, strict=True):
        assert_matches(got, want)
    assert window_calls["avg_pool2d"] == 1 and window_calls["avg_pool2d_backward"] == 1


def test_avg_pool_of_strided_float64_and_of_unbatched_and_1d_inputs_matches_cpu(window_calls):
    """A transposed (non-contiguous) float64 input, a (C, H, W) input, and avg_pool1d."""
    x = values(1, 2, 6, 5, seed=32, dtype=np.float64)
    transposed = dict(kernel_size=(2, 3), stride=(1, 2), padding=1)
    cpu, gpu = avg_pool_both(
        x, pool=lambda t, **kw: functional.avg_pool2d(t.transpose(2, 3), **kw), **transposed
    )
    for want, got in zip(cpu, gpu, strict=True):
        assert_matches(got, want, rtol=1e-12, atol=1e-12)
    for pool, shape in ((functional.avg_pool2d, (2, 3, 5)), (functional.avg_pool1d, (2, 7))):
        cpu, gpu = avg_pool_both(values(*shape, seed=33), pool=pool, kernel_size=3, padding=1)
        for want, got in zip(cpu, gpu, strict=True):
            assert_matches(got, want)
    assert window_calls["avg_pool2d"] == 3 and window_calls["avg_pool2d_backward"] == 3


def test_avg_pool2d_on_cuda_gives_the_hand_computed_means_and_central_differences():
    """The means of 2 x 2 windows of 0..15, and the gradient of a weighted sum of a 3 x 3
    pool with padding (counted out) against central differences of the kernel itself."""
    x = minitorch.arange(16.0, device="cuda").view(1, 1, 4, 4)
    assert functional.avg_pool2d(x, 2).cpu().tolist() == [[[[2.5, 4.5], [10.5, 12.5]]]]
    image = values(1, 1, 3, 4, seed=34, dtype=np.float64)
    weights = minitorch.tensor(values(1, 1, 2, 3, seed=35, dtype=np.float64), device="cuda")
    settings = dict(kernel_size=3, stride=2, padding=1, count_include_pad=False, ceil_mode=True)

    def loss(array):
        t = minitorch.tensor(array, device="cuda")
        return (functional.avg_pool2d(t, **settings) * weights).sum().item()

    t = minitorch.tensor(image, device="cuda", requires_grad=True)
    (functional.avg_pool2d(t, **settings) * weights).sum().backward()
    step = 1e-6
    numeric = np.zeros_like(image)
    for at in np.ndindex(image.shape):
        up, down = image.copy(), image.copy()
        up[at] += step
        down[at] -= step
        numeric[at] = (loss(up) - loss(down)) / (2 * step)
    np.testing.assert_allclose(t.grad.cpu().numpy(), numeric, rtol=1e-6, atol=1e-8)
