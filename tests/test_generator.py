"""`minitorch.Generator` and the `generator=` argument of the random functions.

Streams differ from torch's (another algorithm), so these check reproducibility,
independence of generators, and the distributions by their statistics."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

RANDOM_CALLS = {
    "rand": lambda g: minitorch.rand(4, generator=g),
    "randn": lambda g: minitorch.randn(2, 3, generator=g),
    "randint": lambda g: minitorch.randint(0, 10, (5,), generator=g),
    "normal": lambda g: minitorch.normal(1.0, 2.0, (4,), generator=g),
    "normal_tensor": lambda g: minitorch.normal(minitorch.zeros(3), minitorch.ones(3), generator=g),
    "randperm": lambda g: minitorch.randperm(6, generator=g),
    "bernoulli": lambda g: minitorch.bernoulli(minitorch.full((6,), 0.5), generator=g),
    "multinomial": lambda g: minitorch.multinomial(minitorch.ones(5), 3, generator=g),
    "uniform_": lambda g: minitorch.empty(4).uniform_(-1.0, 1.0, generator=g),
    "normal_": lambda g: minitorch.empty(4).normal_(generator=g),
}


@pytest.mark.parametrize("call", list(RANDOM_CALLS.values()), ids=list(RANDOM_CALLS))
def test_seeded_generator_repeats_and_leaves_the_default_alone(call):
    minitorch.manual_seed(5)
    expected_default = minitorch.rand(3).tolist()
    minitorch.manual_seed(5)
    first = call(minitorch.Generator().manual_seed(11)).tolist()
    second = call(minitorch.Generator().manual_seed(11)).tolist()
    assert first == second
    assert minitorch.rand(3).tolist() == expected_default  # the default stream did not move


def test_get_state_set_state_replays_the_stream():
    g = minitorch.Generator().manual_seed(3)
    state = g.get_state()
    a = minitorch.randn(5, generator=g).tolist()
    b = minitorch.randn(5, generator=g).tolist()
    assert a != b
    g.set_state(state)
    assert minitorch.randn(5, generator=g).tolist() == a
    assert g.initial_seed() == 3


def test_manual_seed_returns_the_default_generator_and_seed_changes_it():
    g = minitorch.manual_seed(7)
    assert g is minitorch.default_generator and minitorch.initial_seed() == 7
    new = minitorch.seed()
    assert minitorch.initial_seed() == new
    assert isinstance(minitorch.Generator().manual_seed(1), minitorch.Generator)


def test_generator_argument_must_be_a_generator():
    with pytest.raises(TypeError, match="generator must be a minitorch.Generator"):
        minitorch.rand(2, generator=np.random.default_rng(0))


def test_normal_statistics_and_forms():
    g = minitorch.Generator().manual_seed(0)
    x = minitorch.normal(3.0, 2.0, (20000,), generator=g).numpy()
    assert abs(x.mean() - 3.0) < 0.05 and abs(x.std() - 2.0) < 0.05
    means = minitorch.tensor([-5.0, 0.0, 5.0], dtype=minitorch.float64)
    y = minitorch.normal(means.expand(4000, 3), 0.5, generator=g)
    assert y.dtype == minitorch.float64 and tuple(y.shape) == (4000, 3)
    np.testing.assert_allclose(y.numpy().mean(0), [-5.0, 0.0, 5.0], atol=0.05)
    np.testing.assert_allclose(y.numpy().std(0), [0.5] * 3, atol=0.03)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
        minitorch.normal(0.0, -1.0, (2,))


def test_bernoulli_and_randperm_statistics():
    g = minitorch.Generator().manual_seed(1)
    p = minitorch.tensor([0.0, 0.25, 1.0], dtype=minitorch.float64)
    draws = minitorch.bernoulli(p.expand(8000, 3), generator=g)
    assert draws.dtype == minitorch.float64
    np.testing.assert_allclose(draws.numpy().mean(0), [0.0, 0.25, 1.0], atol=0.02)
    perm = minitorch.randperm(50, generator=g)
    assert perm.dtype == minitorch.int64 and sorted(perm.tolist()) == list(range(50))
    with pytest.raises(RuntimeError, match=r"Expected p_in >= 0 && p_in <= 1"):
        minitorch.bernoulli(minitorch.tensor([1.5]))


def test_multinomial_frequencies_and_without_replacement():
    g = minitorch.Generator().manual_seed(2)
    weights = minitorch.tensor([[1.0, 3.0, 0.0, 4.0], [0.0, 0.0, 1.0, 0.0]])
    picks = minitorch.multinomial(weights, 6000, replacement=True, generator=g)
    assert picks.dtype == minitorch.int64 and tuple(picks.shape) == (2, 6000)
    counts = np.bincount(picks.numpy()[0], minlength=4) / 6000
    np.testing.assert_allclose(counts, [0.125, 0.375, 0.0, 0.5], atol=0.02)
    assert set(picks.numpy()[1].tolist()) == {2}
    rows = minitorch.multinomial(minitorch.tensor([1.0, 2.0, 3.0, 4.0]), 4, generator=g)
    assert sorted(rows.tolist()) == [0, 1, 2, 3]  # each index once
    # without replacement, the first pick follows the weights
    firsts = [
        minitorch.multinomial(minitorch.tensor([1.0, 3.0]), 2, generator=g)[0].item()
        for _ in range(2000)
    ]
    assert abs(np.mean(firsts) - 0.75) < 0.03
    # torch: zero weights come after the others (no error)
    assert minitorch.multinomial(minitorch.tensor([1.0, 0.0]), 2).tolist() == [0, 1]


@pytest.mark.parametrize(
    "weights, n, replacement, message",
    [
        ([1.0, -1.0], 1, False, "probability tensor contains either `inf`, `nan` or element < 0"),
        ([0.0, 0.0], 1, False, r"invalid multinomial distribution \(sum of probabilities <= 0\)"),
        ([1.0, 1.0], 3, False, "cannot sample n_sample > prob_dist.size"),
    ],
)
def test_multinomial_errors_as_torch(torch, weights, n, replacement, message):

    for library in (minitorch, torch):
        with pytest.raises(RuntimeError, match=message):
            library.multinomial(library.tensor(weights), n, replacement)
