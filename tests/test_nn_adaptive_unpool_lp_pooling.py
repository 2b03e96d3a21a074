"""Adaptive and fractional max pooling, max unpooling, power-average pooling and the
`_with_indices` names, against PyTorch and by hand.

Values, indices, dtypes, node names and gradients (float64 and float32, odd shapes,
non-contiguous inputs) and the errors are torch's, recorded in
tests/data/test_nn_adaptive_unpool_lp_pooling.json (scripts/record_torch_answers.py);
gradients pass central differences. Fractional pooling gets its `_random_samples` from the
case, so both libraries pool the same windows.
"""

import numpy as np
import pytest
from comparisons import ComparedCases
from helpers import floats

import minitorch
import minitorch.nn.functional as F

SAMPLES = np.random.default_rng(3).uniform(size=(2, 3, 2))


def fractional(kernel, size=None, ratio=None, batch=True):
    """Fractional max pooling with indices, of the recorded samples."""

    def fn(lib, x):
        samples = lib.tensor(SAMPLES[: 2 if batch else 1].tolist(), dtype=x.dtype)
        return lib.nn.functional.fractional_max_pool2d(
            x, kernel, size, ratio, return_indices=True, _random_samples=samples
        )

    return fn


def unpool2d(lib, x):
    values, indices = lib.nn.functional.max_pool2d(x, 2, return_indices=True)
    return lib.nn.functional.max_unpool2d(values, indices, 2, output_size=(7, 6))


def unpool1d(lib, x):
    values, indices = lib.nn.functional.max_pool1d(x, 3, 2, 1, return_indices=True)
    return lib.nn.MaxUnpool1d(3, 2, 1)(values, indices, output_size=[2, 7, 6])


POOLS = {
    "adaptive_max_pool2d (3, 4)": lambda lib, x: lib.nn.functional.adaptive_max_pool2d(
        x, (3, 4), True),
    "adaptive_max_pool2d (5, None)": lambda lib, x: lib.nn.functional.adaptive_max_pool2d(
        x, (5, None), return_indices=True),
    "adaptive_max_pool2d larger": lambda lib, x: lib.nn.functional.adaptive_max_pool2d_with_indices(
        x, (9, 13)),
    "adaptive_max_pool2d unbatched": lambda lib, x: lib.nn.functional.adaptive_max_pool2d(
        x[0], 4),
    "AdaptiveMaxPool2d": lambda lib, x: lib.nn.AdaptiveMaxPool2d((2, 5), True)(x),
    "adaptive_max_pool1d": lambda lib, x: lib.nn.functional.adaptive_max_pool1d(x[0], 4, True),
    "adaptive_max_pool1d_with_indices": (
        lambda lib, x: lib.nn.functional.adaptive_max_pool1d_with_indices(x[:, 1], (5,))),
    "torch.adaptive_max_pool1d": lambda lib, x: lib.adaptive_max_pool1d(x[1, 0], 3),
    "AdaptiveMaxPool1d": lambda lib, x: lib.nn.AdaptiveMaxPool1d(4)(x[0]),
    "AdaptiveAvgPool1d": lambda lib, x: lib.nn.AdaptiveAvgPool1d(4)(x[0]),
    "max_pool2d_with_indices": lambda lib, x: lib.nn.functional.max_pool2d_with_indices(
        x, 3, 2, 1),
    "max_pool1d_with_indices": lambda lib, x: lib.nn.functional.max_pool1d_with_indices(
        x[0], 2, ceil_mode=True),
    "torch.max_pool1d_with_indices": lambda lib, x: lib.max_pool1d_with_indices(x[1], 3, 2),
    "max_unpool2d": unpool2d,
    "MaxUnpool2d unbatched": lambda lib, x: lib.nn.MaxUnpool2d(3, 2)(
        *lib.nn.functional.max_pool2d(x[0], 3, 2, return_indices=True), output_size=(7, 6)),
    "max_unpool1d": lambda lib, x: unpool1d(lib, x[0, :2]),
    "lp_pool2d": lambda lib, x: lib.nn.functional.lp_pool2d(x, 2, 3, 2, True),
    "LPPool2d of positives": lambda lib, x: lib.nn.LPPool2d(3.0, (2, 3))(x.abs() + 0.1),
    "lp_pool2d inf": lambda lib, x: lib.nn.functional.lp_pool2d(x, float("inf"), 2),
    "lp_pool1d -inf": lambda lib, x: lib.nn.functional.lp_pool1d(x[0], -float("inf"), 2),
    "lp_pool1d 1.5 of positives": lambda lib, x: lib.nn.LPPool1d(1.5, 2)(x[0].abs() + 0.1),
    "lp_pool1d 2": lambda lib, x: lib.nn.functional.lp_pool1d(x[0], 2, 3, 2),
    "fractional 2 (3, 4)": fractional(2, (3, 4)),
    "fractional (3, 2) (5, 5)": fractional((3, 2), (5, 5)),
    "fractional (3, 2) to (1, 2)": fractional((3, 2), (1, 2)),
    "fractional ratio unbatched": lambda lib, x: fractional(2, None, (0.5, 0.7), False)(lib, x[0]),
    "fractional_max_pool2d_with_indices": lambda lib, x: (
        lib.nn.functional.fractional_max_pool2d_with_indices(
            x, 2, 4, _random_samples=lib.tensor(SAMPLES.tolist(), dtype=x.dtype))),
    "FractionalMaxPool2d": lambda lib, x: lib.nn.FractionalMaxPool2d(
        3, output_ratio=0.5, _random_samples=lib.tensor(SAMPLES.tolist(), dtype=x.dtype))(x),
}  # fmt: skip
CASES = {}
for name, fn in POOLS.items():
    for dtype in ("float64", "float32"):
        # overlapping windows pick one element twice: unpooling writes it once but, as
        # PyTorch's, reads its gradient back twice, which central differences do not see
        overlapping = name in ("MaxUnpool2d unbatched", "max_unpool1d")
        options = {"permuted": True, "central": dtype == "float64" and not overlapping}
        CASES[f"{name} {dtype}"] = (fn, [floats((2, 3, 7, 6), len(CASES)).astype(dtype)], options)
