"""The one-pass convolution and max-pooling kernels of the default backend
(`backends/fast/windows.py`) against the exercise path (strided windows, im2col, col2im on the
reference backend), and against torch live where it is installed: values, indices and the
three gradients.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from strategies import conv2d_settings

import minitorch
import minitorch.nn.functional as F
from minitorch.backends.fast.windows import _reading
from minitorch.ops.convolution import window_kernels

SETTINGS = settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def outputs_and_grads(lib, fn, arrays, requires_grad, upstream, **kwargs):
    """`fn` in `lib` (minitorch or torch) over float64 copies of `arrays`; its output(s) and the
    gradients of the inputs that `requires_grad`, backpropagated from `upstream`."""
    inputs = [
        None if a is None else lib.tensor(a, requires_grad=g)
        for a, g in zip(arrays, requires_grad, strict=True)
    ]
    result = fn(*inputs, **kwargs)
    out = result[0] if isinstance(result, tuple) else result
    out.backward(lib.tensor(upstream))
    grads = [
        None if t is None or not g else t.grad for t, g in zip(inputs, requires_grad, strict=True)
    ]
    values = [r.detach().numpy() for r in (result if isinstance(result, tuple) else (result,))]
    return values, [None if g is None else g.numpy() for g in grads]


def run(backend: str, fn, arrays, requires_grad, upstream, **kwargs):
    """`outputs_and_grads` of minitorch's `fn` on `backend`."""
    previous = minitorch.get_backend().name
    minitorch.set_backend(backend)
    try:
        return outputs_and_grads(minitorch, fn, arrays, requires_grad, upstream, **kwargs)
    finally:
        minitorch.set_backend(previous)


def assert_same(ours, reference, what: str, tol: float = 1e-10) -> None:
    for k, (a, b) in enumerate(zip(ours[0] + ours[1], reference[0] + reference[1], strict=True)):
        if b is None:
            assert a is None, f"{what}: item {k} should be None"
            continue
        assert a.shape == b.shape, f"{what}: item {k} has shape {a.shape}, expected {b.shape}"
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol, err_msg=f"{what}: item {k}")


@st.composite
def conv_cases(draw):
    """A random 2-D convolution that fits, with which operands need a gradient."""
    x_shape, w_shape, kwargs = draw(conv2d_settings(3, 5, extra_size=5, batch=3))
    needs = draw(st.tuples(st.booleans(), st.booleans(), st.booleans()))
    bias = draw(st.booleans())
    return x_shape, w_shape, bias, needs, kwargs


def conv_operands(case, seed):
    """The operands of a `conv_cases` case (None: no bias), the ones that need a gradient, the
    upstream gradient, and the keyword arguments."""
    x_shape, w_shape, bias, needs, kwargs = case
    rng = np.random.default_rng(seed)
    arrays = [rng.normal(size=x_shape), rng.normal(size=w_shape)]
    arrays.append(rng.normal(size=w_shape[:1]) if bias else None)
    needs = (needs[0] or not any(needs[:2]), needs[1], needs[2] and bias)
    tensors = (None if a is None else minitorch.tensor(a) for a in arrays)
    probe = minitorch.conv2d(*tensors, **kwargs)
    return arrays, needs, rng.normal(size=tuple(probe.shape)), kwargs


@SETTINGS
@given(conv_cases(), st.integers(0, 2**32 - 1))
def test_conv2d_kernel_matches_the_exercise_path(case, seed):
    arrays, needs, upstream, kwargs = conv_operands(case, seed)
    tuned = run("fast", minitorch.conv2d, arrays, needs, upstream, **kwargs)
    exercise = run("simple", minitorch.conv2d, arrays, needs, upstream, **kwargs)
    assert_same(tuned, exercise, "kernel vs exercise path")


