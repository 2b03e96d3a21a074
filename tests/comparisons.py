"""Comparisons with torch of what a function gives, gradients included, live or recorded.

`compare(fn, arrays)` builds the same inputs in both libraries from NumPy
arrays (contiguous, or as a permuted view: strides that are not row-major),
runs `fn(lib, *inputs)`, and checks that the results agree in shape, dtype,
values and `grad_fn` name; for floating inputs it backpropagates the same
random weighting of the outputs in both and compares the gradients, and
checks minitorch's gradients against central differences (`grad_check`).
`comparison(lib, fn, arrays)` is what `compare` compares of one library's run, and
`assert_matches(fn, arrays, theirs)` checks minitorch's against it, so that a file's cases can
be recorded from torch (`comparison_answers`, `ComparedCases`) and checked without it
(`assert_compared_as_recorded`) exactly as `compare` checks them live. `leaf_answers` records
a case whose leaves are made inside it (a layer's parameters).
"""

from __future__ import annotations

import numpy as np
from helpers import (
    as_recorded,
    assert_outcome_as_recorded,
    described,
    differences,
    dtype_name,
    in_either,
    outcome_answers,
    recorded_answers,
    torch,
)

import minitorch


def build(lib, array: np.ndarray, permuted: bool, requires_grad: bool):
    """The leaf tensor and the tensor `fn` gets (a permuted view of the leaf when `permuted`)."""
    order = tuple(reversed(range(array.ndim)))
    source = np.transpose(array) if permuted else array
    dtype = getattr(lib, str(array.dtype) if array.dtype != np.bool_ else "bool")
    leaf = lib.tensor(source.tolist(), dtype=dtype, requires_grad=requires_grad)
    return leaf, (leaf.permute(*order) if permuted and array.ndim > 1 else leaf)


def tensors_in(result) -> list:
    """The tensors of a result: itself, or those of a (named) tuple or list."""
    if isinstance(result, (tuple, list)):
        return [t for item in result for t in tensors_in(item)]
    return [result] if isinstance(result, in_either(minitorch.Tensor, "Tensor")) else []


def run(lib, fn, arrays, permuted: bool, grad: bool):
    leaves, inputs = [], []
    for array in arrays:
        needs = grad and array.dtype.kind == "f"
        leaf, x = build(lib, array, permuted, needs)
        leaves.append(leaf)
        inputs.append(x)
    return leaves, inputs, fn(lib, *inputs)


def weighted_loss(outputs: list, lib, differentiable=lambda out: out.requires_grad):
    """$\\sum_k \\sum_i w_{k,i} \\, out_{k,i}$ over the `differentiable` outputs (fixed $w$)."""
    rng = np.random.default_rng(1)
    loss = None
    for out in outputs:
        if not differentiable(out):
            continue
        weights = rng.standard_normal(tuple(out.shape))
        term = (out * lib.tensor(weights.tolist(), dtype=out.dtype)).sum()
        loss = term if loss is None else loss + term
    return loss


def return_type(result) -> str | None:
    """The name of the type of a (values, indices) result ("max"), or None."""
    text = repr(result) if isinstance(result, tuple) else ""
    for prefix in ("minitorch.return_types.", "torch.return_types."):
        if text.startswith(prefix):
            return text[len(prefix) : text.index("(")]
    return None


def comparison_run(lib, fn, arrays, permuted=False, grad=True):
    """`run` of `fn` in `lib`, and what `compare` compares of it: a result without tensors
    ("result"); or its return type, each output tensor's values, dtype and `grad_fn` name
    ("output k", ...), whether any output is differentiable, and (`grad`) each leaf's gradient of
    the `weighted_loss` ("grad k", where it has one)."""
    leaves, inputs, result = run(lib, fn, arrays, permuted, grad)
    outputs = tensors_in(result)
    if not outputs:
        return {"result": as_recorded(result)}, leaves, inputs, result
    record = {"return type": return_type(result)}
    for k, out in enumerate(outputs):
        record[f"output {k}"] = described(out)
        record[f"output {k} dtype"] = dtype_name(out)
        record[f"output {k} grad_fn"] = None if out.grad_fn is None else out.grad_fn.name()
    loss = weighted_loss(outputs, lib) if grad else None
    record["differentiable"] = loss is not None
    if loss is not None:
        loss.backward()
        for k, leaf in enumerate(leaves):
            if leaf.grad is not None:
                record[f"grad {k}"] = described(leaf.grad)
    return record, leaves, inputs, result


def comparison(lib, fn, arrays, permuted=False, grad=True) -> dict:
    """What `compare` compares of `fn(lib, ...)` (`comparison_run`'s record)."""
    return comparison_run(lib, fn, arrays, permuted, grad)[0]


