"""Shared pytest configuration: one marker per exercise task; tensor tests on every backend.

The tests of tensors and autograd run once per CPU backend, with ids ending in
`[simple]` (the reference loops), `[student]` (the plain Numba kernels of
fast_ops.py, the exercises of module 3; the core suites only, see
STUDENT_BACKEND_FILES) and `[fast]` (the tuned Numba kernels of backends/fast/,
the default): see `cpu_backend`. The
environment variable MINITORCH_TEST_BACKENDS (comma-separated, e.g. `simple`)
narrows them to some backends, e.g. where a cold Numba cache is not worth filling.

`MINITORCH_TEST_BACKENDS=cuda` runs the same tests on the GPU instead (ids ending in
`[cuda]`), and those of the nn and optim files (CUDA_NN_FILES): the factory functions put
tensors on `cuda` (`set_default_device`), and the tests read results back with `.numpy()`,
which then copies a cuda tensor to the host, after checking that it is one (see
`cuda_device`). It is never among the defaults: it needs a GPU or Numba's CUDA simulator
(`NUMBA_ENABLE_CUDASIM=1`, slow: tests/test_cuda_simulator.py runs the suites there, inside
a plain `python -m pytest` run, with tests/simulator_fidelity.py's changes to the simulator;
scripts/check_gpu.sh runs them on a GPU).
"""

import importlib.util
import os
import sys
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
# a backend object of their own (test_tensor_ops.py: the reference, test_fast_ops_*.py: Numba).
BACKENDS = ["simple", "student", "fast"]
# The GPU, run only where MINITORCH_TEST_BACKENDS names it; tests marked `cpu_only` (about host
# memory or printing without a device) do not run there. In Numba's CUDA simulator, where each
# CUDA thread of a block that synchronizes is a Python thread and every other one a Python call,
# hypothesis draws at most SIMULATOR_EXAMPLES examples per test.
# There `grad_check` perturbs SIMULATOR_CENTRAL_ELEMENTS elements of each input, drawn by its
# seed, where each costs two forward passes of simulated kernels (the CPU runs check them all).
CUDA = "cuda"
SIMULATOR_EXAMPLES = 3
SIMULATOR_CENTRAL_ELEMENTS = 4
SIMULATOR_ON = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
SIMULATED_CUDA_RUN = SIMULATOR_ON and CUDA in os.environ.get("MINITORCH_TEST_BACKENDS", "").split(
    ","
)


if SIMULATOR_ON:
    # The simulator runs each CUDA thread of a block as a Python thread while the launching
    # thread polls them; at Python's default 5 ms switch interval every hand-over of the GIL
    # waits out the interval, and a kernel with `syncthreads` hands over many times.
    sys.setswitchinterval(1e-4)
    if importlib.util.find_spec("numba_cuda") is not None:
        import simulator_fidelity

        simulator_fidelity.patch_the_simulator()

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

# Test files of nn and optim run on cuda too where MINITORCH_TEST_BACKENDS names it (ids ending
# in `[cuda]`; without it, on the default backend only: the core suites run each CPU backend).
# Their modules make their parameters with the factory functions, on the default device, and
# the tests read results with `.numpy()`, as the core suites do. Not the files of the CPU
# backend's fused kernels, checked against the exercise path (tests/test_cuda_*.py check the
# cuda backend's kernels).
NN_TEST_PREFIXES = ("test_nn", "test_optim")
CPU_KERNEL_FILES = {"test_nn_kernels.py", "test_nn_fused_training.py"}
CUDA_NN_FILES = {
    path.name
    for path in Path(__file__).resolve().parent.glob("test_*.py")
    if path.name.startswith(NN_TEST_PREFIXES) and path.name not in CPU_KERNEL_FILES
}


# scripts/check_exercises.py only needs a stubbed task's tests to fail: this profile skips
# hypothesis's shrinking, which would rerun a failing test many times for nothing.
settings.register_profile(
    "exercise-check", phases=[Phase.explicit, Phase.reuse, Phase.generate], deadline=None
)
# A run on cuda in the simulator: the tests' own counts go through strategies.examples(), which
# takes the lower of a test's count and the profile's.
settings.register_profile("cuda-simulator", max_examples=SIMULATOR_EXAMPLES, deadline=None)
if SIMULATED_CUDA_RUN:
    settings.load_profile("cuda-simulator")