@SETTINGS
@given(conv_cases(), st.integers(0, 2**32 - 1))
def test_conv2d_kernel_matches_torch(torch, case, seed):
    arrays, needs, upstream, kwargs = conv_operands(case, seed)
    expected = outputs_and_grads(torch, torch.conv2d, arrays, needs, upstream, **kwargs)
    tuned = run("fast", minitorch.conv2d, arrays, needs, upstream, **kwargs)
    assert_same(tuned, expected, "kernel vs torch")


def test_conv_kernels_read_strided_operands_and_1d_convolutions(torch):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 6, 5))
    w = rng.normal(size=(4, 3, 2, 3))
    ours_x = minitorch.tensor(np.swapaxes(x, 2, 3), requires_grad=True)
    ours_w = minitorch.tensor(w[:, :, ::-1].copy(), requires_grad=True)
    theirs_x, theirs_w = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    out = minitorch.conv2d(ours_x.transpose(2, 3), ours_w.flip(2), padding=1)
    expected = torch.conv2d(theirs_x, theirs_w, padding=1)
    g = rng.normal(size=tuple(expected.shape))
    out.backward(minitorch.tensor(g).transpose(2, 3).contiguous().transpose(2, 3))
    expected.backward(torch.tensor(g))
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), atol=1e-10)
    np.testing.assert_allclose(ours_x.grad.numpy(), np.swapaxes(theirs_x.grad.numpy(), 2, 3))
    np.testing.assert_allclose(ours_w.grad.numpy(), theirs_w.grad.numpy()[:, :, ::-1], atol=1e-10)
    signal, kernel = rng.normal(size=(2, 2, 9)), rng.normal(size=(3, 2, 4))
    ours = minitorch.conv1d(minitorch.tensor(signal), minitorch.tensor(kernel), stride=2)
    assert ours.shape == (2, 3, 3)
    np.testing.assert_allclose(
        ours.numpy(), torch.conv1d(torch.tensor(signal), torch.tensor(kernel), stride=2).numpy()
    )


# Stride-1 convolutions large enough that the kernels read each row of columns as one run of a
# padded copy of the image (`_reading`): padding (uneven with "same"), dilation, groups, one
# channel, a batch of one, odd sizes; (x shape, weight shape, keyword arguments).
PADDED_COPY_CASES = [
    ((2, 4, 9, 7), (6, 2, 3, 2), {"padding": (1, 2), "dilation": (2, 1), "groups": 2}),
    ((1, 3, 8, 11), (5, 3, 4, 3), {"padding": "same"}),
    ((3, 1, 13, 12), (2, 1, 5, 5), {"padding": 2}),
    ((2, 6, 7, 9), (4, 6, 3, 3), {}),
]


