"""GroupNorm, InstanceNorm1d/2d/3d, RMSNorm, LocalResponseNorm, BatchNorm3d, their
`nn.functional` forms, the `torch.*` forms of group, instance, layer, batch and RMS norm,
and `norm_except_dim`, against torch: outputs, `grad_fn` names, gradients of the input and
of every parameter (float32 and float64), running statistics over training steps and
evaluation, reprs, state dicts, warnings and error texts.

torch 2.13's answers are recorded in tests/data/test_nn_normalization_groups.json
(scripts/record_torch_answers.py from `torch_answers`); float64 gradients are also checked
by central differences.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest
from helpers import (
    answers_of,
    as_recorded,
    assert_as_recorded,
    assert_case_as_recorded,
    assert_outcome_as_recorded,
    case_rng,
    described,
    outcome_answers,
    recorded_answers,
)

import minitorch

DTYPES = ["float32", "float64"]


def functional(name: str, *args, **settings):
    """`fn(lib, x, *tensors)`: nn.functional's `name` of `x`, `args`, the other tensors."""
    return lambda lib, x, *t: getattr(lib.nn.functional, name)(x, *args, *t, **settings)


def torch_form(name: str, *args, before: int = 1, **settings):
    """`fn(lib, *tensors)`: `lib.<name>` of the first `before` tensors, `args`, the rest."""
    return lambda lib, *t: getattr(lib, name)(*t[:before], *args, *t[before:], **settings)


def arrays(key, *shapes):
    rng = case_rng(*key)
    return [rng.standard_normal(shape) for shape in shapes]


FUNCTIONAL_CASES = {
    "group_norm affine": (functional("group_norm", 2), [(3, 4, 5), (4,), (4,)]),
    "group_norm plain 4d": (functional("group_norm", 3), [(2, 6, 2, 3)]),
    "group_norm one group": (functional("group_norm", 1, eps=0.1), [(2, 3, 4)]),
    "group_norm 2d": (functional("group_norm", 2), [(3, 4), (4,), (4,)]),
    "instance_norm affine": (
        lambda lib, x, w, b: lib.nn.functional.instance_norm(x, weight=w, bias=b),
        [(2, 3, 5), (3,), (3,)],
    ),
    "instance_norm 4d eps": (functional("instance_norm", eps=0.5), [(2, 2, 3, 3)]),
    "instance_norm running": (
        lambda lib, x, m, v: lib.nn.functional.instance_norm(
            x, m.detach(), v.detach().abs(), use_input_stats=False
        ),
        [(2, 3, 4), (3,), (3,)],
    ),
    "rms_norm weight": (functional("rms_norm", (5,)), [(3, 4, 5), (5,)]),
    "rms_norm two dims": (functional("rms_norm", (2, 3), eps=0.01), [(4, 2, 3)]),
    "rms_norm default eps": (functional("rms_norm", [4]), [(3, 4)]),
    "local_response_norm 3d": (
        functional("local_response_norm", 3, alpha=0.5, beta=0.7, k=2.0),
        [(2, 5, 4)],
    ),
    "local_response_norm 4d even": (
        functional("local_response_norm", 2, alpha=0.3),
        [(2, 4, 2, 3)],
    ),
    "local_response_norm 5d wide": (
        functional("local_response_norm", 7, alpha=1.0, beta=0.5),
        [(1, 3, 2, 2, 2)],
    ),
    "torch.group_norm": (torch_form("group_norm", 2, None, None, 1e-3, False), [(2, 4, 3)]),
    "torch.group_norm weight": (torch_form("group_norm", 2), [(2, 4, 3), (4,), (4,)]),
    "torch.instance_norm": (
        torch_form("instance_norm", None, None, True, 0.1, 1e-5, False, before=3),
        [(2, 3, 4), (3,), (3,)],
    ),
    "torch.layer_norm": (torch_form("layer_norm", [4]), [(3, 4), (4,), (4,)]),
    "torch.batch_norm": (
        torch_form("batch_norm", None, None, True, 0.1, 1e-5, False, before=3),
        [(4, 3, 2), (3,), (3,)],
    ),
    "torch.rms_norm": (torch_form("rms_norm", [3]), [(2, 3), (3,)]),
    "torch.norm_except_dim 0": (torch_form("norm_except_dim"), [(3, 4, 2)]),
    "torch.norm_except_dim 1 cube": (torch_form("norm_except_dim", 3, 1), [(3, 4, 2)]),
    "torch.norm_except_dim last": (torch_form("norm_except_dim", 2, 2), [(3, 4, 2)]),
    "torch.norm_except_dim -2": (torch_form("norm_except_dim", 2, -2), [(3, 4, 2)]),
    "torch.norm_except_dim whole": (torch_form("norm_except_dim", 2, -1), [(3, 4)]),
    "torch.norm_except_dim vector": (torch_form("norm_except_dim", 1, 0), [(5,)]),
}

