"""Shared pytest configuration: one marker per exercise task; tensor tests on every backend.

The tests of tensors and autograd run once per CPU backend, with ids ending in
`[simple]` (the reference loops), `[student]` (the plain Numba kernels of
fast_ops.py, the exercises of module 3; the core suites only, see
STUDENT_BACKEND_FILES) and `[fast]` (the tuned Numba kernels of fast_tuned.py,
the default): see `cpu_backend`. The
environment variable MINITORCH_TEST_BACKENDS (comma-separated, e.g. `simple`)
narrows them to some backends, e.g. where a cold Numba cache is not worth filling.
"""

import os
from functools import cache
from pathlib import Path

import pytest
from hypothesis import Phase, settings

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

PROJECT_ROOT = Path(__file__).resolve().parent.parent

# Test files whose tests run on each CPU backend: those of tensors and autograd, except the ones
# that never reach a backend through the tensor layer (layout arithmetic, printing) or that call
# a backend object of their own (test_tensor_ops.py: the reference, test_fast_ops.py: Numba).
BACKENDS = ["simple", "student", "fast"]
BACKEND_TEST_PREFIXES = ("test_tensor", "test_autograd", "test_train_tensor")
SINGLE_BACKEND_FILES = {"test_tensor_data.py", "test_tensor_format.py", "test_tensor_ops.py"}
# The student backend (module 3's plain kernels) runs the core suites, which reach every kernel
# it has; the files that cover the breadth of the API (more math, joins, indexing, ...) call
# the same kernels with many more scalar functions, and would only add minutes of compiling.
STUDENT_BACKEND_FILES = {
    "test_tensor.py",
    "test_tensor_torch.py",
    "test_autograd.py",
    "test_autograd_api.py",
    "test_autograd_gradients.py",
    "test_autograd_torch.py",
    "test_train_tensor.py",
}


# scripts/check_exercises.py only needs a stubbed task's tests to fail: this profile skips
# hypothesis's shrinking, which would rerun a failing test many times for nothing.
settings.register_profile(
    "exercise-check", phases=[Phase.explicit, Phase.reuse, Phase.generate], deadline=None
)


def task_table() -> dict[str, dict[str, str]]:
    """The `[tool.minitorch.tasks]` table of pyproject.toml: id -> {title, tutorial}."""
    with open(PROJECT_ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["minitorch"]["tasks"]


def pytest_configure(config):
    for task_id, task in task_table().items():
        marker = "task" + task_id.replace(".", "_")
        config.addinivalue_line("markers", f"{marker}: Task {task_id} — {task['title']}")


def runs_on_every_backend(path: Path) -> bool:
    """Whether the tests in file `path` run once per CPU backend."""
    return path.name.startswith(BACKEND_TEST_PREFIXES) and path.name not in SINGLE_BACKEND_FILES


def tested_backends() -> list[str]:
    """The backends named by MINITORCH_TEST_BACKENDS, or all of BACKENDS when it is unset."""
    names = [name.strip() for name in os.environ.get("MINITORCH_TEST_BACKENDS", "").split(",")]
    names = [name for name in names if name]
    unknown = sorted(set(names) - set(BACKENDS))
    if unknown:
        raise pytest.UsageError(
            f"MINITORCH_TEST_BACKENDS names unknown backends {unknown}; choose from {BACKENDS}"
        )
    return names or BACKENDS


def pytest_generate_tests(metafunc):
    path = metafunc.definition.path
    if runs_on_every_backend(path):
        backends = tested_backends()
        if path.name not in STUDENT_BACKEND_FILES and backends != ["student"]:
            backends = [name for name in backends if name != "student"]
        metafunc.parametrize("cpu_backend", backends, indirect=True)


@cache
def kernels_missing(backend) -> str | None:
    """Why `backend` cannot run yet (a student copy before module 3: its stubs), or None.

    Runs each kernel that the exercises of module 3 write once, on a tiny input.
    """
    import numpy as np

    from minitorch import operators
    from minitorch.backends.tensor_data import TensorData

    a = TensorData(np.ones(4, np.float32), (2, 2))
    try:
        backend.map(operators.neg, TensorData(np.zeros(4, np.float32), (2, 2)), a)
        backend.zip(operators.add, TensorData(np.zeros(4, np.float32), (2, 2)), a, a)
        backend.reduce(operators.add, TensorData(np.zeros(2, np.float32), (1, 2)), a, 0, 0.0)
        backend.matmul(TensorData(np.zeros(4, np.float32), (2, 2)), a, a)
    except NotImplementedError as error:
        return str(error)
    return None


@pytest.fixture(autouse=True)
def cpu_backend(request):
    """The backend of `cpu` tensors during the test: the parameter's, restored afterwards.

    Only the tests of `runs_on_every_backend` files get a parameter; the others run on the
    default. A Numba backend's tests are skipped while its kernels are exercise stubs
    (`[student]` in a student copy before module 3).
    """
    name = getattr(request, "param", None)
    if name is None:
        yield None
        return
    import minitorch

    previous = minitorch.get_backend().name
    minitorch.set_backend(name)
    try:
        if name != "simple" and (missing := kernels_missing(minitorch.get_backend())):
            pytest.skip(f"the {name} backend is not written yet: {missing}")
        yield name
    finally:
        minitorch.set_backend(previous)
