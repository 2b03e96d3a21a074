"""`F.gumbel_softmax`: its samples are distributed as torch's (the argmax of $x + g$ follows
$\\mathrm{softmax}(x)$), the soft sample is a softmax at temperature $\\tau$, and the hard one
is one-hot with the soft sample's gradient (straight through).

Its noise comes from minitorch's generator, not torch's, so the tests check these properties,
not torch's numbers; the warning is compared with torch live.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import statistical_draws

import minitorch
import minitorch.nn.functional as F

LOGITS = [[1.0, 0.0, -1.0, 2.0], [0.3, 0.3, 0.3, -2.0]]


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_hard_samples_follow_the_softmax_of_the_logits():
    """20000 draws per row (`statistical_draws`): each class's frequency within 4 standard errors
    of its probability."""
    minitorch.manual_seed(1)
    draws = statistical_draws(20000)
    logits = minitorch.tensor(LOGITS, dtype=minitorch.float64).repeat(draws, 1)
    samples = F.gumbel_softmax(logits, tau=0.7, hard=True).numpy().reshape(draws, 2, 4)
    assert set(np.unique(samples)) == {0.0, 1.0}
    assert (samples.sum(-1) == 1).all()
    frequency = samples.mean(0)
    p = softmax(np.array(LOGITS))
    standard_error = np.sqrt(p * (1 - p) / draws)
    assert (np.abs(frequency - p) < 4 * standard_error).all(), (frequency, p)


def test_soft_samples_are_a_tempered_softmax_whose_mean_argmax_follows_the_logits():
    minitorch.manual_seed(2)
    draws = statistical_draws(20000)
    logits = minitorch.tensor(LOGITS, dtype=minitorch.float64).repeat(draws, 1)
    soft = F.gumbel_softmax(logits, tau=0.2).numpy()
    np.testing.assert_allclose(soft.sum(-1), 1.0, rtol=1e-12)
    assert (soft > 0).all()
    winners = np.eye(4)[soft.argmax(-1)].reshape(draws, 2, 4).mean(0)
    p = softmax(np.array(LOGITS))
    assert (np.abs(winners - p) < 4 * np.sqrt(p * (1 - p) / draws)).all()
    # a low temperature concentrates each sample on its winner
    assert np.median(soft.max(-1)) > 0.9


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_hard_sample_is_the_one_hot_of_the_soft_one_with_its_gradient(dim):
    """The same seed gives the same noise: the hard sample is the one-hot argmax of the soft
    sample, and its gradient is the soft sample's."""
    rng = np.random.default_rng(3)
    weights = minitorch.tensor(rng.standard_normal((2, 4)))
    grads, values = [], []
    for hard in (False, True):
        x = minitorch.tensor(LOGITS, dtype=minitorch.float64, requires_grad=True)
        minitorch.manual_seed(4)
        out = F.gumbel_softmax(x, tau=0.5, hard=hard, dim=dim)
        (out * weights).sum().backward()
        values.append(out.detach().numpy())
        grads.append(x.grad.numpy())
    soft, hard = values
    expected = np.zeros_like(soft)
    np.put_along_axis(expected, soft.argmax(dim)[..., None] if dim else soft.argmax(0)[None], 1.0,
                      axis=dim)  # fmt: skip
    np.testing.assert_array_equal(hard, expected)
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=1e-14)


def test_soft_sample_gradient_against_central_differences():
    """With the noise fixed by the seed, the soft sample is a smooth function of the logits."""

    def sample(x):
        minitorch.manual_seed(5)
        return F.gumbel_softmax(x, tau=0.8)

    x = minitorch.tensor(LOGITS, dtype=minitorch.float64, requires_grad=True)
    assert minitorch.grad_check(sample, x)


def test_eps_is_deprecated():
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated and has no effect."):
        F.gumbel_softmax(minitorch.zeros(3), eps=1e-5)


def test_eps_warning_is_torchs(torch):
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated and has no effect."):
        torch.nn.functional.gumbel_softmax(torch.zeros(3), eps=1e-5)
