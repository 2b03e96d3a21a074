"""minitorch.nn.Module and nn.Parameter against torch.nn: the tree, buffers, modes,
gradients, dtype conversion, state_dict / load_state_dict and printing.

Skipped when torch is not installed.
"""

from __future__ import annotations

import copy
from collections import OrderedDict

import numpy as np
import pytest
from helpers import types_named_for_the_test_device

import minitorch
from minitorch import nn

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def build(lib):
    """The same small model in minitorch (`lib` = minitorch.nn) or torch (`lib` = torch.nn)."""

    class Net(lib.Module):
        def __init__(self):
            super().__init__()
            self.features = lib.Sequential(lib.Linear(2, 3), lib.ReLU())
            self.register_buffer("steps", (minitorch if lib is nn else torch).zeros(1))
            self.register_buffer(
                "scratch", (minitorch if lib is nn else torch).ones(2), persistent=False
            )
            self.head = lib.Linear(3, 1)
            self.scale = lib.Parameter((minitorch if lib is nn else torch).ones(1))

        def forward(self, x):
            return self.head(self.features(x)) * self.scale

    return Net()


def copy_weights(ours, theirs):
    """Give the torch model `theirs` the minitorch model's weights (same names)."""
    with torch.no_grad():
        for name, value in ours.state_dict().items():
            theirs.state_dict()[name].copy_(torch.tensor(value.numpy()))


# ---------------------------------------------------------------------------
# Parameter
# ---------------------------------------------------------------------------


def test_parameter_is_a_tensor_sharing_its_datas_storage():
    data = minitorch.tensor([1.0, 2.0])
    p = nn.Parameter(data)
    assert isinstance(p, minitorch.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad is None
    assert p.data_ptr() == data.data_ptr(), "a Parameter shares its data's storage"
    with minitorch.no_grad():
        p.mul_(3.0)
    assert data.tolist() == [3.0, 6.0]


@pytest.mark.cpu_only  # printing without a device
def test_parameter_prints_as_torch():
    for values, kwargs in [([1.0, 2.0], {}), ([1, 2], {"requires_grad": False})]:
        ours = nn.Parameter(minitorch.tensor(values), **kwargs)
        theirs = torch.nn.Parameter(torch.tensor(values), **kwargs)
        assert repr(ours) == repr(theirs)
        assert str(ours) == str(theirs)
    assert repr(nn.Parameter()) == repr(torch.nn.Parameter())
    assert repr(nn.Parameter(minitorch.ones(2, dtype=minitorch.float64))) == repr(
        torch.nn.Parameter(torch.ones(2, dtype=torch.float64))
    ).replace("torch.", "minitorch.")


def test_parameter_works_in_ops_and_gets_a_gradient():
    p = nn.Parameter(minitorch.tensor([[1.0], [2.0]]))
    x = minitorch.tensor([[3.0, 4.0]])
    y = x @ p
    assert type(y) is minitorch.Tensor, "an operation on a Parameter gives a plain tensor"
    assert type(y.grad_fn).__name__ == "MmBackward0"
    y.sum().backward()
    assert p.grad.tolist() == [[3.0], [4.0]]


def test_setting_data_swaps_the_values_and_keeps_the_object():
    p = nn.Parameter(minitorch.zeros(2))
    p.data = minitorch.tensor([1.0, 2.0, 3.0], dtype=minitorch.float64)
    assert isinstance(p, nn.Parameter) and p.requires_grad
    assert p.dtype is minitorch.float64 and p.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(TypeError) as ours:
        p.data = 3
    with pytest.raises(TypeError) as theirs:
        torch.nn.Parameter(torch.zeros(2)).data = 3
    assert str(ours.value) == str(theirs.value)


def test_parameter_errors_and_copies():
    with pytest.raises(TypeError, match="data must be a Tensor, got float"):
        nn.Parameter(3.0)
    with pytest.raises(RuntimeError, match="floating point"):
        nn.Parameter(minitorch.tensor([1, 2]))
    p = nn.Parameter(minitorch.tensor([1.0, 2.0]))
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q.requires_grad and q.data_ptr() != p.data_ptr()
    assert type(p.detach()) is minitorch.Tensor and type(p.clone()) is minitorch.Tensor


# ---------------------------------------------------------------------------
# The tree, registration and printing
# ---------------------------------------------------------------------------


def test_names_and_order_of_parameters_buffers_and_modules_are_torchs():
    ours, theirs = build(nn), build(torch.nn)
    for method in ("named_parameters", "named_buffers", "named_modules", "named_children"):
        got = [name for name, _ in getattr(ours, method)()]
        expected = [name for name, _ in getattr(theirs, method)()]
        assert got == expected, method
    got = [n for n, _ in ours.named_parameters(prefix="net", recurse=False)]
    assert got == [n for n, _ in theirs.named_parameters(prefix="net", recurse=False)]
    assert [n for n, _ in ours.named_buffers(recurse=False)] == ["steps", "scratch"]
    assert list(ours.state_dict()) == list(theirs.state_dict())


def test_shared_modules_and_parameters_are_listed_once_unless_asked():
    for lib in (nn, torch.nn):
        layer = lib.Linear(2, 2)
        model = lib.Sequential(layer, layer)
        names = [n for n, _ in model.named_parameters()]
        all_names = [n for n, _ in model.named_parameters(remove_duplicate=False)]
        modules = [n for n, _ in model.named_modules(remove_duplicate=False)]
        assert names == ["0.weight", "0.bias"], lib
        assert all_names == ["0.weight", "0.bias", "1.weight", "1.bias"], lib
        assert modules == ["", "0", "1"], lib
        assert list(model.state_dict()) == all_names, lib


def test_print_model_is_torchs():
    ours = nn.Sequential(
        nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 1, bias=False), nn.Sigmoid())
    )
    theirs = torch.nn.Sequential(
        torch.nn.Linear(2, 3),
        torch.nn.ReLU(),
        torch.nn.Sequential(torch.nn.Linear(3, 1, bias=False), torch.nn.Sigmoid()),
    )
    assert repr(ours) == repr(theirs)
    assert repr(build(nn)) == repr(build(torch.nn))


