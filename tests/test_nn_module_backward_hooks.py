"""Full backward hooks and pre-hooks of `Module` (what they see, replacing gradients, order,
removal, the case of no input requiring grad, errors), and more of the Module API:
`get_submodule`, `register_module`, `named_modules(remove_duplicate=False)`, `apply`,
`zero_grad(set_to_none=False)`, `requires_grad_`, `load_state_dict(strict=False)`'s result,
`to` with a dtype, pickling, the hooks of `state_dict` and `load_state_dict`, extra state,
the weight norm state dicts of both forms, and the printed text of models of the
normalization layers.

Each scenario is a function of the library that returns plain values; torch 2.13's are
recorded in tests/data/test_nn_module_backward_hooks.json (scripts/record_torch_answers.py
from `torch_answers`).
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from helpers import assert_outcome_as_recorded, outcome_answers, recorded_answers

import minitorch


def values(t):
    """A tensor's values to 9 decimals (the libraries' last bits differ), or None."""
    return None if t is None else np.round(t.detach().numpy().astype("float64"), 9).tolist()


def two_outputs(lib):
    class Two(lib.nn.Module):
        def forward(self, a, b, scale=1.0):
            return a * 2 * scale, a * b

    return Two()


def hooks_logging(lib, module, log):
    module.register_full_backward_pre_hook(
        lambda mod, go: log.append(["pre", type(mod).__name__, [values(g) for g in go]])
    )
    module.register_full_backward_hook(
        lambda mod, gi, go: log.append(
            ["hook", type(mod).__name__, [values(g) for g in gi], [values(g) for g in go]]
        )
    )


def one_output_used(lib):
    """An unused output: None in grad_output; an input without grad: zeros in grad_input."""
    log = []
    m = two_outputs(lib)
    hooks_logging(lib, m, log)
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    x, _ = m(a, lib.tensor([3.0, 4.0]), scale=3.0)
    log.append(x.grad_fn.name())
    x.sum().backward()
    return [*log, values(a.grad)]


def both_outputs_used(lib):
    log = []
    m = two_outputs(lib)
    hooks_logging(lib, m, log)
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    x, y = m(a, b)
    (x.sum() + (y * y).sum()).backward()
    return [*log, values(a.grad), values(b.grad)]


def replaced_gradients(lib):
    """A pre-hook scales grad_output (the parameters see it); a hook replaces grad_input."""
    layer = lib.nn.Linear(2, 1)
    with lib.no_grad():
        layer.weight.copy_(lib.tensor([[0.5, -1.0]]))
    layer.register_full_backward_pre_hook(lambda mod, go: (go[0] * 10,))
    layer.register_full_backward_hook(lambda mod, gi, go: (gi[0] + 1,))
    x = lib.ones(1, 2, requires_grad=True)
    (layer(x) * 3).sum().backward()
    return [values(x.grad), values(layer.weight.grad), values(layer.bias.grad)]


def nested_order_and_removal(lib):
    """Hooks of a Sequential and its layers fire from the last layer back; prepend puts a
    hook first; a removed hook is not called."""
    log = []
    kind = lib.float64
    model = lib.nn.Sequential(
        lib.nn.Linear(2, 3, dtype=kind), lib.nn.Tanh(), lib.nn.Linear(3, 1, dtype=kind)
    )
    with lib.no_grad():
        for k, p in enumerate(model.parameters()):
            p.copy_(lib.linspace(-1, 1, p.numel(), dtype=kind).view(p.shape) * (k + 1))
    for name, module in model.named_modules():
        module.register_full_backward_hook(
            lambda mod, gi, go, name=name: log.append(["hook", name or "model", len(gi)])
        )
    model[0].register_full_backward_hook(
        lambda mod, gi, go: log.append(["first", values(gi[0])]), prepend=True
    )
    handle = model[1].register_full_backward_pre_hook(lambda mod, go: log.append(["removed"]))
    handle.remove()
    x = lib.tensor([[0.5, -0.25]], dtype=kind, requires_grad=True)
    model(x).sum().backward()
    return [*log, values(x.grad)]


def no_input_requires_grad(lib):
    """The hooks run at the outputs, with None for each tensor input, and warn."""
    log = []
    layer = lib.nn.Linear(2, 1)
    hooks_logging(lib, layer, log)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        layer(lib.ones(1, 2)).sum().backward()
    return [*log, [str(w.message) for w in caught]]


def wrong_count(lib):
    layer = lib.nn.Linear(2, 1)
    layer.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    layer(lib.ones(1, 2, requires_grad=True)).sum().backward()


def wrong_count_pre(lib):
    layer = lib.nn.Linear(2, 1)
    layer.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
    layer(lib.ones(1, 2, requires_grad=True)).sum().backward()


def no_grad_call(lib):
    """Under no_grad the hooks are not set up: the output has no grad_fn."""
    layer = lib.nn.Linear(2, 1)
    layer.register_full_backward_hook(lambda mod, gi, go: None)
    with lib.no_grad():
        return layer(lib.ones(1, 2, requires_grad=True)).grad_fn is None


def tree(lib):
    shared = lib.nn.Linear(2, 2)
    model = lib.nn.Sequential(shared, lib.nn.ReLU(), shared)
    model.register_module("norm", lib.nn.GroupNorm(1, 2))
    return model


def submodules(lib):
    model = tree(lib)
    return [
        repr(model.get_submodule("0")),
        repr(model.get_submodule("")),
        repr(model.get_submodule("norm")),
        [name for name, _ in model.named_modules()],
        [name for name, _ in model.named_modules(remove_duplicate=False)],
        [name for name, _ in model.named_modules(prefix="top")],
    ]


def applied(lib):
    names = []
    tree(lib).apply(lambda module: names.append(type(module).__name__))
    return names


def gradients_zeroed(lib):
    layer = lib.nn.Linear(2, 1)
    layer(lib.ones(1, 2)).sum().backward()
    layer.zero_grad(set_to_none=False)
    kept = [values(p.grad) for p in layer.parameters()]
    layer.zero_grad()
    frozen = layer.requires_grad_(False)
    return [kept, [p.grad is None for p in layer.parameters()], frozen is layer,
            [p.requires_grad for p in layer.parameters()]]  # fmt: skip


def incompatible_keys(lib):
    layer = lib.nn.Linear(2, 1)
    state = {"weight": lib.zeros(1, 2), "extra": lib.ones(1)}
    result = layer.load_state_dict(state, strict=False)
    return [repr(result), result.missing_keys, result.unexpected_keys, type(result).__name__]


def non_persistent(lib):
    module = lib.nn.InstanceNorm1d(2, track_running_stats=True)
    module.register_buffer("scratch", lib.ones(2), persistent=False)
    return [list(module.state_dict()), [name for name, _ in module.named_buffers()]]


def dtype_name(t) -> str:
    return str(t.dtype).split(".")[-1]


def cast(lib):
    model = lib.nn.Sequential(lib.nn.GroupNorm(1, 2), lib.nn.InstanceNorm1d(2, affine=True))
    model.double()
    kinds = [dtype_name(p) for p in model.parameters()]
    model.to(lib.float32)
    return [kinds, [dtype_name(p) for p in model.parameters()]]


def pickled(lib):
    model = lib.nn.Sequential(lib.nn.RMSNorm(2), lib.nn.LocalResponseNorm(2))
    copy = pickle.loads(pickle.dumps(model))
    x = lib.tensor([[[1.0, 2.0], [3.0, -1.0]]])
    return [repr(copy), values(copy(x)), values(model(x))]


def printed(lib):
    model = lib.nn.Sequential(
        lib.nn.GroupNorm(2, 4, eps=1e-3, affine=False),
        lib.nn.InstanceNorm2d(4, momentum=None, track_running_stats=True),
        lib.nn.InstanceNorm3d(4, affine=True, bias=False),
        lib.nn.RMSNorm([4, 3], eps=1e-6, elementwise_affine=False),
        lib.nn.LocalResponseNorm(3, alpha=1e-3, beta=0.5, k=2.0),
    )
    return repr(model)


def load_hooks(lib):
    """A pre-hook of the inner layer renames an old key; a post-hook of the model clears the
    unexpected keys, so a strict load passes."""
    calls = []
    model = lib.nn.Sequential(lib.nn.Linear(2, 1))

    def rename(module, state_dict, prefix, metadata, strict, missing, unexpected, errors):
        calls.append(["pre", type(module).__name__, prefix, strict, sorted(state_dict)])
        if prefix + "old_weight" in state_dict:
            state_dict[prefix + "weight"] = state_dict.pop(prefix + "old_weight")

    def forgive(module, incompatible):
        calls.append(["post", type(module).__name__, list(incompatible.unexpected_keys)])
        incompatible.unexpected_keys.clear()

    model[0].register_load_state_dict_pre_hook(rename)
    model.register_load_state_dict_post_hook(forgive)
    given = {"0.old_weight": lib.full((1, 2), 3.0), "0.bias": lib.zeros(1), "stale": lib.ones(1)}
    result = model.load_state_dict(given)
    return [*calls, repr(result), values(model[0].weight), sorted(given)]


def weight_norm_forms(lib):
    """A state dict of the hook form of weight norm loads into the parametrized form."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        hooked = lib.nn.utils.weight_norm(lib.nn.Linear(3, 2, dtype=lib.float64))
    with lib.no_grad():
        hooked.weight_v.copy_(lib.linspace(-1, 1, 6, dtype=lib.float64).view(2, 3))
        hooked.weight_g.copy_(lib.tensor([[2.0], [0.5]], dtype=lib.float64))
        hooked.bias.copy_(lib.tensor([0.25, -1.0], dtype=lib.float64))
    new = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(3, 2, dtype=lib.float64))
    result = new.load_state_dict(hooked.state_dict())
    x = lib.tensor([[1.0, -2.0, 0.5]], dtype=lib.float64)
    return [list(hooked.state_dict()), repr(result), values(new(x)), values(hooked(x))]


