"""The layers of `minitorch.nn`, one file per family as in `torch.nn.modules`.

`minitorch.nn` imports each of them by name (`minitorch.nn.Conv2d`, ...).
"""