CASES = {
    f"{key} {dtype}": (fn, arrays((key,), *shapes), {"dtype": dtype})
    for key, (fn, shapes) in FUNCTIONAL_CASES.items()
    for dtype in DTYPES
}
TOLERANCE = {"float32": (2e-5, 2e-6), "float64": (1e-10, 1e-12)}


# Layers: key -> (class name, constructor arguments, input shape)
LAYERS = {
    "GroupNorm": ("GroupNorm", (2, 4), {}, (3, 4, 5)),
    "GroupNorm 4d no bias": ("GroupNorm", (3, 6), {"eps": 1e-3, "bias": False}, (2, 6, 2, 2)),
    "GroupNorm no affine": ("GroupNorm", (1, 3), {"affine": False}, (2, 3, 4)),
    "InstanceNorm1d": ("InstanceNorm1d", (3,), {}, (2, 3, 5)),
    "InstanceNorm1d tracked": (
        "InstanceNorm1d",
        (3,),
        {"affine": True, "track_running_stats": True},
        (2, 3, 5),
    ),
    "InstanceNorm1d unbatched": (
        "InstanceNorm1d",
        (3,),
        {"affine": True, "track_running_stats": True, "momentum": 0.3},
        (3, 6),
    ),
    "InstanceNorm1d momentum None": (
        "InstanceNorm1d",
        (2,),
        {"track_running_stats": True, "momentum": None},
        (3, 2, 4),
    ),
    "InstanceNorm2d tracked": (
        "InstanceNorm2d",
        (2,),
        {"affine": True, "track_running_stats": True, "bias": False},
        (2, 2, 3, 3),
    ),
    "InstanceNorm2d unbatched": ("InstanceNorm2d", (2,), {"affine": True}, (2, 3, 2)),
    "InstanceNorm3d": (
        "InstanceNorm3d",
        (2,),
        {"affine": True, "track_running_stats": True},
        (2, 2, 2, 2, 3),
    ),
    "InstanceNorm3d unbatched": ("InstanceNorm3d", (2,), {}, (2, 2, 3, 2)),
    "RMSNorm": ("RMSNorm", (4,), {}, (3, 4)),
    "RMSNorm two dims eps": ("RMSNorm", ((2, 3),), {"eps": 1e-2}, (4, 2, 3)),
    "RMSNorm no affine": ("RMSNorm", ([3],), {"elementwise_affine": False}, (2, 5, 3)),
    "LocalResponseNorm": ("LocalResponseNorm", (3,), {"alpha": 0.2, "k": 1.5}, (2, 4, 3)),
    "BatchNorm3d": ("BatchNorm3d", (2,), {}, (2, 2, 2, 3, 2)),
    "BatchNorm3d momentum None": ("BatchNorm3d", (3,), {"momentum": None}, (3, 3, 1, 2, 2)),
}
STEPS = 3


def layer_record(lib, key: str, dtype: str) -> dict:
    """A layer (learned values drawn from the case's seed, copied in) over `STEPS` training
    steps of fresh inputs and one step in evaluation: each step's output and the gradients of
    its input and parameters; the buffers after each step; repr and state dict keys."""
    name, args, settings, shape = LAYERS[key]
    kind = getattr(lib, dtype)
    options = {} if name == "LocalResponseNorm" else {"dtype": kind}
    layer = getattr(lib.nn, name)(*args, **settings, **options)
    rng = case_rng(key, dtype)
    with lib.no_grad():
        for parameter in layer.parameters():
            parameter.copy_(lib.tensor(rng.standard_normal(tuple(parameter.shape)), dtype=kind))
    record = {"repr": repr(layer), "keys": list(layer.state_dict())}
    for step in range(STEPS + 1):
        if step == STEPS:
            layer.eval()
        x = lib.tensor(rng.standard_normal(shape) * 2 + 1, dtype=kind, requires_grad=True)
        out = layer(x)
        record[f"output {step}"] = described(out)
        record[f"grad_fn {step}"] = out.grad_fn.name()
        (out * lib.tensor(rng.standard_normal(shape), dtype=kind)).sum().backward()
        record[f"input grad {step}"] = described(x.grad)
        for pname, parameter in layer.named_parameters():
            record[f"{pname} grad {step}"] = described(parameter.grad)
            parameter.grad = None
        for bname, buffer in layer.named_buffers():
            record[f"{bname} {step}"] = described(buffer)
    return record


