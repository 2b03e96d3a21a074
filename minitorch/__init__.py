"""minitorch: a small autograd framework that teaches how PyTorch works by building it."""