def test_setattr_routes_parameters_buffers_and_modules():
    model = build(nn)
    model.steps = minitorch.ones(1) * 5
    buffers = dict(model.named_buffers(recurse=False))
    assert buffers["steps"].tolist() == [5.0], "assigning a tensor to a buffer name"
    with pytest.raises(TypeError) as ours:
        model.steps = 3.0
    with pytest.raises(TypeError) as theirs:
        build(torch.nn).steps = 3.0
    assert str(ours.value) == str(theirs.value).replace("torch.", "minitorch.")
    plain = minitorch.ones(1)
    with pytest.raises(TypeError, match=f"cannot assign '{plain.type()}' as parameter"):
        model.scale = plain
    model.scale = None
    assert "scale" not in [n for n, _ in model.named_parameters()]
    model.scale = nn.Parameter(minitorch.zeros(1))
    assert [n for n, _ in model.named_parameters()][0] == "scale", "registered again"
    del model.steps
    assert "steps" not in model.state_dict()
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'steps'"):
        _ = model.steps


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda m: m.register_buffer("a.b", minitorch.ones(1)), KeyError),
        (lambda m: m.register_buffer("", minitorch.ones(1)), KeyError),
        (lambda m: m.register_buffer("head", minitorch.ones(1)), KeyError),
        (lambda m: m.register_buffer("x", 3.0), TypeError),
        (lambda m: m.register_buffer(1, minitorch.ones(1)), TypeError),
        (lambda m: m.register_parameter("w", minitorch.ones(1)), TypeError),
        (lambda m: m.register_parameter("a.b", None), KeyError),
        (lambda m: m.add_module("x", 3), TypeError),
        (lambda m: m.add_module("a.b", nn.ReLU()), KeyError),
        (lambda m: m.train("yes"), ValueError),
    ],
)
def test_registration_errors_are_torchs(call, error):
    with pytest.raises(error) as ours:
        call(build(nn))
    # the same call on torch's model, with torch tensors, raises the same type and text
    twin = build(torch.nn)
    with pytest.raises(error) as theirs:
        call(_TorchProxy(twin))
    expected = str(theirs.value).replace("torch.", "minitorch.").replace("torch ", "minitorch ")
    assert str(ours.value) == types_named_for_the_test_device(expected)


class _TorchProxy:
    """A torch module whose `register_*` calls get minitorch tensors turned into torch ones."""

    def __init__(self, module):
        self.module = module

    def __getattr__(self, name):
        method = getattr(self.module, name)

        def call(*args, **kwargs):
            args = [
                torch.tensor(a.tolist()) if isinstance(a, minitorch.Tensor) else a for a in args
            ]
            args = [torch.nn.ReLU() if isinstance(a, nn.ReLU) else a for a in args]
            return method(*args, **kwargs)

        return call


def test_assigning_a_buffer_registers_it_as_torch():
    for lib in (minitorch, torch):
        model = lib.nn.Module()
        model.kept = lib.nn.Buffer(lib.ones(2))
        model.scratch = lib.nn.Buffer(lib.zeros(1), persistent=False)
        model.plain = lib.ones(1)  # a plain tensor is a plain attribute
        assert [n for n, _ in model.named_buffers()] == ["kept", "scratch"], lib
        assert list(model.state_dict()) == ["kept"], lib
        assert not model.kept.requires_grad, lib
        model.scratch = lib.nn.Buffer(lib.zeros(1))  # persistent again
        assert list(model.state_dict()) == ["kept", "scratch"], lib


def test_train_eval_zero_grad_requires_grad_and_apply():
    model = build(nn)
    model.eval()
    assert not any(m.training for m in model.modules())
    model.train()
    assert all(m.training for m in model.modules())
    model(minitorch.ones(4, 2)).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    model.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.any() for p in model.parameters())
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())
    assert model.requires_grad_(False) is model
    assert not any(p.requires_grad for p in model.parameters())
    seen = []
    assert model.apply(lambda m: seen.append(type(m).__name__)) is model
    # children first, then the module itself, as torch
    twin_seen = []
    build(torch.nn).apply(lambda m: twin_seen.append(type(m).__name__))
    assert seen == twin_seen