def state_dict_hooks(lib):
    """Pre-hooks run before a module's entries, post-hooks after its children's; a post-hook
    may change the dict in place; `prefix` is put before every key."""
    calls = []
    model = lib.nn.Sequential(lib.nn.Linear(2, 1), lib.nn.Sequential(lib.nn.GroupNorm(1, 2)))
    for module in model.modules():
        module.register_state_dict_pre_hook(
            lambda mod, prefix, keep_vars: calls.append(["pre", prefix, keep_vars])
        )
        module.register_state_dict_post_hook(
            lambda mod, state, prefix, meta: calls.append(["post", prefix, list(state)])
        )

    def drop_bias(module, state, prefix, metadata):
        del state[prefix + "bias"]

    model[0].register_state_dict_post_hook(drop_bias)
    keys = list(model.state_dict(prefix="model.", keep_vars=True))
    return [*calls, keys]


def returning_post_hook(lib):
    layer = lib.nn.Linear(2, 1)
    layer.register_state_dict_post_hook(lambda mod, state, prefix, meta: state)
    layer.state_dict()


def counter(lib):
    class Counter(lib.nn.Linear):
        """A layer that keeps a count beside its tensors."""

        def __init__(self):
            super().__init__(2, 1)
            self.count = 0

        def get_extra_state(self):
            return {"count": self.count}

        def set_extra_state(self, state):
            self.count = state["count"] + 100

    return Counter()


def extra_state(lib):
    first = counter(lib)
    first.count = 5
    state = first.state_dict()
    second = counter(lib)
    result = second.load_state_dict(state)
    lenient = counter(lib).load_state_dict({"weight": lib.ones(1, 2)}, strict=False)
    plain = lib.nn.Linear(2, 1).load_state_dict({**lib.nn.Linear(2, 1).state_dict(),
                                                 "_extra_state": 1}, strict=False)  # fmt: skip
    return [list(state), state["_extra_state"], repr(result), second.count, repr(lenient),
            repr(plain)]  # fmt: skip


SCENARIOS = {
    "extra state": extra_state,
    "extra state missing": lambda lib: counter(lib).load_state_dict({}),
    "extra state default": lambda lib: lib.nn.Linear(2, 1).get_extra_state(),
    "state_dict hooks": state_dict_hooks,
    "state_dict post-hook returns": returning_post_hook,
    "load_state_dict hooks": load_hooks,
    "weight_norm state dict forms": weight_norm_forms,
    "one output used": one_output_used,
    "both outputs used": both_outputs_used,
    "replaced gradients": replaced_gradients,
    "nested order and removal": nested_order_and_removal,
    "no input requires grad": no_input_requires_grad,
    "wrong grad_input count": wrong_count,
    "wrong grad_output count": wrong_count_pre,
    "no grad call": no_grad_call,
    "submodules": submodules,
    "get_submodule missing": lambda lib: tree(lib).get_submodule("0.bias"),
    "get_submodule absent": lambda lib: tree(lib).get_submodule("5"),
    "apply": applied,
    "zero_grad and requires_grad_": gradients_zeroed,
    "incompatible keys": incompatible_keys,
    "non-persistent buffer": non_persistent,
    "cast": cast,
    "to an integer dtype": lambda lib: lib.nn.Linear(2, 1).to(lib.int64),
    "pickled": pickled,
    "printed": printed,
}


def torch_answers(torch) -> dict[str, dict]:
    return outcome_answers(torch, {"scenario": SCENARIOS}, torch_names=True)


ANSWERS = recorded_answers(__file__)


@pytest.mark.parametrize("case", SCENARIOS)
def test_scenario_is_torchs(case):
    assert_outcome_as_recorded(ANSWERS, "scenario", case, SCENARIOS[case], torch_names=True)


def test_unpickling_a_module_pickled_without_its_newer_registries():
    """`__setstate__` gives a module whose pickle lacks a registry (an older minitorch's) an
    empty one, as torch's does for its own older pickles."""
    layer = minitorch.nn.Linear(2, 1)
    state = {k: v for k, v in layer.__dict__.items() if k != "_non_persistent_buffers_set"}
    restored = minitorch.nn.Linear.__new__(minitorch.nn.Linear)
    restored.__setstate__(state)
    restored.register_buffer("scratch", minitorch.ones(1), persistent=False)
    assert list(restored.state_dict()) == ["weight", "bias"]
    hooked = pickle.loads(pickle.dumps(restored))
    assert repr(hooked) == repr(layer)


def test_save_refuses_a_module_and_points_to_the_state_dict():
    """A documented difference: `minitorch.save` writes safetensors, which hold tensors (a
    `state_dict`), not pickled modules."""
    with pytest.raises(TypeError, match="got Linear"):
        minitorch.save(minitorch.nn.Linear(2, 1), "unused.safetensors")