CASES["adaptive_max_pool2d to nothing"] = (
    lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, (0, 4), True),
    [floats((2, 3, 7, 6), 1)],
    {"grad": False},
)
CASES["adaptive_max_pool2d empty batch"] = (
    lambda lib: lib.nn.functional.adaptive_max_pool2d(lib.zeros(0, 2, 3, 3), 3),
    [],
    {},
)
CASES["fractional empty batch"] = (
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.zeros(0, 2, 5, 5), 2, 3),
    [],
    {},
)
CASES["fractional to nothing"] = (fractional(2, (0, 1)), [floats((2, 3, 7, 6), 2)], {"grad": False})
for name, args in [
    ("AdaptiveMaxPool2d", ((3, None),)),
    ("AdaptiveMaxPool1d", (3, True)),
    ("AdaptiveAvgPool1d", (3,)),
    ("MaxUnpool2d", (2,)),
    ("MaxUnpool2d", ((2, 3), 1, (1, 0))),
    ("MaxUnpool1d", (3, 2, 1)),
    ("LPPool2d", (2, 3)),
    ("LPPool1d", (1.5, 3, 2, True)),
]:
    CASES[f"repr {name} {args}"] = (
        lambda lib, name=name, args=args: repr(getattr(lib.nn, name)(*args)),
        [],
        {},
    )


def zeros(lib, *shape, dtype="float32"):
    return lib.zeros(*shape, dtype=getattr(lib, dtype))


def pooled(lib, shape=(2, 3, 7, 6)):
    return lib.nn.functional.max_pool2d(zeros(lib, *shape), 2, return_indices=True)


def one_bad(lib, value, dims=2):
    """Max pooling's values and indices of zeros (2, 3, 7, 6) (2-D) or (2, 3, 6) (1-D), one
    index set to `value` (PyTorch names an invalid index, but which, of several, varies)."""
    pool = lib.nn.functional.max_pool2d if dims == 2 else lib.nn.functional.max_pool1d
    values, indices = pool(zeros(lib, *(2, 3, 7, 6)[: dims + 2]), 2, return_indices=True)
    indices = indices.clone()
    indices[(1,) * indices.ndim] = value
    return values, indices


