"""minitorch.nn.init against torch.nn.init's documented formulas: gains and fans exactly,
distributions by their statistics (bounds, mean, std), in place, under no_grad, returning the
tensor; against torch live, where it is installed, the gains, fans and error texts."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.nn import init

# (nonlinearity, param, gain) as torch.nn.init.calculate_gain documents them: leaky_relu's
# sqrt(2 / (1 + slope^2)) with slope 0.01 by default
GAINS = [
    ("linear", None, 1.0),
    ("conv2d", None, 1.0),
    ("sigmoid", None, 1.0),
    ("tanh", None, 5.0 / 3),
    ("relu", None, math.sqrt(2.0)),
    ("leaky_relu", None, math.sqrt(2.0 / (1 + 0.01**2))),
    ("leaky_relu", 0.2, math.sqrt(2.0 / (1 + 0.2**2))),
    ("leaky_relu", 3, math.sqrt(2.0 / (1 + 3**2))),
    ("selu", None, 3.0 / 4),
]


def fans(shape) -> tuple[int, int]:
    """(fan_in, fan_out): input and output feature maps, times the receptive field."""
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


@pytest.mark.parametrize(("nonlinearity", "param", "gain"), GAINS)
def test_calculate_gain_is_the_documented_one(nonlinearity, param, gain):
    assert init.calculate_gain(nonlinearity, param) == pytest.approx(gain, rel=1e-15)


@pytest.mark.parametrize(("nonlinearity", "param"), [case[:2] for case in GAINS])
def test_calculate_gain_is_torchs(torch, nonlinearity, param):
    assert init.calculate_gain(nonlinearity, param) == torch.nn.init.calculate_gain(
        nonlinearity, param
    )


@pytest.mark.parametrize(
    ("args", "error"), [(("leaky_relu", True), ValueError), (("x",), ValueError)]
)
def test_calculate_gain_errors_are_torchs(torch, args, error):
    with pytest.raises(error) as ours:
        init.calculate_gain(*args)
    with pytest.raises(error) as theirs:
        torch.nn.init.calculate_gain(*args)
    assert str(ours.value) == str(theirs.value)


FAN_SHAPES = [(3, 4), (5, 2, 3, 3), (2, 3, 4)]


@pytest.mark.parametrize("shape", FAN_SHAPES)
def test_fans_are_feature_maps_times_the_receptive_field(shape):
    assert init._calculate_fan_in_and_fan_out(minitorch.empty(*shape)) == fans(shape)


@pytest.mark.parametrize("shape", FAN_SHAPES)
def test_fans_are_torchs(torch, shape):
    ours = init._calculate_fan_in_and_fan_out(minitorch.empty(*shape))
    assert ours == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))


def test_fan_of_a_vector_is_an_error():
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(minitorch.empty(3))


def test_a_bad_mode_is_an_error_as_in_torch(torch):
    with pytest.raises(ValueError) as ours:
        init.kaiming_uniform_(minitorch.empty(2, 2), mode="fan_x")
    with pytest.raises(ValueError) as theirs:
        torch.nn.init.kaiming_uniform_(torch.empty(2, 2), mode="fan_x")
    assert str(ours.value) == str(theirs.value)


def uniform_bound_and_std(name, shape, **kwargs):
    """The bound and std PyTorch's documented formula gives for `init.<name>` on `shape`:
    $gain \\sqrt{2 / (fan_{in} + fan_{out})}$ (xavier), $gain / \\sqrt{fan}$ (kaiming, with
    leaky_relu's gain of slope `a`)."""
    fan_in, fan_out = fans(shape)
    if name.startswith("xavier"):
        std = kwargs.get("gain", 1.0) * math.sqrt(2.0 / (fan_in + fan_out))
    else:
        fan = fan_in if kwargs.get("mode", "fan_in") == "fan_in" else fan_out
        if kwargs.get("nonlinearity", "leaky_relu") == "relu":
            gain = math.sqrt(2.0)
        else:
            gain = math.sqrt(2.0 / (1 + kwargs.get("a", 0) ** 2))
        std = gain / math.sqrt(fan)
    return math.sqrt(3.0) * std, std


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("xavier_uniform_", {}),
        ("xavier_uniform_", {"gain": 2.0}),
        ("kaiming_uniform_", {"a": math.sqrt(5)}),
        ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}),
    ],
)
def test_uniform_initialisations_fill_torchs_interval(name, kwargs):
    minitorch.manual_seed(1)
    shape = (60, 30, 3)
    bound, std = uniform_bound_and_std(name, shape, **kwargs)
    w = nn.Parameter(minitorch.empty(*shape))
    assert getattr(init, name)(w, **kwargs) is w, "returns the tensor it was given"
    values = w.detach().numpy()
    assert np.abs(values).max() <= bound * (1 + 1e-6)
    assert np.abs(values).max() > 0.99 * bound
    assert values.std() == pytest.approx(std, rel=0.03)
    assert w.requires_grad and w.is_leaf and w.grad_fn is None, "filled under no_grad"


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [("xavier_normal_", {}), ("kaiming_normal_", {}), ("kaiming_normal_", {"mode": "fan_out"})],
)
def test_normal_initialisations_have_torchs_std(name, kwargs):
    minitorch.manual_seed(2)
    shape = (80, 40, 2)
    _, std = uniform_bound_and_std(name, shape, **kwargs)
    values = getattr(init, name)(minitorch.empty(*shape), **kwargs).numpy()
    assert values.std() == pytest.approx(std, rel=0.03)
    assert abs(values.mean()) < 0.03 * std
    assert np.abs(values).max() > 3 * std, "a normal draw, not a uniform one"


