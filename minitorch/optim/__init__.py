"""`minitorch.optim`, as `torch.optim`: what updates the parameters after `loss.backward()`.

>>> import minitorch
>>> w = minitorch.tensor([1.0, 2.0], requires_grad=True)
>>> optimizer = minitorch.optim.SGD([w], lr=0.1)
>>> (w * w).sum().backward()
>>> optimizer.step()
>>> w
tensor([0.8000, 1.6000], requires_grad=True)
"""

from . import lr_scheduler
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = [
    "ASGD",
    "SGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "LBFGS",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "lr_scheduler",
]
