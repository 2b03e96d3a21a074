"""Checking a backward against central differences: `grad_check`, and
`gradcheck` / `gradgradcheck` with PyTorch's signatures."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import float32, float64
from ..tensors import creation
from ..tensors.base import TensorBase
from .grad_mode import no_grad
from .graph import grad

if TYPE_CHECKING:
    from .._tensor import Tensor


class GradcheckError(RuntimeError):
    """A gradient from backward differs from its central-difference estimate."""


def grad_check(
    fn: Callable[..., Tensor],
    *inputs: Tensor,
    eps: float = 1e-6,
    atol: float | None = None,
    rtol: float | None = None,
    seed: int = 0,
    elements: int | None = None,
) -> bool:
    r"""Check backward's gradients of `fn` at `inputs` against central differences.

    A fixed random weighting $w$ turns the output into a number,
    $L = \sum_i w_i \, fn(inputs)_i$, so that every entry of the
    vector-Jacobian product is tested, not only its sum. For every element
    $x_j$ of every input that requires grad, backward's $\partial L / \partial x_j$
    must match $(L(x_j + \epsilon) - L(x_j - \epsilon)) / 2\epsilon$,
    computed in float64. Raises `GradcheckError` naming the input, the index
    and both values; returns True otherwise. With `elements`, only that many elements of each
    input are checked, drawn by `seed`: each costs two evaluations of `fn`.

    >>> import minitorch
    >>> x = minitorch.tensor([1.0, 2.0], dtype=minitorch.float64, requires_grad=True)
    >>> minitorch.grad_check(lambda t: (t * t).sum(), x)
    True
    """
    low_precision = any(x.dtype is float32 for x in inputs)
    atol = (1e-3 if low_precision else 1e-6) if atol is None else atol
    rtol = (1e-2 if low_precision else 1e-5) if rtol is None else rtol
    for x in inputs:
        x.grad = None
    output = fn(*inputs)
    generator = np.random.default_rng(seed)
    weights = generator.uniform(0.5, 1.5, size=tuple(output.shape))
    (output * creation.tensor(weights, dtype=output.dtype, device=output.device)).sum().backward()

    originals = [np.array(x.detach().cpu().numpy(), dtype=np.float64) for x in inputs]

    def weighted_output(arrays: list[np.ndarray]) -> float:
        """$L$ at `arrays`, each on its input's device."""
        with no_grad():
            tensors = [
                creation.tensor(a, dtype=float64, device=x.device)
                for a, x in zip(arrays, inputs, strict=True)
            ]
            out = fn(*tensors).detach().cpu().numpy()
        return float(np.sum(np.asarray(out, dtype=np.float64) * weights))

    for k, x in enumerate(inputs):
        if not x.requires_grad:
            continue
        analytic = (
            np.zeros(originals[k].shape)
            if x.grad is None
            else np.asarray(x.grad.cpu().numpy(), dtype=np.float64)
        )
        indices = list(np.ndindex(*originals[k].shape))
        if elements is not None and elements < len(indices):
            chosen = generator.choice(len(indices), size=elements, replace=False)
            indices = [indices[i] for i in sorted(chosen)]
        for index in indices:
            arrays = [a.copy() for a in originals]
            arrays[k][index] += eps
            up = weighted_output(arrays)
            arrays[k][index] -= 2 * eps
            down = weighted_output(arrays)
            numeric = (up - down) / (2 * eps)
            if not abs(analytic[index] - numeric) <= atol + rtol * abs(numeric):
                raise GradcheckError(
                    f"grad_check: the gradient of input {k} at index {tuple(map(int, index))} "
                    f"is {float(analytic[index])!r} by backward but {numeric!r} by central "
                    "differences"
                )
    return True


def as_tuple(values) -> tuple:
    return (
        values
        if isinstance(values, tuple)
        else tuple(values)
        if isinstance(values, list)
        else (values,)
    )


def numerical_jacobians(func: Callable, inputs: tuple, k: int, eps: float) -> list[np.ndarray]:
    """$J_{ij} = \\partial out_j / \\partial x_i$ for input `k` and each output, by central
    differences in the input's own dtype: one `(x.numel(), out.numel())` array per output."""
    x = inputs[k]
    base = x.detach().cpu().numpy().copy()
    columns: list[list[np.ndarray]] = []
    for index in np.ndindex(*base.shape):
        values = []
        for step in (eps, -eps):
            moved = base.copy()
            moved[index] += step
            args = list(inputs)
            args[k] = creation.tensor(moved, dtype=x.dtype, device=x.device, requires_grad=True)
            outs = as_tuple(func(*args))  # with grad: gradgradcheck's func differentiates
            values.append(
                [
                    np.asarray(o.detach().cpu().numpy(), dtype=np.float64).ravel()
                    for o in outs
                    if isinstance(o, TensorBase)
                ]
            )
        columns.append([(up - down) / (2 * eps) for up, down in zip(*values, strict=True)])
    n_out = len(columns[0]) if columns else 0
    return [np.array([row[j] for row in columns]).reshape(base.size, -1) for j in range(n_out)]