def samples(lib, *shape, dtype="float32"):
    return lib.full(shape, 0.5, dtype=getattr(lib, dtype))


def called(name, inputs, *args, **kwargs):
    """A function of lib calling `nn.functional.<name>` of `inputs(lib)` (a shape of zeros, or
    a function of lib giving a tuple of tensors) and `args`; a keyword that is a function is
    called with lib."""

    def fn(lib):
        given = (zeros(lib, *inputs),) if isinstance(inputs, tuple) else inputs(lib)
        options = {k: v(lib) if callable(v) else v for k, v in kwargs.items()}
        return getattr(lib.nn.functional, name)(*given, *args, **options)

    return fn


def draws(*shape, dtype="float32"):
    return lambda lib: samples(lib, *shape, dtype=dtype)


def changed(how):
    """Max pooling's values and indices, changed by `how(values, indices)`."""
    return lambda lib: how(*pooled(lib))


X = (2, 3, 7, 6)
ERRORS = {
    "adaptive 2-D input": called("adaptive_max_pool2d", (7, 6), (3, 4)),
    "adaptive 2-D input int size": called("adaptive_max_pool2d", (7, 6), 3),
    "adaptive 5-D input": called("adaptive_max_pool2d", (1, 2, 3, 4, 5), 3),
    "adaptive empty plane": called("adaptive_max_pool2d", (2, 0, 3, 3), 3),
    "adaptive of integers": called(
        "adaptive_max_pool2d", lambda lib: (zeros(lib, 3, 3, 3).long(),), 2
    ),
    "adaptive three sizes": called("adaptive_max_pool2d", (2, 3, 3, 3), (1, 2, 3)),
    "adaptive negative size": called("adaptive_max_pool2d", (2, 3, 3, 3), -1),
    "adaptive 1-d of 4-D": called("adaptive_max_pool1d", (2, 3, 3, 3), 2),
    "adaptive 1-d two sizes": called("adaptive_max_pool1d", (2, 3), (3, 4)),
    "unpool output_size out of range": called("max_unpool2d", pooled, 2, output_size=(8, 6)),
    "unpool output_size length": called("max_unpool2d", pooled, 2, output_size=(7,)),
    "unpool index too large": called("max_unpool2d", lambda lib: one_bad(lib, 36), 2),
    "unpool negative index": called("max_unpool2d", lambda lib: one_bad(lib, -3), 2),
    "unpool int32 indices": called("max_unpool2d", changed(lambda v, i: (v, i.int())), 2),
    "unpool float indices": called("max_unpool2d", changed(lambda v, i: (v, i.float())), 2),
    "unpool shapes differ": called("max_unpool2d", changed(lambda v, i: (v, i[:1])), 2),
    "unpool 2-D input": called("max_unpool2d", changed(lambda v, i: (v[0, 0], i[0, 0])), 2),
    "unpool of integers": called("max_unpool2d", changed(lambda v, i: (v.long(), i)), 2),
    "unpool1d index too large": called("max_unpool1d", lambda lib: one_bad(lib, 9, 1), 2),
    "unpool1d int output_size": called(
        "max_unpool1d", changed(lambda v, i: (v[0], i[0])), 2, output_size=7
    ),
    "unpool1d of 4-D": called("max_unpool1d", pooled, 2, output_size=[7]),
    "fractional no size": called("fractional_max_pool2d", X, 2),
    "fractional ratio a number": called("fractional_max_pool2d", X, 2, output_ratio=0.5),
    "fractional three ratios": called("fractional_max_pool2d", X, 2, output_ratio=(0.5,) * 3),
    "fractional too tall": called(
        "fractional_max_pool2d", X, 2, (7, 5), _random_samples=draws(2, 3, 2)
    ),
    "fractional too wide": called(
        "fractional_max_pool2d", X, 2, (6, 6), _random_samples=draws(2, 3, 2)
    ),
    "fractional samples batch": called(
        "fractional_max_pool2d", X, 2, 3, _random_samples=draws(1, 3, 2)
    ),
    "fractional samples channels": called(
        "fractional_max_pool2d", X, 2, 3, _random_samples=draws(2, 2, 2)
    ),
    "fractional samples last": called(
        "fractional_max_pool2d", X, 2, 3, _random_samples=draws(2, 3, 3)
    ),
    "fractional samples 4-D": called(
        "fractional_max_pool2d", X, 2, 3, _random_samples=draws(2, 3, 2, 1)
    ),
    "fractional samples dtype": called(
        "fractional_max_pool2d", X, 2, 3, _random_samples=draws(2, 3, 2, dtype="float64")
    ),
    "fractional empty plane": called(
        "fractional_max_pool2d", (2, 3, 0, 6), 2, 3, _random_samples=draws(2, 3, 2)
    ),
    "fractional 5-D": called(
        "fractional_max_pool2d", (2, 3, 4, 5, 6), 2, 3, _random_samples=draws(2, 4, 2)
    ),
    "fractional three kernel sizes": called("fractional_max_pool2d", X, (2, 2, 2), 3),
    "fractional three output sizes": called("fractional_max_pool2d", X, 2, (2, 2, 2)),
    "FractionalMaxPool2d no size": lambda lib: lib.nn.FractionalMaxPool2d(2),
    "FractionalMaxPool2d ratio 1.5": lambda lib: lib.nn.FractionalMaxPool2d(2, output_ratio=1.5),
    "FractionalMaxPool2d both": lambda lib: lib.nn.FractionalMaxPool2d(2, 2, 0.5),
}
RECORDED = ComparedCases(__file__, CASES, ERRORS)
torch_answers = RECORDED.torch_answers