# Convolutions with 32 outputs or more, whose weight gradient is a product vectorized over them
# (`_add_weight_gradient`), with one group and (dot products again) with two.
MANY_OUTPUT_CASES = [
    ((2, 3, 6, 5), (33, 3, 3, 3), {"padding": 1}),
    ((1, 4, 5, 7), (32, 2, 2, 3), {"groups": 2, "stride": (2, 1)}),
    ((3, 2, 9, 8), (40, 2, 3, 3), {"padding": 1, "dilation": 2}),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("x_shape, w_shape, kwargs", PADDED_COPY_CASES + MANY_OUTPUT_CASES)
def test_conv2d_kernel_paths_match_the_exercise_path(x_shape, w_shape, kwargs, dtype):
    rng = np.random.default_rng(sum(x_shape))
    arrays = [rng.normal(size=x_shape).astype(dtype), rng.normal(size=w_shape).astype(dtype)]
    arrays.append(rng.normal(size=w_shape[:1]).astype(dtype))
    probe = minitorch.conv2d(*(minitorch.tensor(a) for a in arrays), **kwargs)
    if (x_shape, w_shape, kwargs) in PADDED_COPY_CASES:
        settings = (1, 1, *kwargs.get("dilation", (1, 1)), 0, 0)
        spatial = tuple(probe.shape[2:])
        reading = _reading(np.array(x_shape), w_shape[0], w_shape[2:], settings, spatial)
        assert reading[0], "the case should take the padded copy"
    upstream = rng.normal(size=tuple(probe.shape)).astype(dtype)
    needs = [True, True, True]
    tuned = run("fast", minitorch.conv2d, arrays, needs, upstream, **kwargs)
    exercise = run("student", minitorch.conv2d, arrays, needs, upstream, **kwargs)
    assert_same(tuned, exercise, "kernel vs exercise path", 1e-10 if dtype == np.float64 else 1e-4)
    # the input as a transposed view, and only the input's gradient
    swapped = [np.swapaxes(arrays[0], 2, 3)] + arrays[1:]
    sideways = run(
        "fast", lambda x, w, b: minitorch.conv2d(x.transpose(2, 3), w, b, **kwargs),
        swapped, [True, False, False], upstream,
    )  # fmt: skip
    np.testing.assert_allclose(sideways[0][0], tuned[0][0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(sideways[1][0], np.swapaxes(tuned[1][0], 2, 3), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("x_shape, w_shape, kwargs", PADDED_COPY_CASES + MANY_OUTPUT_CASES)
def test_conv2d_kernel_paths_match_torch(torch, x_shape, w_shape, kwargs):
    rng = np.random.default_rng(sum(w_shape))
    arrays = [rng.normal(size=x_shape), rng.normal(size=w_shape), rng.normal(size=w_shape[:1])]
    probe = torch.conv2d(*(torch.tensor(a) for a in arrays), **kwargs)
    upstream = rng.normal(size=tuple(probe.shape))
    needs = [True, True, True]
    expected = outputs_and_grads(torch, torch.conv2d, arrays, needs, upstream, **kwargs)
    assert_same(
        run("fast", minitorch.conv2d, arrays, needs, upstream, **kwargs), expected, "vs torch"
    )


@st.composite
def pool_cases(draw):
    """A random max pooling that torch accepts."""
    kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    reach = [d * (k - 1) + 1 for k, d in zip(kernel, dilation, strict=True)]
    size = [
        draw(st.integers(max(1, r - 2 * p), r + 5)) for r, p in zip(reach, padding, strict=True)
    ]
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), *size)
    kwargs = {"kernel_size": kernel, "stride": stride, "padding": padding, "dilation": dilation}
    return shape, {**kwargs, "ceil_mode": draw(st.booleans()), "return_indices": True}


def window_wholly_in_padding(shape, kwargs) -> bool:
    """Whether some window of the pooling lies wholly in the padding: torch 2.13's backward
    then writes out of bounds (the process can abort), so only its forward is compared."""
    for dim, length in enumerate(shape[2:]):
        k, s, p, d = (kwargs[key][dim] for key in ("kernel_size", "stride", "padding", "dilation"))
        span = length + 2 * p - d * (k - 1) - 1 + (s - 1 if kwargs["ceil_mode"] else 0)
        out = span // s + 1
        if kwargs["ceil_mode"] and (out - 1) * s >= length + p:
            out -= 1
        for i in range(out):
            taps = [i * s - p + j * d for j in range(k)]
            if all(t < 0 or t >= length for t in taps):
                return True
    return False


def pool_operands(case, seed):
    """The input of a `pool_cases` case (small integers: ties, the first maximum wins), the
    upstream gradient, and the keyword arguments."""
    shape, kwargs = case
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 3, size=shape).astype(np.float64)
    probe = F.max_pool2d(minitorch.tensor(x), **kwargs)[0]
    return x, rng.normal(size=tuple(probe.shape)), kwargs


# a window wholly in the padding whose PyTorch index names an element of the input
EMPTY_WINDOW = (
    (1, 1, 2, 1),
    {"kernel_size": (1, 2), "stride": (1, 1), "padding": (0, 1), "dilation": (1, 2),
     "ceil_mode": False, "return_indices": True},
)  # fmt: skip


@SETTINGS
@given(pool_cases(), st.integers(0, 2**32 - 1))
@example(EMPTY_WINDOW, 0)
def test_max_pool2d_kernel_matches_the_exercise_path(case, seed):
    x, upstream, kwargs = pool_operands(case, seed)
    tuned = run("fast", F.max_pool2d, [x], [True], upstream, **kwargs)
    exercise = run("simple", F.max_pool2d, [x], [True], upstream, **kwargs)
    # values, indices and the input's gradient: a window wholly in the padding has the value
    # -inf and the index torch names, past the input, and passes no gradient on
    assert_same(tuned, exercise, "kernel vs exercise path")


@SETTINGS
@given(pool_cases(), st.integers(0, 2**32 - 1))
def test_max_pool2d_kernel_matches_torch(torch, case, seed):
    x, upstream, kwargs = pool_operands(case, seed)
    tuned = run("fast", F.max_pool2d, [x], [True], upstream, **kwargs)
    if window_wholly_in_padding(x.shape, kwargs):
        values, indices = torch.nn.functional.max_pool2d(torch.tensor(x), **kwargs)
        assert_same(tuned[:1] + ([],), ([values.numpy(), indices.numpy()], []), "forward vs torch")
        return
    expected = outputs_and_grads(
        torch, torch.nn.functional.max_pool2d, [x], [True], upstream, **kwargs
    )
    assert_same(tuned, expected, "kernel vs torch")


# 2 x 2 windows wholly inside the input take a loop of their own (`_max_pool_2x2`); with
# ceil_mode a last window can stick out, and the plane takes the general loop.
PAIR_POOLS = [
    ((2, 3, 8, 8), {"kernel_size": 2}),
    ((1, 2, 7, 9), {"kernel_size": 2, "stride": 1}),
    ((2, 1, 6, 7), {"kernel_size": 2, "stride": (1, 2), "ceil_mode": True}),
    ((1, 2, 5, 5), {"kernel_size": 2, "ceil_mode": True}),
]


def pair_pool_operands(shape, kwargs):
    """Small integers (ties: the first maximum wins) and an upstream gradient for a case."""
    rng = np.random.default_rng(sum(shape))
    x = rng.integers(-3, 3, size=shape).astype(np.float64)
    probe = F.max_pool2d(minitorch.tensor(x), **kwargs)
    return x, rng.normal(size=tuple(probe.shape)), {**kwargs, "return_indices": True}


@pytest.mark.parametrize("shape, kwargs", PAIR_POOLS)
def test_two_by_two_max_pools_match_the_exercise_path(shape, kwargs):
    x, upstream, kwargs = pair_pool_operands(shape, kwargs)
    tuned = run("fast", F.max_pool2d, [x], [True], upstream, **kwargs)
    assert_same(tuned, run("student", F.max_pool2d, [x], [True], upstream, **kwargs), "2 x 2")
    sideways = run(
        "fast", lambda t: F.max_pool2d(t.transpose(2, 3), **kwargs),
        [np.swapaxes(x, 2, 3)], [True], upstream,
    )  # fmt: skip
    assert_same(sideways[:1] + ([],), (tuned[0], []), "2 x 2 of a transposed view")


@pytest.mark.parametrize("shape, kwargs", PAIR_POOLS)
def test_two_by_two_max_pools_match_torch(torch, shape, kwargs):
    x, upstream, kwargs = pair_pool_operands(shape, kwargs)
    expected = outputs_and_grads(
        torch, torch.nn.functional.max_pool2d, [x], [True], upstream, **kwargs
    )
    assert_same(run("fast", F.max_pool2d, [x], [True], upstream, **kwargs), expected, "vs torch")


def test_max_pool_kernel_handles_nan_and_minus_infinity_as_torch(torch):
    nan, inf = float("nan"), float("inf")
    cases = [
        (np.array([[[[1.0, nan], [3.0, nan]]]]), {"kernel_size": 2}),  # the last NaN wins
        (np.full((1, 1, 2, 2), -inf), {"kernel_size": 2, "padding": 1}),  # never the padding
    ]
    for x, kwargs in cases:
        values, indices = F.max_pool2d(minitorch.tensor(x), return_indices=True, **kwargs)
        t_values, t_indices = torch.nn.functional.max_pool2d(
            torch.tensor(x), return_indices=True, **kwargs
        )
        np.testing.assert_array_equal(values.numpy(), t_values.numpy())
        assert indices.tolist() == t_indices.tolist()


def test_only_the_default_backend_on_floats_takes_the_kernels():
    assert window_kernels(minitorch.ones(1, dtype=minitorch.float32)) is not None
    assert window_kernels(minitorch.ones(1, dtype=minitorch.int64)) is None
    for name in ("simple", "student"):
        previous = minitorch.get_backend().name
        minitorch.set_backend(name)
        try:
            assert window_kernels(minitorch.ones(1)) is None
        finally:
            minitorch.set_backend(previous)


@pytest.mark.parametrize("backend", ["fast", "simple"])
def test_a_window_wholly_in_the_padding_names_the_position_torch_names(backend):
    """Its value is -inf, its index the first tap at or after the input's start (1: past the
    input, as torch 2.13 names it), and no gradient comes back from it."""
    kwargs = {"kernel_size": (1, 2), "padding": (0, 1), "dilation": (1, 2), "ceil_mode": True}
    (values, indices), (grad,) = run(
        backend,
        F.max_pool2d,
        [np.array([[[[5.0]]]])],
        [True],
        np.array([[[[3.0]]]]),
        return_indices=True,
        **kwargs,
    )
    assert values.tolist() == [[[[-np.inf]]]] and indices.tolist() == [[[[1]]]]
    assert grad.tolist() == [[[[0.0]]]]


@pytest.mark.parametrize(
    "x_shape, w_shape, kwargs",
    [((3, 2, 6, 5), (4, 2, 3, 3), {"padding": 1}), ((1, 3, 7, 7), (33, 3, 3, 3), {"stride": 2})],
)
def test_parallel_window_builds_match_the_exercise_path(monkeypatch, x_shape, w_shape, kwargs):
    """With the threshold at 0 every window kernel runs its parallel build (batches of 3 and
    1 over the threads: uneven and empty shares), with the exercise path's numbers."""
    from minitorch.backends.fast.windows import KERNELS

    monkeypatch.setattr(minitorch.get_backend("cpu"), "window_parallel_threshold", 0)
    rng = np.random.default_rng(sum(w_shape))
    arrays = [rng.normal(size=x_shape), rng.normal(size=w_shape), rng.normal(size=w_shape[:1])]
    probe = minitorch.conv2d(*(minitorch.tensor(a) for a in arrays), **kwargs)
    upstream = rng.normal(size=tuple(probe.shape))
    tuned = run("fast", minitorch.conv2d, arrays, [True] * 3, upstream, **kwargs)
    exercise = run("student", minitorch.conv2d, arrays, [True] * 3, upstream, **kwargs)
    assert_same(tuned, exercise, "parallel conv2d vs exercise path")
    pooled = F.max_pool2d(minitorch.tensor(arrays[0]), kernel_size=3, stride=2, padding=1)
    pool_upstream = rng.normal(size=tuple(pooled.shape))
    pool_args = ([arrays[0]], [True], pool_upstream)
    tuned = run("fast", F.max_pool2d, *pool_args, kernel_size=3, stride=2, padding=1)
    exercise = run("student", F.max_pool2d, *pool_args, kernel_size=3, stride=2, padding=1)
    assert_same(tuned, exercise, "parallel max_pool2d vs exercise path")
    for name in ("_conv2d_forward", "_conv2d_backward", "_max_pool2d", "_max_pool2d_backward"):
        assert KERNELS[name][1].signatures, f"the parallel {name} did not run"