def analytical_jacobians(outputs: tuple, inputs: tuple, k: int) -> list[np.ndarray]:
    """$J_{ij}$ as `numerical_jacobians`, one backward per output element."""
    x = inputs[k]
    result = []
    for out in outputs:
        jac = np.zeros((x.numel(), out.numel()))
        if out.requires_grad:
            for j in range(out.numel()):
                seed = np.zeros(out.numel())
                seed[j] = 1.0
                weight = creation.tensor(
                    seed.reshape(tuple(out.shape)), dtype=out.dtype, device=out.device
                )
                (d,) = grad(out, x, weight, retain_graph=True, allow_unused=True)
                if d is not None:
                    jac[:, j] = np.asarray(d.cpu().numpy(), dtype=np.float64).ravel()
        result.append(jac)
    return result


def gradcheck(
    func: Callable,
    inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **options,
) -> bool:
    """`torch.autograd.gradcheck`: backward's Jacobian of `func` at `inputs` against
    central differences, $|J_a - J_n| \\le atol + rtol \\, |J_n|$ elementwise.

    $J_{ij} = \\partial out_j / \\partial x_i$ for every output and every input that
    requires grad. Returns True, or raises `GradcheckError` with both Jacobians
    (returns False if not `raise_exception`). Use float64 inputs: float32 central
    differences with `eps=1e-6` are too coarse (a warning says so). Torch's
    other options (`fast_mode`, `check_forward_ad`, ...) are accepted and ignored.

    >>> import minitorch
    >>> x = minitorch.tensor([1.0, 2.0], dtype=minitorch.float64, requires_grad=True)
    >>> minitorch.autograd.gradcheck(lambda t: t * t, (x,))
    True
    """
    inputs = as_tuple(inputs)
    wanted = [k for k, x in enumerate(inputs) if isinstance(x, TensorBase) and x.requires_grad]
    if not wanted:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of "
            "them have requires_grad=True."
        )
    for k in wanted:
        if inputs[k].dtype is not float64:
            warnings.warn(
                f"Input #{k} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                UserWarning,
                stacklevel=2,
            )
    outputs = tuple(o for o in as_tuple(func(*inputs)) if isinstance(o, TensorBase))
    for k in wanted:
        numerical = numerical_jacobians(func, inputs, k, eps)
        analytical = analytical_jacobians(outputs, inputs, k)
        for j, (num, ana) in enumerate(zip(numerical, analytical, strict=True)):
            if not outputs[j].requires_grad:
                if np.any(num != 0):
                    return fail(
                        "Numerical gradient for function expected to be zero", raise_exception
                    )
                continue
            if not np.all(np.abs(ana - num) <= atol + rtol * np.abs(num)):
                dtype = inputs[k].dtype
                return fail(
                    f"Jacobian mismatch for output {j} with respect to input {k},\n"
                    f"numerical:{creation.tensor(num, dtype=dtype)!r}\n"
                    f"analytical:{creation.tensor(ana, dtype=dtype)!r}\n",
                    raise_exception,
                )
    return True


def fail(message: str, raise_exception: bool) -> bool:
    if raise_exception:
        raise GradcheckError(message)
    return False


def gradgradcheck(
    func: Callable,
    inputs,
    grad_outputs=None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    **options,
) -> bool:
    """`torch.autograd.gradgradcheck`: `gradcheck` of the gradients themselves.

    The function checked is $(x, v) \\mapsto \\partial (v \\cdot func(x)) / \\partial x$,
    computed with `create_graph=True`; $v$ (`grad_outputs`) is random when not given.
    """
    inputs = as_tuple(inputs)
    outputs = tuple(o for o in as_tuple(func(*inputs)) if isinstance(o, TensorBase))
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            creation.tensor(
                rng.standard_normal(tuple(o.shape)),
                dtype=o.dtype,
                device=o.device,
                requires_grad=True,
            )
            for o in outputs
        )
    grad_outputs = as_tuple(grad_outputs)
    n = len(inputs)
    wanted = [k for k, x in enumerate(inputs) if isinstance(x, TensorBase) and x.requires_grad]

    def first_derivatives(*args):
        outs = tuple(o for o in as_tuple(func(*args[:n])) if isinstance(o, TensorBase))
        found = grad(
            outs, [args[k] for k in wanted], list(args[n:]), create_graph=True, allow_unused=True
        )
        return tuple(d for d in found if d is not None)

    return gradcheck(
        first_derivatives,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )
