"""The layers of `minitorch.nn`, one file per family as in `torch.nn.modules`.

`minitorch.nn` re-exports each of them (`minitorch.nn.Conv2d`, ...).
"""