def task_table() -> dict[str, dict[str, str]]:
    """The `[tool.minitorch.tasks]` table of pyproject.toml: id -> {title, tutorial}."""
    with open(PROJECT_ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["minitorch"]["tasks"]


def pytest_configure(config):
    config.addinivalue_line("markers", "cpu_only: not run with MINITORCH_TEST_BACKENDS=cuda")
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
    unknown = sorted(set(names) - {*BACKENDS, CUDA})
    if unknown:
        raise pytest.UsageError(
            f"MINITORCH_TEST_BACKENDS names unknown backends {unknown}; "
            f"choose from {[*BACKENDS, CUDA]}"
        )
    return names or BACKENDS


def pytest_generate_tests(metafunc):
    path = metafunc.definition.path
    if runs_on_every_backend(path):
        backends = tested_backends()
        if path.name not in STUDENT_BACKEND_FILES and backends != ["student"]:
            backends = [name for name in backends if name != "student"]
    elif path.name in CUDA_NN_FILES and CUDA in tested_backends():
        backends = [CUDA]
    else:
        return
    if metafunc.definition.get_closest_marker("cpu_only"):
        backends = [name for name in backends if name != CUDA]
    metafunc.parametrize("cpu_backend", backends, indirect=True)


# Files that turn on Numba's CUDA simulator when they are the first to import minitorch.
# The files of the cuda backend's tests, run with `small_kernels`.
CUDA_BACKEND_FILES = (
    "test_cuda_backend.py",
    "test_cuda_autograd.py",
    "test_cuda_devices.py",
    "test_cuda_scans_and_indexing.py",
    "test_cuda_on_device_kernels.py",
)
SIMULATOR_FILES = {
    *CUDA_BACKEND_FILES,
    "test_cuda_allocator.py",
    "test_cuda_matmul.py",
    "test_cuda_windows.py",
    "test_cuda_reductions.py",
}


def pytest_ignore_collect(collection_path, config):
    """The SIMULATOR_FILES are collected where they are named (`pytest
    tests/test_cuda_backend.py`, as grading tasks 3.3-3.5 runs it: importing minitorch first,
    it turns on Numba's CUDA simulator) or where the simulator is on already. A run of a whole
    folder imports minitorch earlier, without a cuda device: there tests/test_cuda_simulator.py
    runs them in a pytest of their own instead."""
    if collection_path.name not in SIMULATOR_FILES or SIMULATOR_ON:
        return None
    start = config.invocation_params.dir
    named = {(start / arg.split("::")[0]).resolve() for arg in config.args}
    return None if collection_path.resolve() in named else True


# The cuda backend's kernel sizes in the tests: the simulator runs one Python thread per CUDA
# thread, so the tensors are tiny and a dozen elements already span several blocks and tiles.
THREADS, BLOCK, TILE = 8, 4, 4


@pytest.fixture
def small_kernels(monkeypatch):
    """The cuda backend with THREADS threads per block, reduction blocks of BLOCK, matmul tiles
    of TILE, and the exercises' reduce and matmul (tasks 3.4 and 3.5; tests/test_cuda_matmul.py
    checks the blocked matmul, tests/test_cuda_reductions.py the shuffled reduce)."""
    from minitorch.backends import get_backend

    backend = get_backend("cuda")
    monkeypatch.setattr(backend, "threads", THREADS)
    monkeypatch.setattr(backend, "block", BLOCK)
    monkeypatch.setattr(backend, "tile", TILE)
    monkeypatch.setattr(backend, "matmul_kernel", "matmul")
    monkeypatch.setattr(backend, "warp_shuffles", False)


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

    if name == CUDA:
        yield from cuda_device(request)
        return
    previous = minitorch.get_backend().name
    minitorch.set_backend(name)
    try:
        if name != "simple" and (missing := kernels_missing(minitorch.get_backend())):
            pytest.skip(f"the {name} backend is not written yet: {missing}")
        yield name
    finally:
        minitorch.set_backend(previous)


EXERCISE_PATH_TASKS = ("task4_1", "task4_2", "task4_3")


@pytest.fixture
def exercise_path(request):
    """Tests of tasks 4.1-4.3 run on the reference backend, so they grade the exercise path
    (windows, im2col, col2im): the default backend's one-pass window kernels would bypass it.
    The other tests keep the default backend, whose kernels `test_nn_kernels.py` checks
    against the exercise path."""
    if not any(mark.name in EXERCISE_PATH_TASKS for mark in request.node.iter_markers()):
        yield
        return
    import minitorch

    previous = minitorch.get_backend().name
    minitorch.set_backend("simple")
    try:
        yield
    finally:
        minitorch.set_backend(previous)


# The optional kernels that would run instead of a task's solution on the default backend.
TASK_BYPASSING_KERNELS = {"task4_5": ("cross_entropy", "cross_entropy_backward")}


@pytest.fixture(autouse=True)
def composed_for_grading(request, monkeypatch):
    """A task's tests run with the default backend's kernels that would bypass its solution
    taken away (task 4.5: the one-pass cross-entropy), so they grade the composition the
    student writes; `test_nn_fused_training.py` checks the kernels against that composition."""
    names = [
        kernel
        for mark in request.node.iter_markers()
        for kernel in TASK_BYPASSING_KERNELS.get(mark.name, ())
    ]
    if names:
        import minitorch
        from minitorch.backends import backend_for

        backend = backend_for(minitorch.device("cpu"))
        for name in names:
            monkeypatch.setitem(backend._optional, name, None)
    yield


TESTS_DIR = str(Path(__file__).resolve().parent)
LIBRARY_DIR = str(PROJECT_ROOT / "minitorch")


def called_from_a_test() -> bool:
    """Whether the innermost caller in a test file (other than this one) or in minitorch
    itself is in a test file."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename.startswith(LIBRARY_DIR):
            return False
        if filename.startswith(TESTS_DIR) and frame.f_globals is not globals():
            return True
        frame = frame.f_back
    return False


# Library code that builds what a test asks for (a layer's parameters, an initialisation) on the
# default device, as a PyTorch user's `with torch.device("cuda"):` would.
NN_DIR = PROJECT_ROOT / "minitorch" / "nn"
BUILDERS = (str(NN_DIR / "modules") + os.sep, str(NN_DIR / "init.py"), str(NN_DIR / "parameter.py"))


CREATION_FILE = str(PROJECT_ROOT / "minitorch" / "tensors" / "creation.py")


def is_a_factory(code) -> bool:
    """Whether `code` is part of a factory function, whose own calls make what its caller
    asked for: the creation module's functions and wrappers, and any function with a `device`
    parameter (`logspace`, `tril_indices`, ...)."""
    parameters = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    return code.co_filename == CREATION_FILE or "device" in parameters


def default_device_of_the_caller():
    """The default device of a factory call in a test on cuda: the set one (cuda, unless the
    test sets another) where the test (or a layer it builds) asks, the CPU where an operation
    inside minitorch does.

    A user's default device is the CPU, and their cuda tensors come from `.to("cuda")`; an
    operation that makes a helper tensor (a mask, a range) without naming its input's device
    puts it on the CPU, and mixing it with the input fails. Giving such calls the CPU here, and
    only the test's own the cuda default, makes the suites on cuda catch that. The caller is
    the first frame past the factory functions (`is_a_factory`).
    """
    from minitorch.tensors.device import CPU, get_default_device

    frame = sys._getframe(1)
    while frame is not None and is_a_factory(frame.f_code):
        frame = frame.f_back
    filename = "" if frame is None else frame.f_code.co_filename
    inside = filename.startswith(LIBRARY_DIR) and not filename.startswith(BUILDERS)
    return CPU if inside else get_default_device()


def cuda_device(request):
    """Run the test with `cuda` as the factory functions' default device.

    A test reads results with `.numpy()` (or `np.asarray`), which PyTorch refuses on a cuda
    tensor; called from a test file, it copies the tensor to the host instead, after
    checking that it is on cuda (an operation on cuda tensors must give a cuda tensor). The
    library's own calls keep the refusal, so a host read on an operation's path still fails.
    """
    import minitorch
    from minitorch.tensors import creation
    from minitorch.tensors.base import TensorBase

    if not minitorch.cuda.is_available():
        pytest.skip(
            "no cuda device: run on a GPU, or in Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, "
            "the cuda extra: pip install -e '.[test,cuda]')"
        )
    if SIMULATOR_ON:
        # Kernels of a few threads per block: the simulator runs a Python thread for each
        # thread of a block that synchronizes (tests/simulator_fidelity.py). The blocked matmul
        # and the shuffled reduce have files of their own (tests/test_cuda_matmul.py, ...).
        request.getfixturevalue("small_kernels")
    monkeypatch = request.getfixturevalue("monkeypatch")
    if SIMULATOR_ON:
        checked = SIMULATOR_CENTRAL_ELEMENTS
        monkeypatch.setitem(minitorch.grad_check.__kwdefaults__, "elements", checked)
    numpy, array = TensorBase.numpy, TensorBase.__array__

    def on_host(tensor):
        if not called_from_a_test():
            return tensor
        assert tensor.device.type == "cuda", (
            f"a test on cuda read a tensor on {tensor.device}: an operation left the device"
        )
        return tensor.cpu()

    monkeypatch.setattr(TensorBase, "numpy", lambda self: numpy(on_host(self)))
    monkeypatch.setattr(
        TensorBase, "__array__", lambda self, *args, **kwargs: array(on_host(self), *args, **kwargs)
    )
    monkeypatch.setattr(creation, "get_default_device", default_device_of_the_caller)
    minitorch.set_default_device("cuda")
    try:
        yield CUDA
    finally:
        minitorch.set_default_device(None)


@pytest.fixture
def torch():
    """PyTorch, the oracle of a test that compares against it live: without it the test is
    skipped with a reason that says how to install it (the `torch` extra)."""
    return pytest.importorskip(
        "torch", reason="PyTorch is not installed: pip install -e '.[test,torch]' compares with it"
    )
