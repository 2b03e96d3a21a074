"""minitorch: a small autograd framework that teaches how PyTorch works by building it.

Every public name is imported explicitly below and listed in ``__all__``.
"""

__all__: list[str] = []
