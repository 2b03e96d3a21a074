"""What the tests of `minitorch.operators` share: hypothesis settings and strategies of
floats, and the checks of a value and of a derivative (a central difference written here, so
that the tests do not rely on task 1.1).
"""

import math

from hypothesis import settings
from hypothesis import strategies as st

FEW = settings(max_examples=50, deadline=None)

moderate = st.floats(min_value=-100.0, max_value=100.0, allow_nan=False)
positive = st.floats(min_value=0.1, max_value=100.0)
nonzero = st.one_of(
    st.floats(min_value=-100.0, max_value=-0.1), st.floats(min_value=0.1, max_value=100.0)
)
upstream = st.floats(min_value=-5.0, max_value=5.0)  # the `d` passed to a *_back helper


def numerical_derivative(f, x: float, h: float = 1e-6) -> float:
    """$(f(x + h) - f(x - h)) / 2h$, written here so the tests do not rely on task 1.1."""
    return (f(x + h) - f(x - h)) / (2.0 * h)


def assert_close(got: float, expected: float, what: str, rel: float = 1e-9, abs_: float = 1e-9):
    assert math.isclose(got, expected, rel_tol=rel, abs_tol=abs_), (
        f"{what}: got {got!r}, expected {expected!r}"
    )
