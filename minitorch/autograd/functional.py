"""`torch.autograd.functional`: Jacobians, Hessians and their products with vectors.

Everything here is `autograd.grad` applied to a function of tensors:

- `vjp(f, x, v)` is $v^T J_f(x)$: one backward pass from the output gradient $v$.
- `jvp(f, x, v)` is $J_f(x) v$. Reverse mode gives $u \\mapsto J^T u$, which is linear in
  $u$, so differentiating $J^T u$ with respect to $u$ (for any $u$, say zeros) in the
  direction $v$ gives $J v$: two backward passes, "the double-backward trick".
- `jacobian(f, x)` stacks one vjp per output element: row $i$ is $e_i^T J$.
- `vhp(f, x, v)` is $v^T H$: the vjp of the gradient; `hvp` is $H v$ by the trick above
  (the two agree when $f$ is twice continuously differentiable, as $H$ is then symmetric).
- `hessian(f, x)` is the Jacobian of the gradient.

`inputs` is a tensor or a tuple of tensors, passed to `f` as positional arguments, and the
results have the same structure. The functions differentiate fresh copies of the inputs,
so the tensors given are never changed; results carry no graph unless
`create_graph=True`. A part of the output that does not depend on an input gives zeros,
or an error with `strict=True`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..tensors import creation
from ..tensors.base import TensorBase
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from .graph import grad as autograd_grad

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]

STRATEGIES = ("forward-mode", "reverse-mode")


def as_tuple(value, what: str, fn_name: str) -> tuple[bool, tuple]:
    """(whether `value` was a tuple, `value` as a tuple of tensors), or torch's TypeError."""
    was_tuple = isinstance(value, tuple)
    values = value if was_tuple else (value,)
    for k, element in enumerate(values):
        if not isinstance(element, TensorBase):
            where = f"value at index {k}" if was_tuple else f"given {what}"
            raise TypeError(
                f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                f"but the {where} has type {type(element)}."
            )
    return was_tuple, values


def fresh(tensors: tuple, create_graph: bool, requires_grad: bool = True) -> tuple:
    """New tensor objects to differentiate: connected to the caller's graph only when
    `create_graph` asks for it (and the tensor has one), detached otherwise."""
    return tuple(
        t.view_as(t) if create_graph and t.requires_grad
        else t.detach().requires_grad_(requires_grad)
        for t in tensors
    )  # fmt: skip