@pytest.mark.parametrize("key", sorted(CASES) + sorted(ERRORS))
def test_adaptive_unpool_lp_pooling_like_torch(key):
    """Values, indices, dtypes, node names and gradients (or the error) as torch gave them."""
    (RECORDED.check if key in CASES else RECORDED.check_error)(key)


def test_adaptive_max_pool_windows_by_hand():
    # length 5 to 3: windows [0, 2), [1, 4), [3, 5); the first maximum wins a tie
    x = minitorch.tensor([[[3.0, 1.0, 3.0, 0.0, 2.0]]], requires_grad=True)
    values, indices = F.adaptive_max_pool1d(x, 3, return_indices=True)
    assert values.tolist() == [[[3.0, 3.0, 2.0]]] and indices.tolist() == [[[0, 2, 4]]]
    values.sum().backward()
    assert x.grad.tolist() == [[[1.0, 0.0, 1.0, 0.0, 1.0]]]


def test_fractional_windows_by_hand():
    # size 7, k 2, 3 outputs, u = 0.5: alpha = 5 / 2, starts floor(1.25) - 1 = 0,
    # floor(3.75) - 1 = 2 and 7 - 2 = 5
    x = minitorch.arange(7.0).view(1, 1, 1, 7)
    u = minitorch.tensor([[[0.5, 0.0]]])
    _, indices = F.fractional_max_pool2d(x, (1, 2), (1, 3), return_indices=True, _random_samples=u)
    assert indices.tolist() == [[[[1, 3, 6]]]]


def test_fractional_draws_from_the_seeded_generator():
    x = minitorch.randn(2, 3, 9, 9)
    runs = []
    for _ in range(2):
        minitorch.manual_seed(7)
        runs.append(F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5)).tolist())
    assert runs[0] == runs[1]
    layer = minitorch.nn.FractionalMaxPool2d(2, output_size=4)
    assert tuple(layer(x).shape) == (2, 3, 4, 4)


def test_unpool_puts_back_what_pool_kept():
    x = minitorch.tensor(floats((2, 3, 6, 6), 4, 0.5, 2.0))
    values, indices = F.max_pool2d(x, 2, return_indices=True)
    restored = F.max_unpool2d(values, indices, 2)
    kept = restored != 0
    assert (restored[kept] == x[kept]).all()
    assert int(kept.sum()) == values.numel()
    assert F.max_pool2d(restored, 2).tolist() == values.tolist()
