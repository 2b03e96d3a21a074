"""Module API: forward pre-hooks and hooks (changing inputs and outputs, kwargs, order,
removal, always_call), get_parameter/get_buffer, ParameterList and ParameterDict,
non-persistent buffers and load_state_dict(strict=False)'s result. Each scenario runs on
minitorch with the answers written out, and on torch too when it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch


@pytest.fixture(params=["minitorch", "torch"])
def lib(request):
    if request.param == "torch":
        return pytest.importorskip("torch")
    return minitorch


def scale_module(lib):
    class Scale(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = lib.nn.Parameter(lib.tensor([2.0]))
            self.register_buffer("count", lib.zeros(1))
            self.register_buffer("scratch", lib.zeros(1), persistent=False)

        def forward(self, x, shift=0.0):
            return x * self.weight + shift

    return Scale()


def test_pre_hook_replaces_the_inputs_and_hook_the_output(lib):
    m = scale_module(lib)
    seen = []
    m.register_forward_pre_hook(lambda mod, args: (args[0] + 1,))
    m.register_forward_pre_hook(lambda mod, args: args[0] * 10)  # a non-tuple: the one input
    m.register_forward_hook(lambda mod, args, out: seen.append((args[0].item(), out.item())))
    m.register_forward_hook(lambda mod, args, out: out - 1)
    assert m(lib.tensor([1.0])).item() == 39.0  # ((1 + 1) * 10) * 2 - 1
    assert seen == [(20.0, 40.0)]


def test_kwargs_hooks_prepend_and_removal(lib):
    m = scale_module(lib)
    order = []
    h1 = m.register_forward_hook(lambda mod, args, out: order.append("first"))
    m.register_forward_hook(lambda mod, args, out: order.append("prepended"), prepend=True)

    def pre(mod, args, kwargs):
        order.append("pre")
        return args, {**kwargs, "shift": 100.0}

    h3 = m.register_forward_pre_hook(pre, with_kwargs=True)

    def post(mod, args, kwargs, out):
        order.append(("post", kwargs.get("shift")))

    m.register_forward_hook(post, with_kwargs=True)
    assert m(lib.tensor([1.0]), shift=1.0).item() == 102.0
    assert order == ["pre", "prepended", "first", ("post", 100.0)]
    h1.remove()
    h3.remove()
    order.clear()
    assert m(lib.tensor([1.0])).item() == 2.0
    assert order == ["prepended", ("post", None)]
    with m.register_forward_hook(lambda mod, args, out: out * 0):
        assert m(lib.tensor([1.0])).item() == 0.0
    assert m(lib.tensor([1.0])).item() == 2.0


def test_always_call_hooks_run_when_forward_raises(lib):
    m = scale_module(lib)
    called = []
    m.register_forward_hook(lambda mod, args, out: called.append("always"), always_call=True)
    m.register_forward_hook(lambda mod, args, out: called.append("normal"))
    with pytest.raises(RuntimeError):
        m(lib.ones(2), shift=lib.ones(3))  # shapes that do not broadcast
    assert called == ["always"]


def test_a_bad_kwargs_pre_hook_result_is_refused(lib):
    m = scale_module(lib)
    m.register_forward_pre_hook(lambda mod, args, kwargs: 3, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple"):
        m(lib.tensor([1.0]))


def test_get_parameter_and_get_buffer(lib):
    model = lib.nn.Sequential(scale_module(lib), lib.nn.Linear(1, 2))
    assert model.get_parameter("0.weight") is model[0].weight
    assert model.get_parameter("1.bias") is model[1].bias
    assert model.get_buffer("0.count") is model[0].count
    for call, message in [
        (lambda: model.get_parameter("0.count"), "`count` is not an nn.Parameter"),
        (lambda: model.get_parameter("1.nothing"), "Linear has no attribute `nothing`"),
        (lambda: model.get_buffer("0.weight"), "`weight` is not a buffer"),
        (lambda: model.get_parameter("5.weight"), "Sequential has no attribute `5`"),
    ]:
        with pytest.raises(AttributeError) as raised:
            call()
        assert str(raised.value) == message


def test_non_persistent_buffers_stay_out_of_the_state_dict(lib):
    m = scale_module(lib)
    assert list(m.state_dict()) == ["weight", "count"]
    assert [name for name, _ in m.named_buffers()] == ["count", "scratch"]
    result = m.load_state_dict({"weight": lib.tensor([3.0]), "extra": lib.ones(1)}, strict=False)
    assert result.missing_keys == ["count"] and result.unexpected_keys == ["extra"]
    assert m.weight.item() == 3.0
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "count"'):
        m.load_state_dict({"weight": lib.tensor([3.0])})
    assert repr(m.load_state_dict(m.state_dict())) == "<All keys matched successfully>"


def test_parameter_list(lib):
    values = [lib.ones(2, 3), lib.nn.Parameter(lib.zeros(3)), "not a tensor"]
    params = lib.nn.ParameterList(values[:2])
    params.append(lib.full((1,), 5.0))
    params.extend([lib.zeros(2)])
    params += [values[2]]
    assert len(params) == 5 and params[1] is values[1]
    assert isinstance(params[0], lib.nn.Parameter) and params[0].requires_grad
    assert [n for n, _ in params.named_parameters()] == ["0", "1", "2", "3"]
    assert list(params.state_dict()) == ["0", "1", "2", "3"]
    assert params[-1] == "not a tensor" and len(params[1:3]) == 2
    params[0] = lib.ones(4)
    assert params[0].shape == (4,) and isinstance(params[0], lib.nn.Parameter)
    with pytest.raises(IndexError):
        params[5]
    # A tensor on a GPU names its device after its size, as torch prints `(cuda:0)`.
    on = f" ({params[0].device})" if params[0].device.type == "cuda" else ""
    expected = "\n".join([
        "ParameterList(",
        "    (0): Parameter containing: [LIB.float32 of size 4ON]",
        "    (1): Parameter containing: [LIB.float32 of size 3ON]",
        "    (2): Parameter containing: [LIB.float32 of size 1ON]",
        "    (3): Parameter containing: [LIB.float32 of size 2ON]",
        "    (4): Object of type: str",
        ")",
    ])  # fmt: skip
    assert repr(params) == expected.replace("LIB", lib.__name__).replace("ON", on)
    optimizer = lib.optim.SGD(params.parameters(), lr=0.5)
    sum(p.sum() for p in params.parameters()).backward()
    optimizer.step()
    assert params[0].tolist() == [0.5] * 4


def test_parameter_dict(lib):
    params = lib.nn.ParameterDict({"a": lib.ones(2), "b": lib.nn.Parameter(lib.zeros(1))})
    params.update([("c", lib.ones(1, dtype=lib.float64))])
    params["d"] = lib.zeros(3)
    assert list(params) == ["a", "b", "c", "d"] and "c" in params and len(params) == 4
    assert isinstance(params["a"], lib.nn.Parameter)
    assert [n for n, _ in params.named_parameters()] == ["a", "b", "c", "d"]
    assert params.pop("d").shape == (3,) and "d" not in params
    assert params.get("zz") is None and list(params.keys()) == ["a", "b", "c"]
    # A tensor on a GPU: torch.cuda.FloatTensor, and its device after its size.
    on_gpu = params["a"].device.type == "cuda"
    expected = "\n".join([
        "ParameterDict(",
        "    (a): Parameter containing: [LIB.FloatTensor of size 2ON]",
        "    (b): Parameter containing: [LIB.FloatTensor of size 1ON]",
        "    (c): Parameter containing: [LIB.DoubleTensor of size 1ON]",
        ")",
    ])  # fmt: skip
    lib_name = lib.__name__ + (".cuda" if on_gpu else "")
    on = f" ({params['a'].device})" if on_gpu else ""
    assert repr(params) == expected.replace("LIB", lib_name).replace("ON", on)
    with pytest.raises(ValueError, match="element #0 has length 3; 2 is required"):
        params.update([("x", 1, 2)])
    params.clear()
    assert len(params) == 0 and list(params.parameters()) == []


def test_hooks_see_the_same_tensors_as_torch_with_copied_weights():
    torch = pytest.importorskip("torch")
    outputs = []
    for lib in (minitorch, torch):
        lin = lib.nn.Linear(3, 2, dtype=lib.float64)
        with lib.no_grad():
            lin.weight.copy_(lib.tensor([[0.1, -0.2, 0.3], [0.5, 0.4, -0.6]], dtype=lib.float64))
            lin.bias.copy_(lib.tensor([0.01, -0.02], dtype=lib.float64))
        captured = {}
        lin.register_forward_hook(lambda m, a, o, c=captured: c.update(out=o.detach().numpy()))
        lin.register_forward_pre_hook(lambda m, a: (a[0] * 2,))
        x = lib.tensor([[1.0, 2.0, 3.0]], dtype=lib.float64, requires_grad=True)
        lin(x).sum().backward()
        outputs.append((captured["out"], x.grad.numpy(), lin.weight.grad.numpy()))
    for ours, theirs in zip(*outputs, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-14)