ERRORS = {
    "group_norm not divisible": lambda lib: lib.nn.functional.group_norm(lib.ones(2, 4, 3), 3),
    "group_norm 1d": lambda lib: lib.nn.functional.group_norm(lib.ones(3), 1),
    "group_norm one value": lambda lib: lib.nn.functional.group_norm(lib.ones(1, 2), 2),
    "group_norm weight size": lambda lib: lib.group_norm(lib.ones(2, 4, 3), 2, lib.ones(3)),
    "group_norm long": lambda lib: lib.group_norm(lib.ones(2, 4, dtype=lib.long), 2),
    "group_norm zero groups": lambda lib: lib.nn.functional.group_norm(lib.ones(2, 4), 0),
    "GroupNorm not divisible": lambda lib: lib.nn.GroupNorm(3, 4),
    "instance_norm one position": lambda lib: lib.nn.functional.instance_norm(lib.ones(2, 3, 1)),
    "instance_norm no running": lambda lib: lib.nn.functional.instance_norm(
        lib.ones(2, 3, 2), lib.zeros(3), None, use_input_stats=False
    ),
    "instance_norm weight size": lambda lib: lib.nn.functional.instance_norm(
        lib.ones(2, 4, 3), weight=lib.ones(3)
    ),
    "InstanceNorm1d dims": lambda lib: lib.nn.InstanceNorm1d(3)(lib.ones(2, 2, 3, 5)),
    "InstanceNorm2d dims": lambda lib: lib.nn.InstanceNorm2d(3)(lib.ones(2, 3)),
    "InstanceNorm3d dims": lambda lib: lib.nn.InstanceNorm3d(3)(lib.ones(2, 3, 4)),
    "BatchNorm3d dims": lambda lib: lib.nn.BatchNorm3d(3)(lib.ones(2, 3, 4, 4)),
    "InstanceNorm affine features": lambda lib: lib.nn.InstanceNorm1d(3, affine=True)(
        lib.ones(2, 4, 5)
    ),
    "rms_norm shape": lambda lib: lib.rms_norm(lib.ones(2, 4, 3), [2, 2]),
    "rms_norm int shape": lambda lib: lib.rms_norm(lib.ones(2, 3), 3),
    "rms_norm empty shape": lambda lib: lib.nn.functional.rms_norm(lib.ones(2, 3), []),
    "rms_norm weight shape": lambda lib: lib.rms_norm(lib.ones(2, 3), [3], lib.ones(2)),
    "rms_norm long": lambda lib: lib.rms_norm(lib.ones(2, 3, dtype=lib.long), [3]),
    "InstanceNorm running stats given": lambda lib: lib.nn.InstanceNorm1d(3).load_state_dict(
        dict(lib.nn.InstanceNorm1d(3, track_running_stats=True).state_dict())
    ),
    "InstanceNorm running stats given leniently": lambda lib: lib.nn.InstanceNorm1d(
        3
    ).load_state_dict({"running_mean": lib.zeros(3), "weight": lib.ones(3)}, strict=False),
    "local_response_norm 2d": lambda lib: lib.nn.functional.local_response_norm(lib.ones(2, 3), 2),
    "local_response_norm empty": lambda lib: (
        lib.nn.functional.local_response_norm(lib.ones(2, 0, 3), 2).shape
    ),
}


