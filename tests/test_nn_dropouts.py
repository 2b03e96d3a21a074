"""The dropouts: `minitorch.dropout`/`feature_dropout`/`alpha_dropout`/`feature_alpha_dropout`
(and their in-place forms), `nn.functional.dropout1d/2d/3d`, `alpha_dropout`,
`feature_alpha_dropout` and their layers.

What does not draw (eval mode, p = 0 and p = 1), the errors and the warnings are torch's,
recorded in tests/data/test_nn_dropouts.json (scripts/record_torch_answers.py). What draws is
checked for its structure (whole channels dropped, the scale $1/(1-p)$, alpha dropout's two
values), its statistics and its gradient, and for drawing the same again from the same seed;
minitorch's generator is not torch's, so the draws themselves are not compared.
"""

import math
import warnings

import numpy as np
import pytest
from comparisons import ComparedCases
from helpers import floats, statistical_draws

import minitorch
import minitorch.nn.functional as F

SELU_SATURATION = 1.7580993408473766


def channels(lib, x):
    return x.reshape(2, 3, 4, 5)


FIXED = {
    "F.dropout1d eval": lambda lib, x: lib.nn.functional.dropout1d(x[0], 0.5, False),
    "F.dropout2d p=1": lambda lib, x: lib.nn.functional.dropout2d(channels(lib, x), 1.0),
    "F.dropout3d p=0": lambda lib, x: lib.nn.functional.dropout3d(channels(lib, x), 0.0),
    "F.alpha_dropout default": lambda lib, x: lib.nn.functional.alpha_dropout(x, 0.3),
    "F.alpha_dropout p=1": lambda lib, x: lib.nn.functional.alpha_dropout(x, 1.0, True),
    "F.feature_alpha_dropout default": lambda lib, x: lib.nn.functional.feature_alpha_dropout(
        x, 0.3),
    "F.feature_alpha_dropout p=1": lambda lib, x: lib.nn.functional.feature_alpha_dropout(
        x, 1.0, True),
    "torch.dropout eval": lambda lib, x: lib.dropout(x, 0.5, False),
    "torch.dropout p=1": lambda lib, x: lib.dropout(x, 1.0, True),
    "torch.feature_dropout p=1": lambda lib, x: lib.feature_dropout(x, 1.0, True),
    "torch.alpha_dropout p=1": lambda lib, x: lib.alpha_dropout(x, 1.0, True),
    "torch.feature_alpha_dropout eval": lambda lib, x: lib.feature_alpha_dropout(x, 0.4, False),
    "torch.dropout_ p=1": lambda lib, x: lib.dropout_(x * 1, 1.0, True),
    "torch.alpha_dropout_ p=0": lambda lib, x: lib.alpha_dropout_(x * 1, 0.0, True),
    "Dropout1d eval": lambda lib, x: lib.nn.Dropout1d(0.3).eval()(x[0]),
    "Dropout2d p=1": lambda lib, x: lib.nn.Dropout2d(1.0)(channels(lib, x)),
    "AlphaDropout p=1": lambda lib, x: lib.nn.AlphaDropout(1.0)(x),
    "FeatureAlphaDropout eval": lambda lib, x: lib.nn.FeatureAlphaDropout(0.5).eval()(x),
}  # fmt: skip
CASES = {
    key: (fn, [floats((2, 3, 20), k)], {"permuted": True})
    for k, (key, fn) in enumerate(FIXED.items())
}
CASES["feature_dropout of 1-D eval"] = (
    lambda lib, x: lib.feature_dropout(x, 0.5, False),
    [floats(3, 30)],
    {},
)
for name, args in [
    ("Dropout1d", (0.3,)),
    ("Dropout2d", ()),
    ("Dropout3d", (0.1, True)),
    ("AlphaDropout", ()),
    ("FeatureAlphaDropout", (0.2, True)),
]:
    CASES[f"repr {name} {args}"] = (
        lambda lib, name=name, args=args: repr(getattr(lib.nn, name)(*args)),
        [],
        {},
    )


def warned(fn):
    """The warnings `fn(lib)` gives, as text."""

    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(lib)
        return [str(w.message) for w in caught]

    return run


