"""The public names built from the `@public` declarations of ops/ (ops/public.py, ops/api.py).

Every declared operation must appear under each name its declaration gives
it, as the same function; its in-place form must write into the tensor with
the version-counter and leaf checks of hand-written in-place methods; IDEs'
stubs must list what the package has; and nothing may be made twice.
"""

import ast
import importlib
import importlib.util
import inspect
import pickle
import pydoc
from pathlib import Path

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch.ops.api import FUNCTIONAL, TENSOR_METHODS, TORCH_FUNCTIONS, build_tables
from minitorch.ops.public import DECLARATIONS, declared, public

ROOT = Path(__file__).resolve().parent.parent


def original(function):
    while hasattr(function, "__wrapped__"):
        function = function.__wrapped__
    return function


@pytest.mark.parametrize("declaration", DECLARATIONS, ids=lambda d: f"{d.module}.{d.name}")
def test_every_declared_form_is_public(declaration):
    for name in (declaration.name, *declaration.aliases):
        if declaration.torch:
            assert original(getattr(minitorch, name)) is declaration.function, name
            assert name in minitorch.__all__
        elif name in TORCH_FUNCTIONS:  # another operation's name (the method `where`)
            assert original(TORCH_FUNCTIONS[name]) is not declaration.function, name
        if declaration.functional:
            assert original(getattr(F, name)) is declaration.function, name
            assert name in F.__all__
    if declaration.method is None:
        return
    for name in (declaration.method, *declaration.aliases):
        assert original(getattr(minitorch.Tensor, name)) is declaration.function, name
        if declaration.inplace:
            assert callable(getattr(minitorch.Tensor, name + "_"))


def test_tables_are_the_declarations_and_nothing_else():
    """Each name of the three tables comes from exactly one declaration."""
    expected_torch, expected_methods, expected_functional = set(), set(), set()
    for d in DECLARATIONS:
        names = {d.name, *d.aliases}
        own = set() if d.only_inplace else names  # the in-place forms alone: no plain name
        expected_torch |= own if d.torch else set()
        expected_functional |= own if d.functional else set()
        if d.method is not None:
            methods = {d.method, *d.aliases}
            plain = set() if d.only_inplace else methods
            expected_methods |= plain | ({m + "_" for m in methods} if d.inplace else set())
            if d.inplace and d.torch:
                expected_torch |= {n + "_" for n in names}
    assert set(TORCH_FUNCTIONS) == expected_torch
    assert set(TENSOR_METHODS) == expected_methods
    assert set(FUNCTIONAL) == expected_functional


def test_a_name_declared_twice_is_an_error():
    before = len(DECLARATIONS)
    try:

        @public("exp")
        def another_exp(a):
            return a

        with pytest.raises(ValueError, match="'exp' is made twice"):
            build_tables()
    finally:
        del DECLARATIONS[before:]
    build_tables()


def test_declared_reads_a_declaration():
    clamp = declared("clip")
    assert clamp.name == "clamp" and "clip" in clamp.aliases and clamp.inplace
    assert declared("sum").module == "minitorch.ops.reductions"
    with pytest.raises(KeyError, match="no operation is declared public as 'no_such_op'"):
        declared("no_such_op")


def test_method_is_the_function():
    """`t.exp()` is `minitorch.exp(t)`: the method is the declared function itself."""
    x = minitorch.tensor([0.5, -1.0])
    assert minitorch.Tensor.exp is minitorch.exp  # with its keyword forms
    assert minitorch.Tensor.sin is minitorch.sin is minitorch.ops.elementwise.sin
    np.testing.assert_allclose(x.exp().numpy(), np.exp([0.5, -1.0]), rtol=1e-6)
    np.testing.assert_allclose(x.clip(min=0.0).numpy(), [0.5, 0.0])
    assert x.sum(axis=0).item() == pytest.approx(-0.5)  # the keyword forms reach methods too
    assert minitorch.add(input=x, other=x).tolist() == [1.0, -2.0]


def test_generated_in_place_form_writes_and_checks():
    x = minitorch.tensor([0.25, 4.0])
    version = x._version
    assert x.sqrt_() is x
    assert x.tolist() == [0.5, 2.0] and x._version == version + 1
    y = minitorch.tensor([-1.0, 3.0])
    assert minitorch.clamp_(y, min=0.0) is y and y.tolist() == [0.0, 3.0]
    leaf = minitorch.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        leaf.exp_()
    ints = minitorch.tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        ints.exp_()


def test_generated_in_place_form_keeps_autograd_history():
    x = minitorch.tensor([0.5, 1.0], requires_grad=True)
    y = x * 1.0
    y.tanh_()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1 - np.tanh([0.5, 1.0]) ** 2, rtol=1e-6)


def test_help_shows_every_method_with_signature_and_docstring():
    page = pydoc.plain(pydoc.render_doc(minitorch.Tensor))
    for name in sorted(TENSOR_METHODS):
        method = getattr(minitorch.Tensor, name)
        assert inspect.getdoc(method), f"Tensor.{name} has no docstring"
        shown = f"{name}{inspect.signature(method)}"
        assert shown in page or f" {name} = " in page, f"help(Tensor) does not show {shown}"