def assert_matches(
    fn, arrays, theirs: dict, *, permuted=False, grad=True, central=True, names=True, atol=1e-6
):
    """`fn(minitorch, ...)` gives `theirs` (torch's `comparison`, live or recorded): values
    within `atol` and relative 1e-6, gradients within 1e-6 and relative 1e-5, the same dtypes,
    return type and (`names`) `grad_fn` names; then (`central`) minitorch's gradients pass
    central differences."""
    ours, leaves, inputs, result = comparison_run(minitorch, fn, arrays, permuted, grad)
    if ours.get("return type"):
        fields = getattr(result, "_fields", ("values", "indices"))
        assert all(getattr(result, f) is result[k] for k, f in enumerate(fields))
    kept = [k for k in theirs if names or not k.endswith("grad_fn")]
    values = [k for k in kept if not k.startswith("grad ")]
    grads = [k for k in kept if k.startswith("grad ")]

    def pick(record, keys):
        return {k: record[k] for k in keys if k in record}

    found = differences(pick(ours, values), pick(theirs, values), 1e-6, atol)
    found += differences(pick(ours, grads), pick(theirs, grads), 1e-5, 1e-6)
    assert not found, "minitorch differs from torch: " + "\n".join(found)
    if not central or not theirs.get("differentiable"):
        return
    floats = [leaf for leaf in leaves if leaf.requires_grad]
    others = {k: x for k, x in enumerate(inputs) if not leaves[k].requires_grad}

    def as_leaves(*xs):
        given, it = [], iter(xs)
        for k in range(len(inputs)):
            if k in others:
                given.append(others[k])
            else:
                x = next(it)
                given.append(x.permute(*reversed(range(x.ndim))) if permuted else x)
        outputs = tensors_in(fn(minitorch, *given))
        return weighted_loss(outputs, minitorch, lambda out: out.dtype.is_floating_point)

    minitorch.grad_check(as_leaves, *floats)


def compare(fn, arrays, *, permuted=False, grad=True, central=True, names=True, atol=1e-6):
    """Assert that `fn(minitorch, ...)` and `fn(torch, ...)` agree, gradients included
    (`grad`), minitorch's with central differences too (`central`), node names (`names`)."""
    theirs = comparison(torch, fn, arrays, permuted, grad)
    options = {"permuted": permuted, "grad": grad, "central": central, "names": names}
    assert_matches(fn, arrays, theirs, **options, atol=atol)


def comparison_answers(lib, cases: dict[str, tuple]) -> dict[str, dict]:
    """`comparison` in `lib` of each case (key -> (fn, arrays, `compare`'s options))."""
    return {
        key: comparison(lib, fn, arrays, options.get("permuted", False), options.get("grad", True))
        for key, (fn, arrays, options) in cases.items()
    }


def assert_compared_as_recorded(cases, answers, key: str) -> None:
    """Case `key` of `cases` (as `comparison_answers`'), run in minitorch, gives the recorded
    `answers[key]`, as `compare` checks it."""
    fn, arrays, options = cases[key]
    assert_matches(fn, arrays, answers[key], **options)


class ComparedCases:
    """A test file's `compare` cases (key -> (fn, arrays, `compare`'s options)) and `errors`
    (case -> function of lib that raises), checked against the answers torch gave, recorded in
    tests/data for `test_file`."""

    def __init__(self, test_file, cases: dict[str, tuple], errors: dict):
        self.cases, self.errors = cases, errors
        self.answers = recorded_answers(test_file)

    def torch_answers(self, torch) -> dict[str, dict]:
        """What `torch` gives: each case's `comparison`, each error's outcome ("error case")."""
        errors = outcome_answers(torch, {"error": self.errors}, torch_names=True)
        return {**comparison_answers(torch, self.cases), **errors}

    def check(self, key: str) -> None:
        """Case `key` gives in minitorch what torch gave, as `compare` checks it."""
        assert_compared_as_recorded(self.cases, self.answers, key)

    def check_error(self, case: str) -> None:
        """Error `case` raises in minitorch what torch raised (the same type and text)."""
        function = self.errors[case]
        assert_outcome_as_recorded(self.answers, "error", case, function, torch_names=True)


def leaf_answers(lib, outputs: list, leaves: list) -> dict:
    """Each output's values and dtype ("output k", "output k dtype"), then the gradient of
    the `weighted_loss` of the outputs for each of `leaves` ("grad k"; None where it gets
    none): what a case whose leaves are made inside it (a layer's parameters) gives."""
    record = {f"output {k}": described(out) for k, out in enumerate(outputs)}
    record.update({f"output {k} dtype": dtype_name(out) for k, out in enumerate(outputs)})
    weighted_loss(outputs, lib).backward()
    for k, leaf in enumerate(leaves):
        record[f"grad {k}"] = None if leaf.grad is None else described(leaf.grad)
    return record