ERRORS = {
    "F.dropout1d p 1.5": lambda lib: lib.nn.functional.dropout1d(lib.ones(2, 3), 1.5),
    "F.dropout p nan": lambda lib: lib.nn.functional.dropout(lib.ones(2, 3), float("nan")),
    "F.alpha_dropout p -0.5": lambda lib: lib.nn.functional.alpha_dropout(lib.ones(2, 3), -0.5),
    "F.feature_alpha_dropout p 2": lambda lib: lib.nn.functional.feature_alpha_dropout(
        lib.ones(2, 3), 2.0),
    "torch.dropout p 1.5": lambda lib: lib.dropout(lib.ones(2, 3), 1.5, True),
    "torch.alpha_dropout p -1": lambda lib: lib.alpha_dropout(lib.ones(2, 3), -1, True),
    "feature of 1-D": lambda lib: lib.feature_dropout(lib.ones(3), 0.5, True),
    "feature alpha of 1-D": lambda lib: lib.feature_alpha_dropout(lib.ones(3), 0.5, True),
    "dropout1d of 1-D": lambda lib: lib.nn.functional.dropout1d(lib.ones(3)),
    "dropout1d of 4-D": lambda lib: lib.nn.Dropout1d()(lib.ones(2, 3, 4, 5)),
    "dropout_ of a leaf": lambda lib: lib.dropout_(lib.ones(3, requires_grad=True), 0.5, True),
    "Dropout2d p 1.5": lambda lib: lib.nn.Dropout2d(1.5),
    "AlphaDropout p -1": lambda lib: lib.nn.AlphaDropout(-1.0),
    "dropout2d of 2-D warns": warned(lambda lib: lib.nn.functional.dropout2d(lib.ones(3, 4))),
    "dropout2d of 3-D warns": warned(lambda lib: lib.nn.functional.dropout2d(lib.ones(2, 3, 4))),
    "dropout3d of 3-D warns": warned(lambda lib: lib.nn.functional.dropout3d(lib.ones(2, 3, 4))),
}  # fmt: skip
RECORDED = ComparedCases(__file__, CASES, ERRORS)
torch_answers = RECORDED.torch_answers


@pytest.mark.parametrize("key", sorted(CASES) + sorted(ERRORS))
def test_dropouts_like_torch(key):
    """Values, dtypes, node names and gradients (or the error, or the warnings) as torch's."""
    (RECORDED.check if key in CASES else RECORDED.check_error)(key)


CHANNEL_DROPOUTS = {
    "dropout1d": (lambda x, p: F.dropout1d(x, p), (40, 50, 7)),
    "dropout1d unbatched": (lambda x, p: F.dropout1d(x, p), (300, 7)),
    "dropout2d": (lambda x, p: F.dropout2d(x, p), (30, 40, 3, 2)),
    "dropout3d": (lambda x, p: F.dropout3d(x, p), (20, 30, 2, 2, 2)),
    "dropout3d unbatched": (lambda x, p: F.dropout3d(x, p), (300, 2, 1, 3)),
    "feature_dropout": (lambda x, p: minitorch.feature_dropout(x, p, True), (30, 40, 5)),
    "Dropout2d": (lambda x, p: minitorch.nn.Dropout2d(p)(x), (30, 40, 3, 3)),
}


@pytest.mark.parametrize("name", sorted(CHANNEL_DROPOUTS))
def test_channel_dropouts_drop_whole_channels(name):
    fn, shape = CHANNEL_DROPOUTS[name]
    p = 0.3
    x = minitorch.tensor(floats(shape, 1, 0.5, 2.0))
    minitorch.manual_seed(4)
    y = fn(x, p)
    batch = 1 if name.endswith("unbatched") else 2
    planes = (y / x).reshape(*shape[:batch], -1).numpy()
    # each channel is all zeros or all scaled by 1 / (1 - p)
    first = planes[..., :1]
    np.testing.assert_allclose(planes, np.broadcast_to(first, planes.shape), rtol=1e-12)
    assert set(np.round(first.ravel(), 10)) <= {0.0, round(1 / (1 - p), 10)}
    dropped = (first == 0).mean()
    count = first.size
    assert abs(dropped - p) < 4 * math.sqrt(p * (1 - p) / count)