def as_given(results, was_tuple):
    """Undo `as_tuple`: a tuple stays a tuple, a lone tensor is unwrapped (for nested
    results, `was_tuple` is a pair: (outputs, inputs))."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        results = results if inner else tuple(row[0] for row in results)
        return results if outer else results[0]
    return results if was_tuple else results[0]


def without_graph(results, create_graph: bool):
    """`results` (nested tuples of tensors) detached unless `create_graph`."""
    if create_graph:
        return results
    if isinstance(results, TensorBase):
        return results.detach()
    return tuple(without_graph(r, create_graph) for r in results)


def finished(outputs, outputs_tuple, product, product_tuple, create_graph: bool) -> tuple:
    """(outputs, product) in the structure they were given, without graph unless asked."""
    return (
        as_given(without_graph(outputs, create_graph), outputs_tuple),
        as_given(without_graph(product, create_graph), product_tuple),
    )


def check_v(v: tuple, like: tuple, like_is_tuple: bool) -> None:
    """`v` must have one tensor of the same size per tensor of `like`."""
    if len(v) != len(like):
        if like_is_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(like)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for k, (given, reference) in enumerate(zip(v, like, strict=True)):
        if given.shape != reference.shape:
            entry = f"Entry {k} in " if like_is_tuple else ""
            raise RuntimeError(
                f"{entry}v has invalid size: should be {reference.shape} but got {given.shape}."
            )


def check_outputs_require_grad(outputs: tuple, strict: bool) -> None:
    if strict:
        for k, out in enumerate(outputs):
            if not out.requires_grad:
                raise RuntimeError(
                    f"Output {k} of the user-provided function does not require gradients. The"
                    " outputs must be computed in a differentiable manner from the input when "
                    "running in strict mode."
                )


def grads(outputs: tuple, inputs: tuple, grad_outputs=None, create_graph=False) -> tuple:
    """`autograd.grad` of the outputs that have a graph (with their `grad_outputs`; None
    and graph-less outputs are left out), None for each input none of them uses."""
    grad_outputs = (None,) * len(outputs) if grad_outputs is None else grad_outputs
    pairs = [
        (o, g)
        for o, g in zip(outputs, grad_outputs, strict=True)
        if o is not None and o.requires_grad
    ]
    if not pairs:
        return (None,) * len(inputs)
    return autograd_grad(
        [o for o, _ in pairs],
        list(inputs),
        [g for _, g in pairs],
        retain_graph=True,
        create_graph=create_graph,
        allow_unused=True,
    )


def zeros_where_unused(
    found: tuple, like: tuple, strict: bool, create_graph: bool, missing: str, order="jacobian"
) -> tuple:
    """`found` with zeros in place of None. With `strict`, None is the error `missing`
    (`{k}` the input's index) and, with `create_graph` too, so is a result without a graph
    (a derivative of this `order` that does not depend on the inputs)."""
    results = []
    for k, g in enumerate(found):
        if g is None:
            if strict:
                raise RuntimeError(missing.format(k=k))
            g = creation.zeros_like(like[k])
        elif strict and create_graph and not g.requires_grad:
            raise RuntimeError(
                f"The {order} of the user-provided function is independent of input {k}. This "
                "is not allowed in strict mode when create_graph=True."
            )
        results.append(g)
    return tuple(results)


def vector_product(ends, starts, v, like, strict, create_graph, missing, order="jacobian"):
    """$v^T \\partial\\,\\mathrm{ends} / \\partial\\,\\mathrm{starts}$ (`v` carried back from
    the tuple `ends` to the tuple `starts`), recorded only with `create_graph` or grad mode on;
    zeros shaped as `like` where a start is unused (`zeros_where_unused`, with `missing` and
    `order`)."""
    with set_grad_enabled(create_graph or is_grad_enabled()):
        found = grads(ends, starts, v, create_graph)
        return zeros_where_unused(found, like, strict, create_graph, missing, order)


def need_v_or_single_element(v, tensors: tuple, of_what: str) -> None:
    if v is None and (len(tensors) != 1 or tensors[0].numel() != 1):
        raise RuntimeError(
            f"The vector v can only be None if the {of_what} a single Tensor with a single element."
        )


@enable_grad()
def prepare(func: Callable, inputs, v, fn_name: str, create_graph: bool, strict: bool, v_like):
    """Run `func` on fresh inputs in grad mode; check `v` against the inputs or outputs."""
    inputs_tuple, inputs = as_tuple(inputs, "inputs", fn_name)
    inputs = fresh(inputs, create_graph)
    if v is not None:
        _, v = as_tuple(v, "v", fn_name)
        v = fresh(v, create_graph, requires_grad=False)
    if v_like == "inputs":
        if v is None:
            need_v_or_single_element(v, inputs, "input to the user-provided function is")
        else:
            check_v(v, inputs, inputs_tuple)
    outputs_tuple, outputs = as_tuple(
        func(*inputs), "outputs of the user-provided function", fn_name
    )
    check_outputs_require_grad(outputs, strict)
    if v_like == "outputs":
        if v is None:
            need_v_or_single_element(v, outputs, "user-provided function returns")
        else:
            check_v(v, outputs, outputs_tuple)
    return inputs_tuple, inputs, outputs_tuple, outputs, v


def vjp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), $v^T J$): the vector-Jacobian product at `inputs`.

    >>> import minitorch
    >>> from minitorch.autograd.functional import vjp
    >>> vjp(lambda x: x * x, minitorch.tensor([1.0, 2.0]), minitorch.tensor([1.0, 1.0]))
    (tensor([1., 4.]), tensor([2., 4.]))
    """
    inputs_tuple, inputs, outputs_tuple, outputs, v = prepare(
        func, inputs, v, "vjp", create_graph, strict, "outputs"
    )
    product = vector_product(
        outputs, inputs, v, inputs, strict, create_graph,
        "The output of the user-provided function is independent of input {k}. This is "
        "not allowed in strict mode.",
    )  # fmt: skip
    return finished(outputs, outputs_tuple, product, inputs_tuple, create_graph)


def jvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), $J v$): the Jacobian-vector product at `inputs`.

    >>> import minitorch
    >>> from minitorch.autograd.functional import jvp
    >>> jvp(lambda x: x * x, minitorch.tensor([1.0, 2.0]), minitorch.tensor([1.0, 0.0]))
    (tensor([1., 4.]), tensor([2., 0.]))
    """
    with enable_grad():
        inputs_tuple, inputs, outputs_tuple, outputs, v = prepare(
            func, inputs, v, "jvp", create_graph, strict, "inputs"
        )
        # J^T u for a u that requires grad; its value does not matter (the map is linear)
        u = tuple(creation.zeros_like(out, requires_grad=True) for out in outputs)
        transposed = grads(outputs, inputs, u, create_graph=True)
        if strict:
            for k, g in enumerate(transposed):
                if g is None:
                    raise RuntimeError(
                        f"The output of the user-provided function is independent of input {k}."
                        " This is not allowed in strict mode."
                    )
                if not g.requires_grad:
                    raise RuntimeError(
                        f"The gradient with respect to input {k} is independent of the inputs "
                        "of the user-provided function. This is not allowed in strict mode."
                    )
    product = vector_product(
        transposed, u, v, outputs, strict, create_graph,
        "The gradient with respect to the input is independent of entry {k} in the "
        "grad_outputs when using the double backward trick to compute forward mode "
        "gradients. This is not allowed in strict mode.",
    )  # fmt: skip
    return finished(outputs, outputs_tuple, product, outputs_tuple, create_graph)


def check_strategy(strategy: str, vectorize: bool, create_graph: bool) -> None:
    if strategy not in STRATEGIES:
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode" and create_graph:
        raise NotImplementedError(
            "torch.autograd.functional.jacobian: `create_graph=True` and "
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`create_graph=False` or `strategy="reverse-mode"`.'
        )
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
            "only implemented for `vectorize=True`."
        )


def jacobian(
    func: Callable,
    inputs,
    create_graph=False,
    strict=False,
    vectorize=False,
    strategy="reverse-mode",
) -> Any:
    """$J_{ij} = \\partial\\, out_i / \\partial\\, in_j$, of shape `out.shape + in.shape`.

    With several inputs (a tuple) the result has one Jacobian per input; with several
    outputs, one tuple of those per output. Row $i$ is the vjp with the unit vector $e_i$,
    one backward pass per output element. `vectorize=True` (in torch: all rows in one
    batched pass) and `strategy="forward-mode"` (columns by jvp) give the same numbers.

    >>> import minitorch
    >>> from minitorch.autograd.functional import jacobian
    >>> jacobian(lambda x: x * x, minitorch.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    check_strategy(strategy, vectorize, create_graph)
    if vectorize and strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
            "supported together. Please either set `strict=False` or `vectorize=False`."
        )
    with enable_grad():
        inputs_tuple, inputs = as_tuple(inputs, "inputs", "jacobian")
        inputs = fresh(inputs, create_graph)
        outputs_tuple, outputs = as_tuple(
            func(*inputs), "outputs of the user-provided function", "jacobian"
        )
        check_outputs_require_grad(outputs, strict)
        per_output = []
        for i, out in enumerate(outputs):
            # row e of each input's Jacobian is the gradient of output element e; the rows
            # are written into place, which autograd records when create_graph asks for it
            jacobians = [
                creation.zeros(out.numel(), *x.shape, dtype=x.dtype, device=x.device)
                for x in inputs
            ]
            flat = out.reshape(-1)
            for element in range(out.numel()):
                found = grads((flat[element],), inputs, create_graph=create_graph)
                row = zeros_where_unused(
                    found, inputs, strict, create_graph,
                    f"Output {i} of the user-provided function is independent of input "
                    "{k}. This is not allowed in strict mode.",
                )  # fmt: skip
                for jac, g in zip(jacobians, row, strict=True):
                    jac[element] = g
            per_output.append(
                tuple(
                    jac.view(*out.shape, *x.shape) for jac, x in zip(jacobians, inputs, strict=True)
                )
            )
    return as_given(without_graph(tuple(per_output), create_graph), (outputs_tuple, inputs_tuple))


