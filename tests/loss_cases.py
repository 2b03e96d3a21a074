"""What the loss tests share: inputs, the dtypes and reductions they run, float tolerances,
and the builders of a recorded case (key -> (fn, arrays, run_case's options)).

`RNG` draws the inputs of the tests that are not recorded (central differences, errors); a
recorded case draws its own from `case_rng(key)` and passes it as `rng`. The builders of the
margin, likelihood and CTC losses (`ranking_case`, ..., `ctc_case`) serve their functional
tests and their layers' alike; `float64_cases` picks the cases central differences check.
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


def normal(rng, *shape, dtype="float64", scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def signs(rng, *shape, dtype="float64"):
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0).astype(dtype)


# Each builder: (rng, batch, dtype, reduction) -> (fn, arrays, which arrays require grad).


def ranking_case(rng, n, dtype, reduction):
    arrays = [normal(rng, n, dtype=dtype), normal(rng, n, dtype=dtype), signs(rng, n, dtype=dtype)]
    return functional("margin_ranking_loss", margin=0.3, reduction=reduction), arrays, [1, 1, 1]


def hinge_case(rng, n, dtype, reduction):
    arrays = [normal(rng, n, 3, dtype=dtype), signs(rng, n, 3, dtype=dtype)]
    return functional("hinge_embedding_loss", margin=0.7, reduction=reduction), arrays, [1, 1]


def soft_margin_case(rng, n, dtype, reduction):
    arrays = [normal(rng, n, 3, dtype=dtype, scale=2.0), signs(rng, n, 3, dtype=dtype)]
    return functional("soft_margin_loss", reduction=reduction), arrays, [1, 0]


def multilabel_soft_case(rng, n, dtype, reduction):
    x, y = normal(rng, n, 4, dtype=dtype), (rng.random((n, 4)) < 0.5).astype(dtype)
    weight = (rng.random(4) + 0.5).astype(dtype)
    fn = functional("multilabel_soft_margin_loss", reduction=reduction)
    return fn, [x, y, weight], [1, 1, 1]


def multi_margin_case(rng, n, dtype, reduction):
    arrays = [normal(rng, n, 4, dtype=dtype), rng.integers(0, 4, n), rng.random(4).astype(dtype)]

    def fn(lib, x, t, w):
        return lib.nn.functional.multi_margin_loss(x, t, 2, 0.8, w, reduction=reduction)

    return fn, arrays, [1, 0, 0]


def multi_margin_plain_case(rng, n, dtype, reduction):
    arrays = [normal(rng, n, 4, dtype=dtype), rng.integers(0, 4, n)]
    return functional("multi_margin_loss", reduction=reduction), arrays, [1, 0]


def multilabel_margin_case(rng, n, dtype, reduction):
    target = rng.integers(-1, 5, (n, 5))  # the classes before each row's first -1 count
    arrays = [normal(rng, n, 5, dtype=dtype), target]
    return functional("multilabel_margin_loss", reduction=reduction), arrays, [1, 0]


def cosine_embedding_case(rng, n, dtype, reduction):
    arrays = [normal(rng, n, 4, dtype=dtype), normal(rng, n, 4, dtype=dtype)]
    arrays.append(signs(rng, n, dtype=dtype))
    return functional("cosine_embedding_loss", margin=0.2, reduction=reduction), arrays, [1, 1, 0]


def triplet_case(rng, n, dtype, reduction, **settings):
    arrays = [normal(rng, n, 4, dtype=dtype) for _ in range(3)]
    fn = functional("triplet_margin_loss", reduction=reduction, **settings)
    return fn, arrays, [1, 1, 1]


def triplet_distance_case(rng, n, dtype, reduction):
    def fn(lib, a, p, q):
        def distance(u, v):
            return 1 - lib.nn.functional.cosine_similarity(u, v)

        return lib.nn.functional.triplet_margin_with_distance_loss(
            a, p, q, distance_function=distance, margin=0.5, swap=True, reduction=reduction
        )

    return fn, [normal(rng, n, 4, dtype=dtype) for _ in range(3)], [1, 1, 1]


def kl_case(rng, n, dtype, reduction, log_target=False, zero=False):
    x = np.log(rng.dirichlet(np.ones(4), n)).astype(dtype)
    y = rng.dirichlet(np.ones(4), n).astype(dtype)
    if log_target:
        y = np.log(y).astype(dtype)
    if zero and n:
        y[0, 0] = 0.0  # 0 ln 0 counts as 0 (no derivative in y there: y is not differentiated)
    fn = functional("kl_div", reduction=reduction, log_target=log_target)
    return fn, [x, y], [1, 0 if zero else 1]


def poisson_case(rng, n, dtype, reduction, **settings):
    log_input = settings.get("log_input", True)
    x = normal(rng, n, 3, dtype=dtype) if log_input else (rng.random((n, 3)) + 0.1).astype(dtype)
    y = (rng.poisson(2.0, (n, 3)) + rng.random((n, 3))).astype(dtype)
    return functional("poisson_nll_loss", reduction=reduction, **settings), [x, y], [1, 1]


def gaussian_case(rng, n, dtype, reduction, var_shape=(None, 3), tiny=False, **settings):
    shape = tuple(n if s is None else s for s in var_shape)
    var = (rng.random(shape) + 0.05).astype(dtype)
    if tiny:
        var[:, :2] = 1e-8  # below eps: clamped, the gradient passing through
    arrays = [normal(rng, n, 3, dtype=dtype), normal(rng, n, 3, dtype=dtype), var]
    return functional("gaussian_nll_loss", reduction=reduction, **settings), arrays, [1, 1, 1]


def ctc_case(rng, n, dtype, reduction, lengths=(6, 5, 4, 6), **settings):
    """Logits of 6 steps over 5 classes through log_softmax (torch's gradient of log_probs
    themselves differs, see test_ctc_gradient_of_log_probs), padded targets."""
    lengths = list(lengths)[:n]
    target_lengths = [3, 1, 2, 0][:n]
    targets = rng.integers(1, 5, (n, 3))

    def fn(lib, x, t):
        return lib.nn.functional.ctc_loss(
            x.log_softmax(2), t, lengths, target_lengths, reduction=reduction, **settings
        )

    return fn, [normal(rng, 6, n, 5, dtype=dtype), targets], [1, 0]


def t(lib, values, dtype="float64"):
    return lib.tensor(np.asarray(values), dtype=getattr(lib, dtype))


X = np.arange(12.0).reshape(3, 4) / 10
# Where a clamp holds, the gradient is not the derivative of the value (the clamp is outside
# autograd in torch too): those cases are checked against torch's gradients only.
CLAMPED = ("var below eps", "tiny vectors", "eps=1.0")


def float64_cases(cases: dict[str, tuple]) -> list[str]:
    """The keys of `cases` whose gradients central differences check: float64, no clamp, and
    no empty batch (checked against torch's empty gradients only)."""
    return sorted(
        key
        for key in cases
        if "float32" not in key and not any(c in key for c in CLAMPED) and not key.endswith(", 0)")
    )
