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
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
