"""The cuda backend in Numba's CUDA simulator, run from a plain `python -m pytest`.

The simulator must be on before minitorch is imported, and the rest of the suite runs without a
cuda device (tests/test_cuda.py). So each test here starts a pytest of its own, over a group
of files, with `NUMBA_ENABLE_CUDASIM=1`: the cuda backend's tests (tests/conftest.py
CUDA_BACKEND_FILES, every cuda kernel against `cpu`) with tests/test_cuda_allocator.py (the
caching allocator), tests/test_cuda_matmul.py (the blocked matmul) and
tests/test_cuda_windows.py (convolution and pooling), and, with cuda tensors
(`MINITORCH_TEST_BACKENDS=cuda`, a few hypothesis examples per test, central differences at a
few elements, fewer draws for statistics: tests/conftest.py, tests/helpers.py
`statistical_draws`), every tensor and autograd suite and the nn and optim files of
tests/conftest.py CUDA_NN_FILES. tests/simulator_fidelity.py makes the simulator fast enough
for that. A test inside may skip only for an extra that is not installed (its reason says
`pip install`); any other skip fails here.
"""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CUDA_NN_FILES, runs_on_every_backend

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("numba_cuda") is None,
    reason="numba-cuda (the cuda extra) is not installed: pip install -e '.[test,cuda]'",
)

# Variables of this run that would change the inner one (an xdist worker's, pytest's own).
INHERITED_OUT = (
    "PYTEST_ADDOPTS",
    "PYTEST_CURRENT_TEST",
    "PYTEST_XDIST_WORKER",
    "PYTEST_XDIST_WORKER_COUNT",
    "PYTEST_XDIST_TESTRUNUID",
    "MINITORCH_TEST_BACKENDS",
)


def run_in_simulator(args: list[str], **env: str) -> subprocess.CompletedProcess:
    """`python -m pytest ARGS` in the project root with the simulator on; its output on failure.

    pyproject.toml's addopts has `-q`: the summary line still counts the passed tests."""
    environment = {k: v for k, v in os.environ.items() if k not in INHERITED_OUT}
    environment.update(NUMBA_ENABLE_CUDASIM="1", **env)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-rs",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:xdist",
        *args,
    ]
    run = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-6000:]
    assert re.search(r"\b\d+ passed\b", output), output[-3000:]
    skips = [line for line in output.splitlines() if line.startswith("SKIPPED")]
    unexplained = [line for line in skips if "pip install" not in line]
    assert not unexplained, "skips that no missing extra explains:\n" + "\n".join(unexplained)
    return run


SIMULATOR_SUITES = [
    (
        "tests/test_cuda_backend.py",
        "tests/test_cuda_devices.py",
        "tests/test_cuda_scans_and_indexing.py",
        "tests/test_cuda_allocator.py",
    ),
    ("tests/test_cuda_autograd.py", "tests/test_cuda_matmul.py", "tests/test_cuda_windows.py"),
    ("tests/test_cuda_on_device_kernels.py", "tests/test_cuda_reductions.py"),
]


def suite_id(files: tuple[str, ...]) -> str:
    return "+".join(Path(file).stem.removeprefix("test_") for file in files)


@pytest.mark.parametrize("suite", SIMULATOR_SUITES, ids=suite_id)
def test_cuda_kernels_match_cpu_in_the_simulator(suite):
    run_in_simulator(list(suite))


# The tensor and autograd suites: the files of their tests that run on every backend (not the
# training script's tests, tests/test_train_tensor.py: scripts/check_gpu.sh runs those on a GPU).
SUITE_FILES = sorted(
    path.name
    for path in (ROOT / "tests").glob("test_*.py")
    if path.name.startswith(("test_tensor", "test_autograd")) and runs_on_every_backend(path)
)
# Each group of files a pytest of its own, so that xdist spreads the simulator's minutes over
# its workers without starting an interpreter for every file.
SUITE_GROUPS = 6
NN_GROUPS = 8


def in_groups(names: list[str], count: int) -> list[tuple[str, ...]]:
    """The files `names` of tests/ dealt into `count` groups in turn."""
    return [tuple(f"tests/{name}" for name in names[k::count]) for k in range(count)]


TENSOR_SUITES = in_groups(SUITE_FILES, SUITE_GROUPS)
NN_SUITES = in_groups(sorted(CUDA_NN_FILES), NN_GROUPS)


def group_id(files: tuple[str, ...]) -> str:
    return f"{Path(files[0]).stem.removeprefix('test_')}+{len(files) - 1}"


@pytest.mark.parametrize("suite", TENSOR_SUITES + NN_SUITES, ids=group_id)
def test_suites_pass_on_cuda_in_the_simulator(suite):
    run_in_simulator([*suite, "-m", "not cpu_only"], MINITORCH_TEST_BACKENDS="cuda")