def test_dropout_keeps_the_mean_and_scales_what_it_keeps():
    p = 0.4
    shape = (statistical_draws(200), 300)
    x = minitorch.full(shape, 2.0, dtype=minitorch.float64, requires_grad=True)
    minitorch.manual_seed(1)
    y = minitorch.dropout(x, p, True)
    values = y.detach().numpy()
    assert set(np.unique(values).round(10)) == {0.0, round(2.0 / (1 - p), 10)}
    assert abs(values.mean() - 2.0) < 4 * 2.0 / (1 - p) * math.sqrt(p * (1 - p) / values.size)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (values != 0) / (1 - p), rtol=1e-6)


@pytest.mark.parametrize("feature", [False, True])
def test_alpha_dropout_keeps_zero_mean_and_unit_variance(feature):
    """Mean 0, variance 1 and the rate p of dropped elements, each within 4 standard errors of
    the draws' (`statistical_draws`); each element is dropped or kept as the formula says."""
    p = 0.2
    rows = statistical_draws(400)
    shape = (rows, 500) if not feature else (rows, 500, 1)
    x = minitorch.tensor(np.random.default_rng(2).standard_normal(shape), requires_grad=True)
    minitorch.manual_seed(3)
    fn = minitorch.feature_alpha_dropout if feature else minitorch.alpha_dropout
    y = fn(x, p, True)
    values, inputs = y.detach().numpy(), x.detach().numpy()
    count, variance = values.size, values.var()
    assert abs(values.mean()) < 4 * math.sqrt(variance / count)
    # the standard error of a variance, from the fourth central moment
    fourth = np.mean((values - values.mean()) ** 4)
    assert abs(variance - 1.0) < 4 * math.sqrt((fourth - variance**2) / count)
    # kept: a x + a alpha' p; dropped: -a alpha' (1 - p)
    a = 1 / math.sqrt((SELU_SATURATION**2 * p + 1) * (1 - p))
    kept = np.isclose(values, a * inputs + a * SELU_SATURATION * p, rtol=1e-12, atol=1e-12)
    dropped = np.isclose(values, -a * SELU_SATURATION * (1 - p), rtol=1e-12)
    assert (kept | dropped).all()
    assert abs(dropped.mean() - p) < 4 * math.sqrt(p * (1 - p) / count)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), kept * a, rtol=1e-12)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.dropout1d(x, 0.5),
        lambda x: F.dropout2d(x.unsqueeze(-1), 0.5),
        lambda x: F.alpha_dropout(x, 0.5, True),
        lambda x: F.feature_alpha_dropout(x, 0.5, True),
        lambda x: minitorch.dropout(x, 0.5, True),
    ],
)
def test_the_same_seed_draws_the_same(fn):
    x = minitorch.tensor(floats((4, 5, 6), 5))
    runs = []
    for _ in range(2):
        minitorch.manual_seed(11)
        runs.append(fn(x).tolist())
    assert runs[0] == runs[1]
    assert fn(x).tolist() != runs[0]


def test_in_place_forms_write_into_their_input():
    x = minitorch.ones(30, 40)
    minitorch.manual_seed(2)
    assert minitorch.dropout_(x, 0.5, True) is x
    assert set(np.unique(x.numpy())) == {0.0, 2.0}
    y = minitorch.ones(10, 20, 3)
    assert F.dropout1d(y, 0.5, inplace=True) is y
    z = minitorch.ones(20, 3)
    assert F.dropout1d(z, 0.5, inplace=True) is z and tuple(z.shape) == (20, 3)
    w = minitorch.ones(30, 40)
    assert minitorch.feature_alpha_dropout_(w, 0.5, True) is w


def test_eval_mode_returns_the_input_itself():
    x = minitorch.ones(2, 3, 4, 1)
    assert F.dropout2d(x, 0.5, training=False) is x
    assert minitorch.nn.AlphaDropout(0.5).eval()(x) is x
    assert minitorch.alpha_dropout(x, 0.5, False) is x
