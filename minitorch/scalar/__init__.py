"""Module 1: `Scalar`, a number that remembers how it was computed, on the engine of `autodiff.py`.

`scalar_functions.py` holds each operation's forward and backward;
`scalar.py` the `Scalar` class that records them.
"""

from .scalar import Scalar, derivative_check

__all__ = ["Scalar", "derivative_check"]