def test_to_double_and_float_keep_parameters_and_cast_only_floating_buffers():
    model = build(nn)
    model.register_buffer("counts", minitorch.tensor([1, 2]))
    weight = model.head.weight
    model(minitorch.ones(1, 2)).sum().backward()
    assert model.double() is model
    assert model.head.weight is weight, "the Parameter object survives the cast"
    assert weight.dtype is minitorch.float64 and weight.grad.dtype is minitorch.float64
    assert model.steps.dtype is minitorch.float64 and model.counts.dtype is minitorch.int64
    assert weight.requires_grad and isinstance(weight, nn.Parameter)
    model.to(minitorch.float32)
    assert weight.dtype is minitorch.float32
    assert model.to(minitorch.get_default_device()) is model
    with pytest.raises(TypeError, match="only accepts floating point"):
        model.to(minitorch.int64)
    out = model(minitorch.ones(2, 2))
    assert out.dtype is minitorch.float32


# ---------------------------------------------------------------------------
# state_dict and load_state_dict
# ---------------------------------------------------------------------------


def test_state_dict_has_torchs_keys_and_shapes_and_loads_into_torch():
    ours, theirs = build(nn), build(torch.nn)
    state = ours.state_dict()
    assert isinstance(state, OrderedDict)
    expected = {k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    assert {k: tuple(v.shape) for k, v in state.items()} == expected
    assert not any(v.requires_grad for v in state.values()), "detached unless keep_vars"
    assert ours.state_dict(keep_vars=True)["scale"] is ours.scale
    copy_weights(ours, theirs)
    x = np.random.default_rng(0).normal(size=(4, 2)).astype(np.float32)
    np.testing.assert_allclose(
        ours(minitorch.tensor(x)).detach().numpy(),
        theirs(torch.tensor(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


def test_load_state_dict_copies_values_in_place():
    source, target = build(nn), build(nn)
    weight = target.head.weight
    assert repr(target.load_state_dict(source.state_dict())) == "<All keys matched successfully>"
    assert target.head.weight is weight
    np.testing.assert_array_equal(weight.detach().numpy(), source.head.weight.detach().numpy())
    assert weight.requires_grad and weight.is_leaf


def test_load_state_dict_errors_are_torchs():
    ours, theirs = build(nn), build(torch.nn)
    bad_ours = dict(ours.state_dict())
    bad_theirs = dict(theirs.state_dict())
    for state, lib in ((bad_ours, minitorch), (bad_theirs, torch)):
        del state["head.bias"]
        state["features.0.weight"] = lib.ones(3, 3)
        state["extra"] = lib.ones(1)
    with pytest.raises(RuntimeError) as got:
        ours.load_state_dict(bad_ours)
    with pytest.raises(RuntimeError) as expected:
        theirs.load_state_dict(bad_theirs)
    assert str(got.value) == str(expected.value).replace("torch.", "minitorch.")
    # strict=False: the missing and unexpected keys are returned, a size mismatch still raises
    del bad_ours["features.0.weight"], bad_theirs["features.0.weight"]
    result = ours.load_state_dict(bad_ours, strict=False)
    expected_result = theirs.load_state_dict(bad_theirs, strict=False)
    assert result.missing_keys == expected_result.missing_keys
    assert result.unexpected_keys == expected_result.unexpected_keys
    assert repr(result) == repr(expected_result)
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        ours.load_state_dict([1, 2])


def test_load_state_dict_with_assign_takes_the_given_tensors():
    model = build(nn)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    state["head.weight"] = minitorch.full((1, 3), 2.0, dtype=minitorch.float64)
    model.load_state_dict(state, assign=True)
    weight = model.head.weight
    assert isinstance(weight, nn.Parameter) and weight.requires_grad
    assert weight.dtype is minitorch.float64 and weight.tolist() == [[2.0, 2.0, 2.0]]
    assert model.steps is state["steps"]


def test_a_state_dict_from_torch_loads_here():
    ours, theirs = build(nn), build(torch.nn)
    state = {k: minitorch.tensor(v.numpy()) for k, v in theirs.state_dict().items()}
    ours.load_state_dict(state)
    x = np.random.default_rng(1).normal(size=(3, 2)).astype(np.float32)
    np.testing.assert_allclose(
        ours(minitorch.tensor(x)).detach().numpy(),
        theirs(torch.tensor(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


def test_deepcopy_gives_an_independent_model_with_the_same_weights():
    model = build(nn)
    twin = copy.deepcopy(model)
    assert type(twin.head.weight) is nn.Parameter and twin.head.weight is not model.head.weight
    assert twin.head.weight.tolist() == model.head.weight.tolist()
    with minitorch.no_grad():
        twin.head.weight.fill_(0.0)
    assert model.head.weight.detach().numpy().any(), "the copy shares no storage"
    assert repr(twin) == repr(model)


def test_module_without_forward_says_so():
    with pytest.raises(NotImplementedError, match=r"Module \[Module\] is missing the required"):
        nn.Module()(1)