def check_gradient_has_graph(gradient: tuple, strict: bool) -> None:
    """With `strict`: a gradient that does not depend on the inputs (a linear function) has
    no second derivative to take."""
    if strict:
        for k, g in enumerate(gradient):
            if g is None or not g.requires_grad:
                raise RuntimeError(
                    "While computing the hessian, found that the jacobian of the user-provided"
                    f" function with respect to input {k} is independent of the input. This is "
                    "not allowed in strict mode. You should ensure that your function is twice "
                    "differentiable and that the jacobian depends on the inputs (this would be "
                    "violated by a linear function for example)."
                )


@enable_grad()
def scalar_function_gradient(func, inputs, fn_name, create_graph, strict, v):
    """Shared first half of `vhp` and `hvp` (in grad mode): fresh inputs, the output (checked
    to be one element) and its gradient with a graph, and `v` checked against the inputs."""
    inputs_tuple, inputs, outputs_tuple, outputs, v = prepare(
        func, inputs, v, fn_name, create_graph, strict, "inputs"
    )
    if outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element"
        )
    gradient = grads(outputs, inputs, create_graph=True)
    check_gradient_has_graph(gradient, strict)
    return inputs_tuple, inputs, outputs, gradient, v


def vhp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), $v^T H$) for a function with one output element: the vjp of its
    gradient.

    >>> import minitorch
    >>> from minitorch.autograd.functional import vhp
    >>> vhp(lambda x: (x**3).sum(), minitorch.tensor([1.0, 2.0]), minitorch.tensor([1.0, 1.0]))
    (tensor(9.), tensor([ 6., 12.]))
    """
    inputs_tuple, inputs, outputs, gradient, v = scalar_function_gradient(
        func, inputs, "vhp", create_graph, strict, v
    )
    product = vector_product(
        gradient, inputs, v, inputs, strict, create_graph,
        "The jacobian of the user-provided function is independent of input {k}. This is "
        "not allowed in strict mode.", "hessian",
    )  # fmt: skip
    return finished(outputs, False, product, inputs_tuple, create_graph)


def hvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), $H v$) for a function with one output element, by the double-backward
    trick on its gradient.

    >>> import minitorch
    >>> from minitorch.autograd.functional import hvp
    >>> hvp(lambda x: (x**3).sum(), minitorch.tensor([1.0, 2.0]), minitorch.tensor([1.0, 0.0]))
    (tensor(9.), tensor([6., 0.]))
    """
    with enable_grad():
        inputs_tuple, inputs, outputs, gradient, v = scalar_function_gradient(
            func, inputs, "hvp", create_graph, strict, v
        )
        u = tuple(creation.zeros_like(x, requires_grad=True) for x in inputs)
        transposed = grads(gradient, inputs, u, create_graph=True)  # H^T u, linear in u
    product = vector_product(
        transposed, u, v, inputs, strict, create_graph,
        "The hessian of the user-provided function is independent of entry {k} in the "
        "grad_jacobian. This is not allowed in strict mode as it prevents from using the "
        "double backward trick to replace forward mode AD.", "hessian",
    )  # fmt: skip
    return finished(outputs, False, product, inputs_tuple, create_graph)


def hessian(
    func: Callable,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """$H_{ij} = \\partial^2 f / \\partial\\, in_i \\partial\\, in_j$ of a function with one
    output element: the Jacobian of its gradient, of shape `in.shape + in.shape` (a tuple of
    tuples, $H[i][j]$, for several inputs).

    >>> import minitorch
    >>> from minitorch.autograd.functional import hessian
    >>> hessian(lambda x: (x**3).sum(), minitorch.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    inputs_tuple, inputs = as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def one_element(*xs):
        out = func(*xs)
        out_tuple, outs = as_tuple(out, "outputs of the user-provided function", "hessian")
        check_outputs_require_grad(outs, strict)
        if out_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return out.reshape(())

    def gradient(*xs):
        jac = jacobian(one_element, xs, create_graph=True)
        check_gradient_has_graph(jac if isinstance(jac, tuple) else (jac,), strict)
        return jac

    result = jacobian(
        gradient, inputs, create_graph, strict, vectorize, strategy=outer_jacobian_strategy
    )
    return as_given(result, (inputs_tuple, inputs_tuple))
