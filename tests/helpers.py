"""Helpers the test files share: answers recorded from PyTorch, and live comparisons with it.

PyTorch is the oracle, not a prerequisite. The first part needs no torch:
`case_rng(*key)` draws a case's inputs from a seed of its own (the same inputs in every run,
whichever tests ran before); `run_case(lib, fn, arrays, ...)` runs `fn(lib, *tensors)` in
`lib` (minitorch, or torch: the same code) and describes what it gives (output values and
dtypes, `grad_fn` name, the gradients of a fixed random weighting of the output);
`recorded_answers(test_file)` reads what torch gave for a file's cases from
tests/data/<file>.json (written by scripts/record_torch_answers.py from the file's
`torch_answers(torch)`), and `assert_as_recorded(ours, expected, ...)` compares.
`assert_recorded_are_torchs(module, torch)` recomputes a file's answers with the installed
torch and compares them with the recorded ones (the live layer of those tests), as
`differences_from_record` does for the `--check` of the script.

The second part compares with torch live, for the test files that import torch themselves:
`pair(array)` makes a minitorch tensor and a torch tensor of the same values;
`assert_close(ours, theirs, what, rtol, atol)` checks that two tensors have the
same shape and close values.
`same_error(fn)` checks that both raise the same exception with the same text;
`assert_same(fn)` that `fn(lib)` gives the same result or the same error in both.
tests/comparisons.py compares whole runs, gradients included (`compare`, `ComparedCases`).
"""

from __future__ import annotations

import json
import re
import warnings
import zlib
from pathlib import Path

import numba
import numpy as np
import pytest

import minitorch

try:
    import torch
except ModuleNotFoundError:
    torch = None

DATA_DIR = Path(__file__).resolve().parent / "data"
# The test files whose cases torch answered, each with its `torch_answers(torch)` and its
# answers in DATA_DIR (scripts/record_torch_answers.py; tests/test_recorded_answers.py).
ANSWERED_FILES = (
    "test_nn_conv",
    "test_nn_pooling",
    "test_nn_class_losses",
    "test_nn_regression_losses",
    "test_nn_loss_modules",
    "test_nn_margin_likelihood_losses",
    "test_nn_distances_and_loss_layers",
    "test_nn_embedding_bag",
    "test_nn_adaptive_softmax",
    "test_optim_trajectories",
    "test_optim_lbfgs",
    "test_optim_adaptive_and_averaged",
    "test_lr_scheduler_warmups_cycles_chains",
    "test_tensor_conv",
    "test_tensor_edge_cases",
    "test_tensor_gather",
    "test_tensor_math",
    "test_tensor_reductions",
    "test_tensor_strided_views",
    "test_tensor_integer_math",
    "test_tensor_index_writes_and_mode",
    "test_tensor_gamma_functions",
    "test_tensor_indexing",
    "test_tensor_conveniences",
    "test_tensor_creation",
    "test_optim_options",
    "test_nn_utils_rnn",
    "test_nn_lstm",
    "test_nn_scaled_dot_product_attention",
    "test_nn_attention_modules",
    "test_utils_data_iterables_and_samplers",
    "test_nn_padding",
    "test_nn_adaptive_unpool_lp_pooling",
    "test_nn_dropouts",
    "test_nn_activation_forms",
    "test_nn_conv_transpose",
    "test_nn_resampling",
    "test_nn_grid_sample",
    "test_nn_normalization_groups",
    "test_nn_utils_parametrize",
    "test_nn_module_backward_hooks",
)
# How far a recomputed answer may be from the recorded one (another torch build may round
# differently): relative and absolute, by dtype; integers, booleans and names are exact.
RECORD_TOLERANCE = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-6)}


def record_tolerance(module) -> dict:
    """RECORD_TOLERANCE, or the test module's own `RECORD_TOLERANCE` where its cases amplify
    rounding (a long optimizer run): then a record is matched only as closely as the module's
    tests compare minitorch with it."""
    return getattr(module, "RECORD_TOLERANCE", RECORD_TOLERANCE)


