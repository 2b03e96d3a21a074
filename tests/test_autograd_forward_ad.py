"""minitorch.autograd.forward_ad: dual tensors whose tangents are Jacobian-vector products,
checked against central differences (and live torch when installed)."""

import numpy as np
import pytest

import minitorch
import minitorch.autograd.forward_ad as fwAD

RNG = np.random.default_rng(1)
A, B = RNG.uniform(0.5, 2.0, (3, 4)), RNG.uniform(0.5, 2.0, (3, 4))
VA, VB = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
W = RNG.standard_normal((4, 2))

FUNCTIONS = {
    "sin": lambda lib, a, b: a.sin(),
    "exp_tanh": lambda lib, a, b: a.exp().tanh(),
    "log_sqrt": lambda lib, a, b: a.log() + a.sqrt(),
    "sigmoid_relu": lambda lib, a, b: a.sigmoid() * (a - 1).relu(),
    "product": lambda lib, a, b: a * b,
    "quotient_power": lambda lib, a, b: a / b + a**b,
    "broadcast": lambda lib, a, b: a - b.sum(dim=0, keepdim=True),
    "matmul": lambda lib, a, b: a @ lib.tensor(W, dtype=lib.float64),
    "reductions": lambda lib, a, b: a.mean(dim=1) * b.max(dim=1).values,
    "mlp": lambda lib, a, b: (a @ lib.tensor(W, dtype=lib.float64)).relu().softmax(dim=1),
}


def f64(lib, values):
    return lib.tensor(values, dtype=lib.float64)


def tangent(lib, name):
    with lib.autograd.forward_ad.dual_level():
        a = lib.autograd.forward_ad.make_dual(f64(lib, A), f64(lib, VA))
        b = lib.autograd.forward_ad.make_dual(f64(lib, B), f64(lib, VB))
        out = FUNCTIONS[name](lib, a, b)
        primal, found = lib.autograd.forward_ad.unpack_dual(out)
        return primal.numpy(), found.numpy()


@pytest.mark.parametrize("name", FUNCTIONS)
def test_tangent_is_the_directional_derivative(name):
    primal, found = tangent(minitorch, name)
    h = 1e-6
    ahead = FUNCTIONS[name](minitorch, f64(minitorch, A + h * VA), f64(minitorch, B + h * VB))
    behind = FUNCTIONS[name](minitorch, f64(minitorch, A - h * VA), f64(minitorch, B - h * VB))
    np.testing.assert_allclose(found, (ahead - behind).numpy() / (2 * h), rtol=1e-6, atol=1e-8)
    plain = FUNCTIONS[name](minitorch, f64(minitorch, A), f64(minitorch, B))
    np.testing.assert_allclose(primal, plain.numpy(), rtol=1e-15)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_tangents_match_live_torch(torch, name):
    ours, theirs = tangent(minitorch, name), tangent(torch, name)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-12)


@pytest.mark.cpu_only  # the recorded texts are of CPU tensors (a cuda one names its device)
def test_dual_tensors_print_unpack_and_vanish_with_the_level():
    x, v = minitorch.tensor([1.0, 2.0]), minitorch.tensor([1.0, 0.0])
    with fwAD.dual_level() as level:
        assert level == 0
        d = fwAD.make_dual(x, v)
        assert repr(d) == "tensor([1., 2.], tangent=tensor([1., 0.]))"
        assert not d.requires_grad
        y = d * d
        unpacked = fwAD.unpack_dual(y)
        assert isinstance(unpacked, fwAD.UnpackedDualTensor) and unpacked._fields == (
            "primal",
            "tangent",
        )
        assert repr(unpacked.primal) == "tensor([1., 4.])"  # the primal carries no tangent
        assert unpacked.tangent.tolist() == [2.0, 0.0]
        assert fwAD.unpack_dual(x) == (x, None)  # not dual
        assert fwAD.unpack_dual(d > 1.5).tangent is None  # booleans have no tangent
    assert fwAD.unpack_dual(y).tangent is None and repr(y) == "tensor([1., 4.])"


def test_in_place_writes_move_the_tangent():
    with fwAD.dual_level():
        d = fwAD.make_dual(minitorch.ones(2), minitorch.tensor([1.0, 2.0]))
        d.mul_(3)
        assert fwAD.unpack_dual(d).tangent.tolist() == [3.0, 6.0]
        d.add_(fwAD.make_dual(minitorch.ones(2), minitorch.ones(2)))
        assert fwAD.unpack_dual(d).tangent.tolist() == [4.0, 7.0]
        d.fill_(0.0)
        assert fwAD.unpack_dual(d).tangent is None
        e = fwAD.make_dual(minitorch.ones(3), minitorch.ones(3))
        with pytest.raises(NotImplementedError, match="in-place write into a view"):
            e[1:].mul_(2)


def test_errors_are_torchs():
    x = minitorch.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwAD.make_dual(x, x)
    with fwAD.dual_level():
        with pytest.raises(RuntimeError) as error:
            fwAD.make_dual(x, minitorch.ones(3))
        assert str(error.value).endswith(
            "Tensor is of size [2] while the given forward gradient is of size [3]."
        )
        with pytest.raises(ValueError, match="Expected tangent to be floating point or complex"):
            fwAD.make_dual(x, minitorch.tensor([1, 2]))
        with pytest.raises(ValueError, match="but got: minitorch.int64"):
            fwAD.make_dual(minitorch.tensor([1, 2]), x)
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()
