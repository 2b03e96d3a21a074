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


# ---------------------------------------------------------------------------
# minitorch._fused_adam_ / _fused_adamw_ (one backend kernel per parameter) against torch's
# ---------------------------------------------------------------------------

FUSED_OPTIONS = {
    "plain": dict(
        lr=0.1, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False
    ),
    # beta1 < 0.5 takes lerp's other form; amsgrad keeps v's running maximum
    "amsgrad-wd-max": dict(
        lr=0.05, beta1=0.3, beta2=0.9, weight_decay=0.2, eps=1e-3, amsgrad=True, maximize=True
    ),
}


def fused_values() -> list[np.ndarray]:
    """A parameter, its gradient and Adam's three moments (not zero: an earlier step's)."""
    values = [RNG.normal(size=(2, 3)) for _ in range(2)] + [RNG.normal(size=(2, 3)) * 0.1]
    return values + [RNG.uniform(0.0, 0.2, size=(2, 3)), RNG.uniform(0.0, 0.3, size=(2, 3))]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(FUSED_OPTIONS))
@pytest.mark.parametrize("fused", ["_fused_adam_", "_fused_adamw_"])
def test_fused_adam_steps_match_torchs(fused, name, dtype):
    options = FUSED_OPTIONS[name]
    seeds = fused_values()
    ours = [minitorch.tensor(v, dtype=getattr(minitorch, dtype)) for v in seeds]
    theirs = [torch.tensor(v, dtype=getattr(torch, dtype)) for v in seeds]
    steps = [minitorch.tensor(0.0), torch.tensor(0.0)]
    for _ in range(3):
        for lib, (p, g, m, v, v_max), step in zip(
            (minitorch, torch), (ours, theirs), steps, strict=True
        ):
            step += 1
            maxima = [v_max] if options["amsgrad"] else []
            getattr(lib, fused)([p], [g], [m], [v], maxima, [step], **options)
    rtol = 1e-12 if dtype == "float64" else 1e-5
    for k, (got, expected) in enumerate(zip(ours, theirs, strict=True)):
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=rtol, err_msg=str(k))
    assert ours[0]._version == 3 and ours[1]._version == 0  # the gradient is only read


def fused_call(p, g, m, v, **changes):
    options = {**FUSED_OPTIONS["plain"], **changes}
    minitorch._fused_adam_([p], [g], [m], [v], [], [minitorch.tensor(1.0)], **options)


def test_fused_adam_refuses_what_its_kernel_cannot_step():
    p, g, m, v, _ = (minitorch.tensor(x) for x in fused_values())
    with pytest.raises(RuntimeError, match="contiguous floating point"):
        fused_call(p.t(), g.t(), m.t(), v.t())
    with pytest.raises(RuntimeError, match="shape, dtype and device"):
        fused_call(p, g.float(), m, v)
    with pytest.raises(RuntimeError, match="shape, dtype and device"):
        fused_call(p, g[:1], m, v)
    with pytest.raises(RuntimeError, match="the same length"):
        minitorch._fused_adam_([p], [], [m], [v], [], [], **FUSED_OPTIONS["plain"])
    with pytest.raises(NotImplementedError, match="grad_scale"):
        fused_call(p, g, m, v, grad_scale=minitorch.tensor(2.0))
    leaf = minitorch.tensor(p.numpy(), requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        fused_call(leaf, g, m, v)
    assert p._version == 0  # nothing was written


# ---------------------------------------------------------------------------
# add_, sub_, mul_, div_ written straight into the tensor (one zip kernel) outside autograd
# ---------------------------------------------------------------------------

ARITHMETIC = {
    "mul_ number": lambda lib, a, b: a.mul_(0.9),
    "mul_ True": lambda lib, a, b: a.mul_(True),
    "add_ int": lambda lib, a, b: a.add_(3),
    "add_ alpha": lambda lib, a, b: a.add_(b, alpha=-0.25),
    "sub_ broadcast row": lambda lib, a, b: a.sub_(b[0]),
    "div_": lambda lib, a, b: a.div_(b.abs() + 1),
    "sub_ alpha": lambda lib, a, b: a.sub_(b, alpha=2),
    "transposed": lambda lib, a, b: a.t().add_(b.t()),
    "float64 into float32": lambda lib, a, b: a.float().mul_(b),
    "int64 times 2": lambda lib, a, b: a.long().mul_(2),
    "a view": lambda lib, a, b: a[1].mul_(b[0]),
}


@pytest.mark.parametrize("case", sorted(ARITHMETIC))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_inplace_arithmetic_matches_torch(case, dtype):
    results = []
    for lib in (minitorch, torch):
        a = lib.tensor(A, dtype=getattr(lib, dtype))
        result = ARITHMETIC[case](lib, a, lib.tensor(B, dtype=getattr(lib, dtype)))
        results.append((result, a))
    (got, ours), (expected, theirs) = results
    assert str(got.dtype) == str(expected.dtype).replace("torch.", "minitorch.")
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-7)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-7)  # views write through
    assert ours._version == theirs._version


def test_optimizer_style_updates_write_into_the_tensor_without_a_copy(monkeypatch):
    w = minitorch.tensor(A, requires_grad=True)
    expected = A * 0.5 - 0.1 * B
    monkeypatch.setattr(minitorch.ops.inplace, "inplace", None)  # the compute-then-copy path
    with minitorch.no_grad():
        w.mul_(0.5).add_(minitorch.tensor(B), alpha=-0.1)
    np.testing.assert_allclose(w.detach().numpy(), expected, rtol=1e-12)
    assert w._version == 2 and w.is_leaf and w.grad_fn is None


def test_inplace_arithmetic_keeps_torchs_errors():
    for lib in (torch, minitorch):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            lib.ones(2, requires_grad=True).mul_(2.0)
        with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match"):
            lib.ones(2).add_(lib.ones(3, 2))
        with pytest.raises(RuntimeError, match="result type Float can't be cast"):
            lib.ones(2, dtype=lib.long).mul_(0.5)
        with pytest.raises(RuntimeError, match="single memory location"):
            lib.ones(1).expand(3).add_(1.0)
