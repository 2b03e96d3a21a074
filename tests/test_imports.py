"""The architecture's promises about importing minitorch, each checked in a fresh interpreter
(this process has imported minitorch long ago)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


# Threading libraries' settings: a module that sets a default for one of them
# (`os.environ.setdefault`) would go unseen if the variable were already set here.
THREADING_SETTINGS = ("OMP_", "KMP_", "MKL_", "OPENBLAS_")


def run_fresh(code: str) -> subprocess.CompletedProcess:
    """`code` in a new Python whose `minitorch` is this project's, not an installed one."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(THREADING_SETTINGS)}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_import_leaves_the_environment_alone():
    result = run_fresh(
        """
        import os
        before = dict(os.environ)
        import minitorch
        after = dict(os.environ)
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        assert not changed, f"import minitorch changed {changed}"
        """
    )
    assert result.returncode == 0, result.stderr


def test_public_namespaces_import_where_pytorch_users_look():
    result = run_fresh(
        """
        import os
        import minitorch.nn, minitorch.optim, minitorch.utils.data
        from minitorch.autograd import Function
        from minitorch.nn import Linear, Module
        from minitorch.optim import SGD, Optimizer
        from minitorch.utils.data import Dataset, TensorDataset
        assert minitorch.__file__.startswith(os.getcwd()), minitorch.__file__
        assert isinstance(Function, type) and issubclass(Linear, Module)
        assert issubclass(SGD, Optimizer) and issubclass(TensorDataset, Dataset)
        """
    )
    assert result.returncode == 0, result.stderr