def test_uniform_normal_constant_zeros_ones():
    minitorch.manual_seed(3)
    w = nn.Parameter(minitorch.empty(100, 50))
    values = init.uniform_(w, -0.5, 2.0).detach().numpy()
    assert (
        values.min() >= -0.5
        and values.max() < 2.0
        and values.mean() == pytest.approx(0.75, abs=0.03)
    )
    values = init.normal_(w, 1.0, 0.1).detach().numpy()
    assert values.mean() == pytest.approx(1.0, abs=0.01) and values.std() == pytest.approx(
        0.1, rel=0.03
    )
    assert init.constant_(w, 0.25).detach().numpy().tolist() == [[0.25] * 50] * 100
    assert not init.zeros_(w).detach().numpy().any()
    assert (init.ones_(w).detach().numpy() == 1).all()
    assert w.grad_fn is None and w.requires_grad


def test_trunc_normal_stays_in_bounds_with_the_truncated_std():
    minitorch.manual_seed(4)
    values = init.trunc_normal_(minitorch.empty(200, 100), mean=0.5, std=1.0, a=-1.0, b=1.5).numpy()
    assert values.min() >= -1.0 and values.max() <= 1.5
    mean, std = truncated_normal_moments(0.5, 1.0, -1.0, 1.5)
    assert values.std() == pytest.approx(std, rel=0.03)
    assert values.mean() == pytest.approx(mean, abs=0.02)


def truncated_normal_moments(mean, std, a, b) -> tuple[float, float]:
    """Mean and std of N(mean, std^2) truncated to [a, b]: with $\\alpha, \\beta$ the bounds
    in units of std, $Z = \\Phi(\\beta) - \\Phi(\\alpha)$ and
    $d = (\\phi(\\alpha) - \\phi(\\beta)) / Z$, the mean moves by $\\sigma d$ and the variance is
    $\\sigma^2 [1 + (\\alpha \\phi(\\alpha) - \\beta \\phi(\\beta)) / Z - d^2]$."""
    alpha, beta = (a - mean) / std, (b - mean) / std

    def pdf(t):
        return math.exp(-t * t / 2) / math.sqrt(2 * math.pi)

    def cdf(t):
        return (1 + math.erf(t / math.sqrt(2))) / 2

    z = cdf(beta) - cdf(alpha)
    shift = (pdf(alpha) - pdf(beta)) / z
    variance = 1 + (alpha * pdf(alpha) - beta * pdf(beta)) / z - shift**2
    return mean + std * shift, std * math.sqrt(variance)


def test_truncated_normal_moments_of_the_whole_line_are_the_normal_ones():
    assert truncated_normal_moments(0.5, 2.0, -50.0, 50.0) == pytest.approx((0.5, 2.0))
    # symmetric bounds keep the mean; [-1, 1] of N(0, 1): variance 1 - 2 phi(1) / Z
    mean, std = truncated_normal_moments(0.0, 1.0, -1.0, 1.0)
    assert mean == pytest.approx(0.0, abs=1e-15)
    assert std == pytest.approx(math.sqrt(1 - 2 * 0.24197072451914337 / 0.6826894921370859))


def test_empty_tensor_is_left_alone_with_torchs_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        init.kaiming_uniform_(minitorch.empty(0, 3))
    assert [str(w.message) for w in caught] == ["Initializing zero-element tensors is a no-op"]


def test_model_apply_with_an_init_function():
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))

    def init_weights(m):
        if isinstance(m, nn.Linear):
            init.zeros_(m.weight)
            init.constant_(m.bias, 0.5)

    model.apply(init_weights)
    assert all(not p.detach().numpy().any() for n, p in model.named_parameters() if "weight" in n)
    assert model(minitorch.ones(1, 4)).tolist() == [[0.5, 0.5]]
