"""The in-place updates optimizers write: `addcmul_`, `addcdiv_`, `lerp_`.

Values against PyTorch, and gradients through them (with autograd on, an in-place
update of a non-leaf is recorded) against PyTorch and central differences.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)
A, B, C = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3)), RNG.uniform(1.0, 2.0, size=3)

UPDATES = {
    "addcmul_": lambda a, b, c: a.addcmul_(b, c, value=-0.5),
    "addcdiv_": lambda a, b, c: a.addcdiv_(b, c, value=0.25),
    "addcdiv_ default value": lambda a, b, c: a.addcdiv_(b, c),
    "lerp_": lambda a, b, c: a.lerp_(b, 0.3),
    "lerp_ tensor weight": lambda a, b, c: a.lerp_(b, c / 4),
}


@pytest.mark.parametrize("name", sorted(UPDATES))
def test_inplace_update_matches_torch_and_returns_self(name):
    update = UPDATES[name]
    ours = [minitorch.tensor(v) for v in (A, B, C)]
    theirs = [torch.tensor(v) for v in (A, B, C)]
    result, expected = update(*ours), update(*theirs)
    assert result is ours[0]
    np.testing.assert_allclose(ours[0].numpy(), expected.numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours[1].numpy(), B)  # the other operands are left alone


def operand_cases(lib):
    """Updates whose operands are not same-shape tensors of the updated tensor's dtype
    apart from it (the general path of an in-place update)."""
    a = lib.tensor(A)
    return {
        "broadcast operand": lambda: lib.tensor(A).addcmul_(
            lib.tensor(B[0]), lib.tensor(C), value=2.0
        ),
        "its own operand": lambda: a.addcdiv_(a, a * a + 1, value=0.5),
        "a view of its base": lambda: a[0].lerp_(a[1], 0.5),
        "non-contiguous": lambda: lib.tensor(A).t().addcmul_(lib.tensor(B).t(), lib.tensor(B).t()),
        "float32 into float64": lambda: lib.tensor(A).addcdiv_(
            lib.tensor(B, dtype=lib.float32), lib.tensor(C, dtype=lib.float32)
        ),
        "float64 into float32": lambda: lib.tensor(A, dtype=lib.float32).addcmul_(
            lib.tensor(B), lib.tensor(C), value=0.5
        ),
    }


@pytest.mark.parametrize("case", sorted(operand_cases(torch)))
def test_updates_with_other_operands_match_torch(case):
    expected = operand_cases(torch)[case]()
    got = operand_cases(minitorch)[case]()
    assert str(got.dtype) == str(expected.dtype).replace("torch.", "minitorch.")
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(UPDATES))
def test_update_bumps_the_version_as_torch(name):
    ours, theirs = minitorch.tensor(A), torch.tensor(A)
    UPDATES[name](ours, minitorch.tensor(B), minitorch.tensor(C))
    UPDATES[name](theirs, torch.tensor(B), torch.tensor(C))
    assert ours._version == theirs._version == 1


@pytest.mark.parametrize("name", sorted(UPDATES))
def test_gradients_through_the_update_match_torch_and_central_differences(name):
    update = UPDATES[name]

    def fn(lib, a, b, c):
        return update(a * 1.0, b, c)  # a * 1.0: a non-leaf, which may be updated in place

    ours = [minitorch.tensor(v, requires_grad=True) for v in (A, B, C)]
    theirs = [torch.tensor(v, requires_grad=True) for v in (A, B, C)]
    (fn(minitorch, *ours) ** 2).sum().backward()
    (fn(torch, *theirs) ** 2).sum().backward()
    for k, (p, q) in enumerate(zip(ours, theirs, strict=True)):
        got = np.zeros_like(p.detach().numpy()) if p.grad is None else p.grad.numpy()
        expected = np.zeros_like(got) if q.grad is None else q.grad.numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12, err_msg=f"input {k}")
    inputs = [minitorch.tensor(v, requires_grad=True) for v in (A, B, C)]
    assert minitorch.grad_check(lambda a, b, c: fn(minitorch, a, b, c), *inputs)


def test_updating_a_leaf_that_requires_grad_raises_torchs_error():
    for lib in (torch, minitorch):
        a = lib.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            a.addcmul_(lib.ones(2), lib.ones(2))