def load_generator():
    spec = importlib.util.spec_from_file_location(
        "generate_stubs", ROOT / "scripts" / "generate_stubs.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_checked_in_stubs_are_current():
    """The stubs IDEs read list what the package has: run scripts/generate_stubs.py if not."""
    generator = load_generator()
    written = generator.stubs()
    for path, text in written.items():
        assert path.exists() and path.read_text() == text, (
            f"{path.relative_to(ROOT)} is out of date: run python scripts/generate_stubs.py"
        )
    assert not generator.stale_stubs(written), "run python scripts/generate_stubs.py"


def test_the_stubs_do_not_change_once_a_tensor_is_pickled():
    """Tensors pickle through their own `__getstate__`, so pickle leaves the class as it was:
    copyreg's default would cache `__slotnames__` on it, which the stubs would list."""
    before, names = load_generator().stubs(), set(vars(minitorch.Tensor))
    pickle.loads(pickle.dumps(minitorch.ones(2)))
    assert set(vars(minitorch.Tensor)) == names
    assert load_generator().stubs() == before


def test_no_stub_is_over_600_lines():
    for path in load_generator().stubs():
        assert len(path.read_text().splitlines()) <= 600, path.relative_to(ROOT)


def stub_definitions(body: list, classes: dict | None = None) -> dict[str, ast.AST]:
    """What each name of a stub's (or a stub class's) `body` stands for: its `def`, `class`
    or import, an alias `x = y` resolved to what `y` stands for, and `x = C.y` to what `y`
    stands for in the class `C` (`classes[C]`: the definitions of its body)."""
    definitions: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            definitions[node.name] = node
        elif isinstance(node, ast.ImportFrom):
            definitions.update((alias.asname, node) for alias in node.names if alias.asname)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
            definitions[node.targets[0].id] = definitions[node.value.id]
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute):
            owner = classes[node.value.value.id]  # `exp_ = _ElementwiseMethods.exp`
            definitions[node.targets[0].id] = owner[node.value.attr]
    return definitions


def stub_exports(tree: ast.Module) -> list[str]:
    """The names of a stub's `__all__`."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "__all__":
            return [element.value for element in node.value.elts]
    return []


def test_stubs_name_every_public_name_with_its_signature():
    """Every name of `minitorch` and every `Tensor` method is in the stubs (`__init__.pyi`
    and the stubs of `_stubs/` it imports) as a definition an editor can show, its
    parameters those of the signature `help()` shows."""
    stub = ast.parse((ROOT / "minitorch" / "__init__.pyi").read_text())
    groups = {
        path.stem: ast.parse(path.read_text())
        for path in sorted((ROOT / "minitorch" / "_stubs").glob("*.pyi"))
        if path.stem != "__init__"
    }
    tensor = next(n for n in stub.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    bodies = {
        node.name: node.body
        for tree in groups.values()
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }
    bases = [base.id for base in tensor.bases if base.id != "TensorBase"]
    assert set(bases) == set(bodies), set(bodies) ^ set(bases)
    classes = {name: stub_definitions(body) for name, body in bodies.items()}
    methods = stub_definitions([n for base in bases for n in bodies[base]] + tensor.body, classes)
    classes["Tensor"] = methods
    names = stub_definitions(stub.body, classes)
    for node in stub.body:  # what `from ._stubs.functions import exp_ as exp_` stands for
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("_stubs."):
            group = stub_definitions(groups[node.module.removeprefix("_stubs.")].body, classes)
            names.update((alias.asname, group[alias.name]) for alias in node.names if alias.asname)
    assert set(minitorch.__all__) <= set(names), set(minitorch.__all__) - set(names)
    assert stub_exports(stub) == sorted(set(minitorch.__all__))
    for name in TENSOR_METHODS:
        shown = [a.arg for a in ast.walk(methods[name].args) if isinstance(a, ast.arg)]
        wanted = list(inspect.signature(getattr(minitorch.Tensor, name)).parameters)
        assert shown[1:] == wanted[1:], f"Tensor.{name}: the stub has {shown}, help() {wanted}"
    assert names["exp_"].name == methods["exp_"].name == "exp"
    assert methods["arccos"].name == methods["arccos_"].name == "acos"


def stub_modules() -> list[tuple[Path, str, str]]:
    """Each stub: its path, the module whose names it lists and the package it is in."""
    stubs = ROOT / "minitorch" / "_stubs"
    return [
        (ROOT / "minitorch" / "__init__.pyi", "minitorch", "minitorch"),
        (ROOT / "minitorch" / "nn" / "functional.pyi", "minitorch.nn.functional", "minitorch.nn"),
        *((path, "minitorch", "minitorch._stubs") for path in sorted(stubs.glob("*.pyi"))),
    ]


@pytest.mark.parametrize("path, module, package", stub_modules(), ids=lambda p: str(p)[-30:])
def test_every_stub_import_names_what_it_says(path, module, package):
    """Each `from X import Y as Z` of a stub resolves, to the object `module.Z` really is
    (but those of the stub-only modules of `_stubs/`)."""
    target = importlib.import_module(module)
    for node in ast.parse(path.read_text()).body:
        if not isinstance(node, ast.ImportFrom):
            continue
        name = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
        if not name.startswith("minitorch._stubs"):
            source = importlib.import_module(name)
            for alias in node.names:
                value = getattr(source, alias.name)
                if alias.asname in getattr(target, "__all__", ()):
                    assert original(getattr(target, alias.asname)) is original(value), alias.asname