def instance_warnings(lib) -> list[str]:
    """The warnings of an InstanceNorm without `affine` given the wrong number of channels."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.nn.InstanceNorm1d(3)(lib.ones(2, 5, 4))
        lib.nn.InstanceNorm2d(4)(lib.ones(2, 3, 3))
    return [str(w.message) for w in caught]


def torch_answers(torch) -> dict[str, dict]:
    """torch's answers: the functional cases (`run_case`), the layers' records, the errors and
    the warnings."""
    answers = answers_of(torch, CASES)
    for key in LAYERS:
        for dtype in DTYPES:
            answers[f"layer {key} {dtype}"] = layer_record(torch, key, dtype)
    answers.update(outcome_answers(torch, {"error": ERRORS}, torch_names=True))
    answers["warnings"] = {"messages": as_recorded(instance_warnings(torch))}
    return answers


ANSWERS = recorded_answers(__file__)


@pytest.mark.parametrize("key", CASES)
def test_functional_forms_are_torchs(key):
    dtype = CASES[key][2]["dtype"]
    assert_case_as_recorded(CASES, ANSWERS, key, *TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("key", LAYERS)
def test_layers_train_and_evaluate_as_torchs(key, dtype):
    ours = layer_record(minitorch, key, dtype)
    rtol, atol = (1e-4, 1e-5) if dtype == "float32" else TOLERANCE[dtype]
    assert_as_recorded(ours, ANSWERS[f"layer {key} {dtype}"], key, rtol, atol)


@pytest.mark.parametrize("case", ERRORS)
def test_errors_are_torchs(case):
    assert_outcome_as_recorded(ANSWERS, "error", case, ERRORS[case], torch_names=True)


def test_instance_norm_warns_as_torch_of_unused_num_features():
    assert instance_warnings(minitorch) == ANSWERS["warnings"]["messages"]
    assert len(ANSWERS["warnings"]["messages"]) == 2


@pytest.mark.parametrize("key", [k for k in FUNCTIONAL_CASES if "running" not in k])
def test_gradients_match_central_differences(key):
    fn, shapes = FUNCTIONAL_CASES[key]
    inputs = [minitorch.tensor(a, requires_grad=True) for a in arrays((key,), *shapes)]
    assert minitorch.grad_check(lambda *t: fn(minitorch, *t), *inputs)


@pytest.mark.parametrize("name", ["instance_norm", "batch_norm"])
def test_torch_forms_require_every_argument(name):
    """As torch's native forms, `cudnn_enabled` has no default (the text is Python's)."""
    with pytest.raises(TypeError, match="cudnn_enabled"):
        getattr(minitorch, name)(minitorch.ones(2, 3, 2), None, None, None, None, True, 0.1, 1e-5)


def test_rms_norm_default_eps_is_the_dtypes_machine_epsilon():
    """`eps=None`: $\\epsilon$ = finfo(dtype).eps, which decides the result of a zero row."""
    for kind, eps in ((minitorch.float32, 2.0**-23), (minitorch.float64, 2.0**-52)):
        x = minitorch.tensor([[1e-4, 0.0]], dtype=kind)
        expected = 1e-4 / np.sqrt(1e-8 / 2 + eps)
        got = minitorch.nn.functional.rms_norm(x, [2])[0, 0].item()
        assert got == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("key", ["GroupNorm", "InstanceNorm2d tracked", "RMSNorm"])
def test_state_dict_round_trips_through_a_file(key):
    name, args, settings, shape = LAYERS[key]
    first = getattr(minitorch.nn, name)(*args, **settings, dtype=minitorch.float64)
    rng = case_rng("round trip", key)
    with minitorch.no_grad():
        for tensor in first.state_dict().values():
            if tensor.is_floating_point():
                tensor.copy_(minitorch.tensor(rng.uniform(0.5, 1.5, tuple(tensor.shape))))
    buffer = io.BytesIO()
    minitorch.save(first.state_dict(), buffer)
    second = getattr(minitorch.nn, name)(*args, **settings, dtype=minitorch.float64)
    result = second.load_state_dict(minitorch.load(io.BytesIO(buffer.getvalue())))
    assert repr(result) == "<All keys matched successfully>"
    first.eval()
    second.eval()
    x = minitorch.tensor(rng.standard_normal(shape))
    np.testing.assert_array_equal(first(x).detach().numpy(), second(x).detach().numpy())


def test_instance_norm_refuses_running_stats_of_a_state_dict_without_metadata():
    """A documented difference: torch's own state dicts carry version metadata, with which
    torch lists running statistics given to an instance norm that keeps none as unexpected
    keys; minitorch's state dicts (like torch's read from a safetensors file) carry none, so
    minitorch raises torch's error for metadata-less state dicts (recorded above)."""
    tracked = minitorch.nn.InstanceNorm1d(3, track_running_stats=True).state_dict()
    with pytest.raises(RuntimeError, match="Unexpected running stats buffer"):
        minitorch.nn.InstanceNorm1d(3).load_state_dict(tracked, strict=False)


def test_instance_norm_pickles_and_copies_with_its_load_check():
    import copy
    import pickle

    layer = minitorch.nn.InstanceNorm2d(2, affine=True)
    for twin in (pickle.loads(pickle.dumps(layer)), copy.deepcopy(layer)):
        assert repr(twin) == repr(layer)
        with pytest.raises(RuntimeError, match="Unexpected running stats buffer"):
            twin.load_state_dict({**twin.state_dict(), "running_var": minitorch.ones(2)})
