"""Where an operation says under which names it is public: the `@public` declaration.

Each function users call is defined once, in its family's module of `ops/`,
next to its `Function`, and carries one `@public(...)` line naming its public
forms:

- `minitorch.<name>` (unless `torch=False`);
- the method `Tensor.<name>` (unless `method=False`; `method="other"` names
  it differently), which is the same function: `t.exp()` is `exp(t)`;
- the in-place method `Tensor.<name>_` (`inplace=True`): the result written
  back into the tensor by `inplace.inplace`, with its version-counter and
  leaf checks; an in-place function written out by hand (`add_`, with its
  one-pass fast path) is declared itself, with `torch=False`; `only_inplace=True`
  declares the in-place forms alone, of an operation declared public elsewhere
  (`sin_` of `sin`);
- `minitorch.nn.functional.<name>` (`functional=True`);
- every alias in `aliases`, in each of the forms above (`arccos` for `acos`);
- PyTorch's keyword spellings (`keywords=1` or `2`: `input=`, `other=` for
  that many operands, `axis=`/`keepdims=` and `out=`, see `keywords.py`).

A table of operations that differ only in what they call (`eq`, `ne`, ...,
each `bool_zip(operators.<name>, a, b)`) declares one per row with `declare`,
which writes the function users call (its docstring ending in the doctest of the
row's example) and gives it `public`'s forms.

`ops/api.py` imports every family, and so collects the declarations, and
builds the three namespaces from them; `minitorch/__init__.py`,
`_tensor.py` and `nn/functional.py` take their operations from there. The
decorator returns the function unchanged, so calls inside `ops/` pay for no
wrapper.

>>> from minitorch.ops.public import declared
>>> exp = declared("exp")
>>> exp.module, exp.method, exp.inplace
('minitorch.ops.unary', 'exp', True)
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from .._tensor import Tensor

F = TypeVar("F", bound=Callable)


@dataclass(frozen=True)
class Declaration:
    """The public names of one operation (see the module docstring)."""

    name: str  # PyTorch's name, `minitorch.<name>`
    function: Callable  # as defined in its module, without keyword wrappers
    torch: bool  # whether `minitorch.<name>` is one of its forms
    method: str | None  # the name of its Tensor method, if it has one
    inplace: bool  # whether `Tensor.<method>_` writes its result into the tensor
    functional: bool  # whether `nn.functional.<name>` is one of its forms
    aliases: tuple[str, ...]  # other names for every form
    keywords: int | None  # operands renamed by `input=`/`other=`; None: no keyword forms
    only_inplace: bool = False  # the in-place forms alone (the operation is public already)

    @property
    def module(self) -> str:
        """The module that defines the function (where to read it)."""
        return self.function.__module__


# in the order the families of ops/ are imported (api.py)
DECLARATIONS: list[Declaration] = []


def public(
    name: str | None = None,
    *,
    torch: bool = True,
    method: bool | str = True,
    inplace: bool = False,
    functional: bool = False,
    aliases: tuple[str, ...] = (),
    keywords: int | None = None,
    only_inplace: bool = False,
) -> Callable[[F], F]:
    """Declare the decorated function public under `name` (its own name by default)."""

    def declare(function: F) -> F:
        public_name = name or function.__name__
        method_name = (public_name if method is True else method) or None
        DECLARATIONS.append(Declaration(
            public_name, function, torch, method_name, inplace or only_inplace, functional,
            tuple(aliases), keywords, only_inplace,
        ))  # fmt: skip
        return function

    return declare


def with_example(doc: str, name: str, values: list, answer: str) -> str:
    """`doc` ending in a doctest: `minitorch.<name>` of a tensor of `values` prints `answer`."""
    call = f"minitorch.{name}(minitorch.tensor({values!r}))"
    return f"{inspect.cleandoc(doc)}\n\n>>> import minitorch\n>>> {call}\n{answer}\n"


def declare(
    name: str,
    doc: str,
    body: Callable,
    *settings,
    operands: int = 1,
    example: tuple[list, str] | None = None,
    **forms,
):
    """Declare public `name(a)` (`name(a, b)` for `operands=2`): `body(*settings, a, b)`.

    The function users call for one row of a table of operations that differ only in
    what `body` is given (`eq` is `bool_zip(operators.eq, a, b)`); `forms` are
    `public`'s. It belongs to the module that declares it, as a `def` there would.
    `example`, the values of a tensor and what `minitorch.<name>` of it prints, ends the
    docstring as a doctest.
    """
    if operands == 1:

        def function(a: Tensor) -> Tensor:
            return body(*settings, a)

    else:

        def function(a, b) -> Tensor:
            return body(*settings, a, b)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc if example is None else with_example(doc, name, *example)
    # the calling module, found as `collections.namedtuple` finds it: the stubs re-export
    # the function from there, and doctest collects its docstring there
    function.__module__ = sys._getframe(1).f_globals["__name__"]
    return public(**forms)(function)


def declared(name: str) -> Declaration:
    """The declaration of the `minitorch.<name>` operation (or, failing that, the method)."""
    matches = [d for d in DECLARATIONS if name in (d.name, *d.aliases)]
    if not matches:
        raise KeyError(f"no operation is declared public as {name!r}")
    return next((d for d in matches if d.torch), matches[0])
