"""`nn.utils.weight_norm`/`spectral_norm` (the hook forms) and their removal,
`nn.utils.parametrizations.weight_norm`/`spectral_norm`, and `nn.utils.parametrize`
(`register_parametrization`, `remove_parametrizations`, `is_parametrized`, `cached`), and
`skip_init`, against torch: outputs and the gradients of the input and every parameter over
training steps and evaluation (float32 and float64), the power iteration's buffers, state dict
keys, reprs, the values left by removal, and error texts.

The power iteration starts from random vectors; the tests overwrite them with values of
their own seed in both libraries. torch 2.13's answers are recorded in
tests/data/test_nn_utils_parametrize.json (scripts/record_torch_answers.py from
`torch_answers`); gradients are also checked by central differences.
"""

from __future__ import annotations

import copy
import io
import pickle
import types
import warnings

import numpy as np
import pytest
from helpers import (
    as_recorded,
    assert_as_recorded,
    assert_outcome_as_recorded,
    case_rng,
    described,
    outcome_answers,
    recorded_answers,
)

import minitorch

DTYPES = ["float32", "float64"]
# reparametrization -> dims it is tried with (None: weight norm of the whole tensor)
FORMS = {
    "weight_norm": (0, 1, None),
    "parametrizations.weight_norm": (0, 1, None),
    "spectral_norm": (0, 1),
    "parametrizations.spectral_norm": (0, 1),
}
LAYERS = {"Linear": ((3, 4), (2, 3)), "Conv1d": ((3, 4, 2), (2, 3, 5))}


def utility(lib, form: str):
    namespace, _, name = form.rpartition(".")
    owner = lib.nn.utils if not namespace else getattr(lib.nn.utils, namespace)
    return getattr(owner, name)


def reparametrized(lib, form: str, layer_name: str, dim, dtype: str, rng):
    """A layer with weights drawn from `rng`, `form` applied, its power iteration vectors
    (if any) drawn from `rng` too."""
    args, _ = LAYERS[layer_name]
    kind = getattr(lib, dtype)
    layer = getattr(lib.nn, layer_name)(*args, dtype=kind)
    with lib.no_grad():
        for parameter in layer.parameters():
            parameter.copy_(lib.tensor(rng.standard_normal(tuple(parameter.shape)), dtype=kind))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        utility(lib, form)(layer, dim=dim)
    with lib.no_grad():
        for buffer in layer.buffers():
            buffer.copy_(lib.tensor(rng.standard_normal(tuple(buffer.shape)), dtype=kind))
    return layer


STEPS = 3


def trained_record(lib, form: str, layer_name: str, dim, dtype: str) -> dict:
    """`STEPS` training steps and one in evaluation: outputs, the gradients of the input and
    of each parameter, and the buffers after each; state dict keys and repr; then, after the
    reparametrization is removed, the parameters' names and values and the repr."""
    rng = case_rng(form, layer_name, dim, dtype)
    kind = getattr(lib, dtype)
    layer = reparametrized(lib, form, layer_name, dim, dtype, rng)
    record = {"keys": list(layer.state_dict()), "repr": repr(layer)}
    for step in range(STEPS + 1):
        if step == STEPS:
            layer.eval()
        x = lib.tensor(rng.standard_normal(LAYERS[layer_name][1]), dtype=kind, requires_grad=True)
        out = layer(x)
        record[f"output {step}"] = described(out)
        (out * lib.tensor(rng.standard_normal(tuple(out.shape)), dtype=kind)).sum().backward()
        record[f"input grad {step}"] = described(x.grad)
        for name, parameter in layer.named_parameters():
            record[f"{name} grad {step}"] = described(parameter.grad)
            parameter.grad = None
        for name, buffer in layer.named_buffers():
            record[f"{name} {step}"] = described(buffer)
    layer.train()
    if form.startswith("parametrizations"):
        lib.nn.utils.parametrize.remove_parametrizations(layer, "weight")
    else:
        getattr(lib.nn.utils, "remove_" + form)(layer)
    record["removed repr"] = repr(layer)
    for name, parameter in layer.named_parameters():
        record[f"removed {name}"] = described(parameter)
    record["removed buffers"] = [name for name, _ in layer.named_buffers()]
    return record


RECORDS = [
    (form, layer_name, dim, dtype)
    for form, dims in FORMS.items()
    for layer_name in LAYERS
    for dim in dims
    for dtype in DTYPES
]


def record_key(form, layer_name, dim, dtype) -> str:
    return f"{form} {layer_name} dim={dim} {dtype}"


def parametrizations_of(lib):
    """Two parametrizations written the same way in both libraries: a symmetric matrix from
    its upper triangle (its own right inverse), and a scaling with an inverse."""

    class Symmetric(lib.nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(0, 1)

        def right_inverse(self, a):
            return a.triu()

    class Scale(lib.nn.Module):
        def __init__(self, factor):
            super().__init__()
            self.factor = factor

        def forward(self, x):
            return x * self.factor

        def right_inverse(self, a):
            return a / self.factor

    class Split(lib.nn.Module):
        """Two stored tensors: $w = a + b$, stored as $(w/2, w/2)$."""

        def forward(self, a, b):
            return a + b

        def right_inverse(self, w):
            return w / 2, w / 2

    return Symmetric, Scale, Split


def parametrize_record(lib) -> dict:
    """What `parametrize` does with a symmetric, then scaled, weight of a Linear layer and a
    two-tensor parametrization of its bias: values, gradients, state dict, repr, assignment,
    caching and removal."""
    Symmetric, Scale, Split = parametrizations_of(lib)
    P = lib.nn.utils.parametrize
    rng = case_rng("parametrize")
    layer = lib.nn.Linear(3, 3, dtype=lib.float64)
    with lib.no_grad():
        for parameter in layer.parameters():
            parameter.copy_(lib.tensor(rng.standard_normal(tuple(parameter.shape))))
    weight = layer.weight
    P.register_parametrization(layer, "weight", Symmetric())
    P.register_parametrization(layer, "weight", Scale(2.0))
    P.register_parametrization(layer, "bias", Split())
    record = {
        "class": type(layer).__name__,
        "before": P.type_before_parametrizations(layer).__name__,
        "keys": list(layer.state_dict()),
        "repr": repr(layer),
        "original is the parameter": layer.parametrizations.weight.original is weight,
        "flags": [P.is_parametrized(layer), P.is_parametrized(layer, "bias")],
        "weight": described(layer.weight),
        "original0": described(layer.parametrizations.bias.original0),
    }
    x = lib.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    (layer(x) ** 2).sum().backward()
    record["input grad"] = described(x.grad)
    for name, parameter in layer.named_parameters():
        record[f"{name} grad"] = described(parameter.grad)
    layer.weight = lib.tensor(rng.standard_normal((3, 3)))
    record["assigned original"] = described(layer.parametrizations.weight.original)
    record["assigned weight"] = described(layer.weight)
    with P.cached():
        record["cached same"] = layer.weight is layer.weight
    record["uncached same"] = layer.weight is layer.weight
    P.remove_parametrizations(layer, "weight", leave_parametrized=False)
    record["unparametrized weight"] = described(layer.weight)
    P.remove_parametrizations(layer, "bias")
    record["left bias"] = described(layer.bias)
    record["after"] = [type(layer).__name__, P.is_parametrized(layer), list(layer.state_dict())]
    return record


def scale_error(lib, **options):
    """A parametrization that changes the weight's shape."""

    class Row(lib.nn.Module):
        def forward(self, x):
            return x[0]

    layer = lib.nn.Linear(2, 3)
    return lib.nn.utils.parametrize.register_parametrization(layer, "weight", Row(), **options)


def second_changes(lib, inverse: bool):
    """A second parametrization of the weight that changes its shape (or whose right
    inverse does)."""
    Symmetric, Scale, _ = parametrizations_of(lib)

    class Rows(Scale):
        def forward(self, x):
            return x if inverse else x[:1]

        def right_inverse(self, a):
            return a[:1]

    layer = lib.nn.Linear(2, 2)
    lib.nn.utils.parametrize.register_parametrization(layer, "weight", Symmetric())
    lib.nn.utils.parametrize.register_parametrization(layer, "weight", Rows(1.0))


def split_kept(lib):
    Split = parametrizations_of(lib)[2]
    layer = lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "bias", Split())
    lib.nn.utils.parametrize.remove_parametrizations(layer, "bias", leave_parametrized=False)


def deepcopied(lib):
    """A deep copy of a parametrized layer computes the same and is independent."""
    layer = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(2, 2))
    with lib.no_grad():
        layer.parametrizations.weight.original1.copy_(lib.tensor([[1.0, 2.0], [3.0, -4.0]]))
    twin = copy.deepcopy(layer)
    same = bool((twin.weight == layer.weight).all())
    with lib.no_grad():
        twin.parametrizations.weight.original0.mul_(2)
    return [type(twin).__name__, same, bool((twin.weight == layer.weight).all())]


def quiet(function):
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return function(lib)

    return run


def twice(lib, name):
    layer = getattr(lib.nn.utils, name)(lib.nn.Linear(2, 2))
    getattr(lib.nn.utils, name)(layer)


ERRORS = {
    "no such tensor": lambda lib: lib.nn.utils.parametrize.register_parametrization(
        lib.nn.Linear(2, 2), "scale", parametrizations_of(lib)[1](2.0)
    ),
    "not parametrized": lambda lib: lib.nn.utils.parametrize.remove_parametrizations(
        lib.nn.Linear(2, 2), "weight"
    ),
    "shape changed": scale_error,
    "shape changed unsafe": lambda lib: scale_error(lib, unsafe=True).weight.shape,
    "leave unparametrized a pair": split_kept,
    "second changes the shape": lambda lib: second_changes(lib, inverse=False),
    "second inverse changes the shape": lambda lib: second_changes(lib, inverse=True),
    "weight_norm twice": quiet(lambda lib: twice(lib, "weight_norm")),
    "spectral_norm twice": lambda lib: twice(lib, "spectral_norm"),
    "remove_weight_norm none": lambda lib: lib.nn.utils.remove_weight_norm(lib.nn.Linear(2, 2)),
    "remove_spectral_norm none": lambda lib: lib.nn.utils.remove_spectral_norm(lib.nn.Linear(2, 2)),
    "spectral_norm iterations": lambda lib: lib.nn.utils.spectral_norm(
        lib.nn.Linear(2, 2), n_power_iterations=0
    ),
    "parametrized spectral_norm iterations": lambda lib: (
        lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)
    ),
    "parametrized spectral_norm dim": lambda lib: lib.nn.utils.parametrizations.spectral_norm(
        lib.nn.Linear(2, 2), dim=2
    ),
    "spectral_norm no parameter": lambda lib: lib.nn.utils.spectral_norm(
        lib.nn.Linear(2, 2, bias=False), name="bias"
    ),
    "parametrized spectral_norm no tensor": lambda lib: lib.nn.utils.parametrizations.spectral_norm(
        lib.nn.ReLU()
    ),
    "pickle parametrized": lambda lib: pickle.dumps(
        lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(2, 2))
    ),
    "deepcopy parametrized": lambda lib: deepcopied(lib),
    "skip_init not a module": lambda lib: lib.nn.utils.skip_init(int),
    "skip_init no device": lambda lib: lib.nn.utils.skip_init(lib.nn.ReLU),
}


def deprecation(lib) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.nn.utils.weight_norm(lib.nn.Linear(2, 2))
    return [f"{w.category.__name__}: {w.message}" for w in caught]


def torch_answers(torch) -> dict[str, dict]:
    """torch's records of each reparametrized layer, of `parametrize_record`, the errors and
    the deprecation warning."""
    answers = {record_key(*key): trained_record(torch, *key) for key in RECORDS}
    answers["parametrize"] = parametrize_record(torch)
    answers.update(outcome_answers(torch, {"error": ERRORS}, torch_names=True))
    text = [line.replace("torch.", "minitorch.") for line in deprecation(torch)]
    answers["deprecation"] = {"warnings": as_recorded(text)}
    return answers


ANSWERS = recorded_answers(__file__)


@pytest.mark.parametrize("key", RECORDS, ids=lambda key: record_key(*key))
def test_reparametrized_layers_train_and_are_removed_as_torchs(key):
    rtol, atol = (1e-4, 1e-5) if key[-1] == "float32" else (1e-10, 1e-12)
    ours = trained_record(minitorch, *key)
    assert_as_recorded(ours, ANSWERS[record_key(*key)], record_key(*key), rtol, atol)


def test_parametrize_is_torchs():
    assert_as_recorded(parametrize_record(minitorch), ANSWERS["parametrize"], "parametrize")


@pytest.mark.parametrize("case", ERRORS)
def test_errors_are_torchs(case):
    assert_outcome_as_recorded(ANSWERS, "error", case, ERRORS[case], torch_names=True)


def test_weight_norm_hook_form_warns_as_torch():
    assert deprecation(minitorch) == ANSWERS["deprecation"]["warnings"]


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_gradients_match_central_differences(dim):
    from minitorch.nn.utils.weight_norm import weight_from

    rng = case_rng("central", dim)
    v = minitorch.tensor(rng.standard_normal((3, 2, 2)), requires_grad=True)
    magnitude = minitorch.norm_except_dim(v.detach(), 2, -1 if dim is None else dim) * 1.5
    g = magnitude.detach().requires_grad_(True)
    assert minitorch.grad_check(lambda g, v: weight_from(v, g, -1 if dim is None else dim), g, v)


@pytest.mark.parametrize("dim", [0, 1])
def test_spectral_norm_gradients_match_central_differences(dim):
    """With $u$ and $v$ fixed (evaluation), $w / (u^T W v)$ as a function of $w$, in both
    forms."""
    from minitorch.nn.utils.spectral_norm import SpectralNorm

    rng = case_rng("central spectral", dim)
    w = minitorch.tensor(rng.standard_normal((3, 4, 2)), requires_grad=True)
    u, v = (minitorch.tensor(rng.standard_normal(n)) for n in ((3, 8), (4, 6))[dim])
    hook = SpectralNorm("weight", 1, dim, 1e-12)

    def hook_form(weight):
        stored = types.SimpleNamespace(weight_orig=weight, weight_u=u, weight_v=v)
        return hook.compute_weight(stored, do_power_iteration=False)

    assert minitorch.grad_check(hook_form, w)
    parametrization = minitorch.nn.utils.parametrizations._SpectralNorm(w.detach(), dim=dim)
    parametrization.eval()
    with minitorch.no_grad():
        parametrization._u.copy_(u)
        parametrization._v.copy_(v)
    assert minitorch.grad_check(parametrization, w)
    np.testing.assert_allclose(parametrization(w).detach().numpy(), hook_form(w).detach().numpy())


def test_spectral_norm_power_iteration_finds_the_largest_singular_value():
    """The 15 steps at registration bring $u^T W v$ to the top singular value of $W$."""
    weights = np.diag([5.0, 2.0, 1.0, 0.5]) @ case_rng("svd").standard_normal((4, 3)) * 0.3
    layer = minitorch.nn.Linear(3, 4, dtype=minitorch.float64)
    with minitorch.no_grad():
        layer.weight.copy_(minitorch.tensor(weights))
    minitorch.nn.utils.parametrizations.spectral_norm(layer)
    sigma = np.linalg.svd(weights, compute_uv=False)[0]
    layer.eval()
    np.testing.assert_allclose(weights / layer.weight.detach().numpy(), sigma, rtol=1e-6)


@pytest.mark.parametrize("form", ["weight_norm", "parametrizations.weight_norm"])
def test_reparametrized_state_dict_round_trips_through_a_file(form):
    rng = case_rng("round trip", form)
    first = reparametrized(minitorch, form, "Linear", 0, "float64", rng)
    buffer = io.BytesIO()
    minitorch.save(first.state_dict(), buffer)
    second = reparametrized(minitorch, form, "Linear", 0, "float64", case_rng("other"))
    result = second.load_state_dict(minitorch.load(io.BytesIO(buffer.getvalue())))
    assert repr(result) == "<All keys matched successfully>"
    x = minitorch.tensor(rng.standard_normal((2, 3)))
    np.testing.assert_array_equal(first(x).detach().numpy(), second(x).detach().numpy())


def test_skip_init_gives_a_module_of_the_asked_shapes():
    layer = minitorch.nn.utils.skip_init(minitorch.nn.Linear, 5, 2, dtype=minitorch.float64)
    assert type(layer) is minitorch.nn.Linear
    assert [tuple(p.shape) for p in layer.parameters()] == [(2, 5), (2,)]
    assert layer.weight.dtype is minitorch.float64