def case_rng(*key) -> np.random.Generator:
    """NumPy's generator seeded by the text of `key` (a case's parameters)."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def tensor_of(lib, array, dtype: str | None = None, requires_grad=False, transposed=False):
    """`array` as a leaf tensor of `lib` of `dtype` (by default the array's); `transposed`: a
    non-contiguous view, stored with the last two dims swapped."""
    array = np.asarray(array)
    kind = getattr(lib, dtype or str(array.dtype))
    if transposed:
        tensor = lib.tensor(np.swapaxes(array, -1, -2), dtype=kind).transpose(-1, -2)
    else:
        tensor = lib.tensor(array, dtype=kind)
    return tensor.requires_grad_(bool(requires_grad) and kind.is_floating_point)


def described(tensor) -> np.ndarray:
    """A tensor's values as a NumPy array of its dtype."""
    return np.array(tensor.detach().numpy())


def dtype_name(tensor) -> str:
    return str(tensor.dtype).split(".")[-1]


def run_case(lib, fn, arrays, differentiable=None, dtype=None, transposed=False, seed=0) -> dict:
    """What `fn(lib, *tensors)` gives for tensors of `arrays` (of `dtype`; `differentiable`:
    which require grad, by default all; `transposed`: the first as a non-contiguous view): each
    output's values ("output", or "output k" of a tuple), dtype and `grad_fn` name; then the
    gradient ("grad k") of each differentiable input of $\\sum_i w_i \\, out_i$, $w$ drawn from
    `seed`, over the outputs that require grad."""
    differentiable = differentiable or [True] * len(arrays)
    inputs = [
        tensor_of(lib, a, dtype, grad, transposed and k == 0)
        for k, (a, grad) in enumerate(zip(arrays, differentiable, strict=True))
    ]
    result = fn(lib, *inputs)
    outputs = list(result) if isinstance(result, tuple) else [result]
    names = ["output"] if len(outputs) == 1 else [f"output {k}" for k in range(len(outputs))]
    record = {}
    for name, out in zip(names, outputs, strict=True):
        record[name] = described(out)
        record[f"{name} dtype"] = dtype_name(out)
        record[f"{name} grad_fn"] = None if out.grad_fn is None else out.grad_fn.name()
    rng = np.random.default_rng(seed)
    loss = None
    for out in outputs:
        if out.requires_grad:
            weights = lib.tensor(rng.standard_normal(tuple(out.shape)), dtype=out.dtype)
            loss = (out * weights).sum() if loss is None else loss + (out * weights).sum()
    if loss is not None:
        loss.backward()
        for k, x in enumerate(inputs):
            if x.requires_grad:
                record[f"grad {k}"] = None if x.grad is None else described(x.grad)
    return record


def answers_of(lib, cases: dict[str, tuple]) -> dict[str, dict]:
    """`run_case` of each case (key -> (fn, arrays, run_case's options)) in `lib`."""
    return {
        key: run_case(lib, fn, arrays, **options) for key, (fn, arrays, options) in cases.items()
    }


def assert_case_as_recorded(cases, answers, key: str, rtol=None, atol=None) -> None:
    """Case `key` of `cases`, run in minitorch, gives the recorded `answers[key]`."""
    fn, arrays, options = cases[key]
    assert_as_recorded(run_case(minitorch, fn, arrays, **options), answers[key], key, rtol, atol)


def _to_json(value):
    if isinstance(value, np.ndarray):
        return {"dtype": str(value.dtype), "shape": list(value.shape), "values": value.tolist()}
    return value


def _from_json(value):
    if isinstance(value, dict) and set(value) == {"dtype", "shape", "values"}:
        return np.array(value["values"], dtype=value["dtype"]).reshape(value["shape"])
    return value


def answers_path(test_file) -> Path:
    return DATA_DIR / f"{Path(test_file).stem}.json"


def write_answers(test_file, answers: dict[str, dict], version: str) -> Path:
    """Write `answers` (case key -> record) for `test_file`, stamped with torch's `version`."""
    path = answers_path(test_file)
    lines = [f"{json.dumps(key)}: {json.dumps(answers[key], default=_to_json)}" for key in answers]
    head = f'{{"torch": {json.dumps(version)}, "answers": {{\n'
    path.write_text(head + ",\n".join(lines) + "\n}}\n")
    return path


def read_answers(test_file) -> tuple[str, dict[str, dict]]:
    """The torch version and the answers recorded for `test_file`."""
    data = json.loads(answers_path(test_file).read_text())
    answers = {
        key: {name: _from_json(value) for name, value in record.items()}
        for key, record in data["answers"].items()
    }
    return data["torch"], answers


class RecordedAnswers:
    """The answers torch gave for the cases of a test file (case key -> record), read from
    tests/data on first use."""

    def __init__(self, test_file):
        self.path = answers_path(test_file)
        self.answers: dict[str, dict] | None = None

    def __getitem__(self, key: str) -> dict:
        if self.answers is None:
            self.answers = read_answers(self.path)[1]
        if key not in self.answers:
            raise KeyError(
                f"{self.path.name} has no answer for case {key}: "
                "python scripts/record_torch_answers.py records them (it needs torch)"
            )
        return self.answers[key]


def recorded_answers(test_file) -> RecordedAnswers:
    """The answers torch gave for the cases of `test_file`, read when first needed."""
    return RecordedAnswers(test_file)


def differences(
    ours: dict, expected: dict, rtol=None, atol=None, tolerance=RECORD_TOLERANCE
) -> list[str]:
    """How record `ours` differs from record `expected`: names, shapes, dtypes, values (within
    `rtol`/`atol`, by default `tolerance` of the dtype; NaN equals NaN)."""
    found = []
    if sorted(ours) != sorted(expected):
        return [f"entries {sorted(ours)} != {sorted(expected)}"]
    for name, want in expected.items():
        got = ours[name]
        if not isinstance(want, np.ndarray):
            if got != want:
                found.append(f"{name}: {got!r} != {want!r}")
            continue
        if got is None or got.shape != want.shape or got.dtype != want.dtype:
            shape = None if got is None else (got.shape, str(got.dtype))
            found.append(f"{name}: {shape} != {(want.shape, str(want.dtype))}")
            continue
        r, a = tolerance.get(str(want.dtype), (0, 0))
        r, a = (r if rtol is None else rtol), (a if atol is None else atol)
        if not np.allclose(got, want, rtol=r, atol=a, equal_nan=True):
            found.append(f"{name}:\n  got      {got.tolist()}\n  expected {want.tolist()}")
    return found


def assert_as_recorded(ours: dict, expected: dict, what: str, rtol=None, atol=None) -> None:
    """Record `ours` (of minitorch) matches `expected` (torch's, recorded)."""
    found = differences(ours, expected, rtol, atol)
    assert not found, f"{what}: " + "\n".join(found)


def live_answers(module, torch) -> dict[str, dict]:
    """What `torch` gives for the cases of test module `module` (its notes on slow paths
    silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return module.torch_answers(torch)


def differences_from_record(module, answers: dict, recorded: dict) -> list[str]:
    """How `answers` to the cases of test module `module` differ from its `recorded` ones: the
    cases, then each case's values (`differences`, within the module's `record_tolerance`)."""
    problems = (
        [] if sorted(recorded) == sorted(answers) else ["the cases are not the recorded ones"]
    )
    tolerance = record_tolerance(module)
    for key in sorted(set(recorded) & set(answers)):
        found = differences(answers[key], recorded[key], tolerance=tolerance)
        problems += [f"case {key}: {line}" for line in found]
    return problems


def assert_recorded_are_torchs(module, torch) -> None:
    """The answers recorded for test module `module` are what the installed `torch` gives."""
    _, recorded = read_answers(module.__file__)
    problems = differences_from_record(module, live_answers(module, torch), recorded)
    assert not problems, "\n".join(problems)


def pair(array, dtype: str | None = None, requires_grad: bool = False, transposed: bool = False):
    """The same values as a minitorch tensor and a torch tensor, both of `dtype` (a name such as
    "float64"; by default the array's). `requires_grad` applies to floating dtypes only;
    `transposed`: minitorch's is a non-contiguous view (stored with the last two dims swapped)."""
    return (
        tensor_of(minitorch, array, dtype, requires_grad, transposed),
        tensor_of(torch, array, dtype, requires_grad),
    )


def assert_close(ours, theirs, what: str, rtol: float, atol: float | None = None, allow_none=False):
    """`ours` (minitorch) and `theirs` (torch, or minitorch) are tensors of the same shape whose
    values agree within `rtol` and `atol` (by default `atol` = `rtol`); `allow_none`: or both
    are None (a parameter, gradient or buffer that neither library has)."""
    if allow_none and ours is None and theirs is None:
        return
    assert theirs is not None, f"{what}: torch has no value, minitorch has {ours}"
    assert ours is not None, f"{what}: minitorch has no value, torch has {theirs}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {ours.shape} vs {theirs.shape}"
    np.testing.assert_allclose(
        ours.detach().numpy(),
        theirs.detach().numpy(),
        rtol=rtol,
        atol=rtol if atol is None else atol,
        err_msg=what,
    )


def x23(lib):
    """[[0., 1., 2.], [3., 4., 5.]] in `lib` (minitorch or torch)."""
    return lib.arange(6.0).reshape(2, 3)


def same_error(fn) -> None:
    """Assert that `fn(minitorch)` and `fn(torch)` raise the same exception type and text."""
    errors = []
    for lib in (minitorch, torch):
        with pytest.raises(Exception) as caught:
            fn(lib)
        errors.append((caught.type.__name__, str(caught.value).replace("minitorch.", "torch.")))
    assert errors[0] == errors[1]


def floats(shape, seed: int = 0, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    """Distinct float64 values in [low, high) (no ties: sorting has one answer)."""
    rng = np.random.default_rng(seed)
    return rng.uniform(low, high, size=shape)


def outcome(function, lib, torch_names: bool = False):
    """What `function(lib)` returns, or ("raised", type name, message) of what it raises
    (`torch_names`: with "minitorch." written "torch.", as torch's text names its own; and
    on cuda a legacy type "minitorch.cuda.FloatTensor" as the CPU's "torch.FloatTensor", which
    the answers recorded from CPU torch name)."""
    try:
        return function(lib)
    except Exception as error:  # noqa: BLE001 -- the exception is the result being compared
        message = str(error)
        if torch_names:
            message = message.replace("minitorch.cuda.", "torch.").replace("minitorch.", "torch.")
        return ("raised", type(error).__name__, message)


# A legacy tensor type's name, `torch.FloatTensor` or `minitorch.LongTensor`, without a device.
CPU_TYPE_NAME = re.compile(r"\b((?:mini)?torch)\.(\w+Tensor)\b")


def types_named_for_the_test_device(text: str) -> str:
    """`text` (torch's on the CPU, naming tensors' legacy types such as `torch.FloatTensor` or
    `minitorch.LongTensor`) with the names torch gives them on the test's default device:
    `torch.cuda.FloatTensor`, `minitorch.cuda.LongTensor` on cuda."""
    if minitorch.get_default_device().type != "cuda":
        return text
    return CPU_TYPE_NAME.sub(r"\1.cuda.\2", text)


def statistical_draws(count: int) -> int:
    """How many random draws a statistical test takes: `count`, or a tenth of it where the test
    runs on cuda in Numba's CUDA simulator, which makes every element of a kernel a Python call
    (on a GPU, scripts/check_gpu.sh, it takes them all). The tests bound their statistics by
    standard errors of the number of draws they get, so fewer draws widen the bounds."""
    simulated = numba.config.ENABLE_CUDASIM and minitorch.get_default_device().type == "cuda"
    return max(1, count // 10) if simulated else count


def in_either(ours: type, name: str) -> tuple[type, ...]:
    """Class `ours` of minitorch, and torch's class `name` where torch is installed."""
    return (ours,) if torch is None else (ours, getattr(torch, name))


def describe(value, strides: bool = False, as_text: bool = False):
    """Tensors by shape (and `strides`), dtype and values (`as_text`: the values' text, so that
    NaN equals NaN and -0.0 differs from 0.0); sizes as tuples, dtypes by name; tuples item by
    item; text without the device of a cuda result when tests run on cuda (torch runs on the
    cpu)."""
    if isinstance(value, in_either(minitorch.Tensor, "Tensor")):
        values = value.detach().numpy().tolist()
        layout = (tuple(value.shape), value.stride()) if strides else (tuple(value.shape),)
        dtype = str(value.dtype).split(".")[-1]
        return ("tensor", *layout, dtype, str(values) if as_text else values)
    if isinstance(value, in_either(minitorch.Size, "Size")):
        return tuple(value)
    if isinstance(value, in_either(minitorch.dtypes.DType, "dtype")):
        return str(value).split(".")[-1]
    if isinstance(value, (tuple, list)):
        return tuple(describe(v, strides, as_text) for v in value)
    if isinstance(value, str) and minitorch.get_default_device().type == "cuda":
        return value.replace(", device='cuda:0'", "")
    return value


def as_recorded(value):
    """`value` as JSON keeps it (tuples as lists), to compare with a recorded one."""
    return json.loads(json.dumps(value))


def outcome_answers(lib, tables: dict[str, dict], **options) -> dict[str, dict]:
    """The `describe`d `outcome` in `lib` of each function of `tables` (table name ->
    {case -> function(lib)}), by "table case"; `options`: `strides`, `as_text`, `torch_names`."""
    strides, as_text = options.get("strides", False), options.get("as_text", False)
    names = options.get("torch_names", False)
    answers = {}
    for table, functions in tables.items():
        for case, function in functions.items():
            described_outcome = describe(outcome(function, lib, names), strides, as_text)
            answers[f"{table} {case}"] = {"outcome": as_recorded(described_outcome)}
    return answers


def assert_outcome_as_recorded(answers, table: str, case: str, function, **options) -> None:
    """`function(minitorch)` gives torch's recorded outcome (`outcome_answers`' options); NaN
    equals NaN."""
    ours = outcome_answers(minitorch, {table: {case: function}}, **options)[f"{table} {case}"]
    expected = answers[f"{table} {case}"]
    assert json.dumps(ours) == json.dumps(expected), f"\nminitorch: {ours}\ntorch:     {expected}"


def assert_same(
    function, quiet: bool = False, strides: bool = False, as_text: bool = False, torch_names=False
):
    """`function(minitorch)` and `function(torch)` give the same `describe`d result or error
    (`quiet`: with the warnings both may give silenced; the other options: `describe`'s and
    `outcome`'s)."""
    with warnings.catch_warnings():
        if quiet:
            warnings.simplefilter("ignore")
        ours, theirs = (
            describe(outcome(function, lib, torch_names), strides, as_text)
            for lib in (minitorch, torch)
        )
    assert ours == theirs, f"\nminitorch: {ours}\ntorch:     {theirs}"


def assert_values_as_recorded(cases, answers, key: str, rtol=None, atol=None) -> None:
    """Case `key` of `cases` (`run_case`'s), run in minitorch with warnings silenced, gives the
    recorded values, dtypes and gradients; `grad_fn` names are not compared (for operations
    composed here of others where torch records one node of its own)."""
    fn, arrays, options = cases[key]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = run_case(minitorch, fn, arrays, **options)

    def unnamed(record: dict) -> dict:
        return {k: v for k, v in record.items() if not k.endswith("grad_fn")}

    assert_as_recorded(unnamed(ours), unnamed(answers[key]), key, rtol, atol)


def assert_case_passes_central_differences(cases, key: str) -> None:
    """minitorch's gradients of case `key` of `cases` (`run_case`'s), in its `differentiable`
    floating inputs, agree with central differences (`grad_check`)."""
    fn, arrays, options = cases[key]
    tensors = [minitorch.tensor(np.asarray(a)) for a in arrays]
    wanted = [
        bool(g) and x.is_floating_point()
        for x, g in zip(tensors, options["differentiable"], strict=True)
    ]
    assert any(wanted), f"{key} has no input to differentiate"

    def of_leaves(*leaves):
        given = iter(leaves)
        inputs = [next(given) if w else x for x, w in zip(tensors, wanted, strict=True)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(minitorch, *inputs)

    leaves = [x.requires_grad_() for x, w in zip(tensors, wanted, strict=True) if w]
    assert minitorch.grad_check(of_leaves, *leaves)


class RecordedValueCases:
    """A test file's `run_case` cases (key -> (fn, arrays, options)) and `errors` (case ->
    function of lib that raises), checked against torch's answers recorded for `test_file`:
    values, dtypes and gradients (`assert_values_as_recorded`, at float32's tolerance for a
    key that names 'float32'), error types and texts."""

    TOLERANCE = {"float32": (2e-5, 2e-6), "float64": (1e-10, 1e-12)}

    def __init__(self, test_file, cases: dict[str, tuple], errors: dict):
        self.cases, self.errors = cases, errors
        self.answers = recorded_answers(test_file)

    def torch_answers(self, torch) -> dict[str, dict]:
        """What `torch` gives for each case and error, its warnings silenced."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            answers = answers_of(torch, self.cases)
            answers.update(outcome_answers(torch, {"error": self.errors}, torch_names=True))
        return answers

    def check(self, key: str) -> None:
        rtol, atol = self.TOLERANCE["float32" if "'float32'" in key else "float64"]
        assert_values_as_recorded(self.cases, self.answers, key, rtol, atol)

    def check_error(self, case: str) -> None:
        function = self.errors[case]
        assert_outcome_as_recorded(self.answers, "error", case, function, torch_names=True)
