"""What the loss tests share: inputs, the dtypes and reductions they run, float tolerances,
and the builders of a recorded case (key -> (fn, arrays, run_case's options)).

`RNG` draws the inputs of the tests that are not recorded (central differences, errors); a
recorded case draws its own from `case_rng(key)` and passes it as `rng`.
"""

from __future__ import annotations

import numpy as np

RNG = np.random.default_rng(4)
DTYPES = ["float32", "float64"]
REDUCTIONS = ["mean", "sum", "none"]
TOLERANCE = {"float32": {"rtol": 2e-5, "atol": 2e-6}, "float64": {"rtol": 1e-10, "atol": 1e-12}}


def logits(*shape: int, dtype: str = "float32", scale: float = 2.0, rng=RNG) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(dtype)


def classes(count: int, *shape: int, rng=RNG) -> np.ndarray:
    return rng.integers(0, count, shape)


# Each case: key -> (fn, arrays, run_case's options); `fn(lib, *tensors)` runs in minitorch and
# in torch alike. `case` makes one; each test file's builders make one from a test's parameters.


def case(key: str, fn, arrays, differentiable) -> tuple[str, tuple]:
    return key, (fn, arrays, {"differentiable": list(differentiable)})


def functional(name: str, *args, **settings):
    """`fn(lib, *tensors)`: nn.functional's `name` of the tensors, then `args`, `settings`."""
    return lambda lib, *tensors: getattr(lib.nn.functional, name)(*tensors, *args, **settings)
