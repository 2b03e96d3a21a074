"""scripts/bench_scalar.py: the shared network, the loss, and the checks around the timing."""

from __future__ import annotations

import gc
import math

import pytest

from minitorch import Scalar
from minitorch.datasets import xor
from scripts import bench_scalar as bench

# A 2-2-1 network: hidden h_j = relu(b_j + w_j0 x0 + w_j1 x1), output s = b + v0 h0 + v1 h1.
WEIGHTS = [[([1.0, -2.0], 0.5), ([0.25, 1.0], -1.0)], [([2.0, -3.0], 0.1)]]


def test_forward_of_a_small_network() -> None:
    network = bench.build_network(WEIGHTS, Scalar)
    # x = (3, 1): h0 = relu(0.5 + 3 - 2) = 1.5, h1 = relu(-1 + 0.75 + 1) = 0.75
    # s = 0.1 + 2 * 1.5 - 3 * 0.75 = 0.85 (no ReLU on the last layer)
    score = bench.forward(network, [Scalar(3.0), Scalar(1.0)])
    assert math.isclose(score.data, 0.85, rel_tol=1e-12), f"score {score.data}, expected 0.85"
    # x = (0, 1): h0 = relu(0.5 - 2) = 0, h1 = relu(-1 + 1) = 0, s = 0.1
    score = bench.forward(network, [Scalar(0.0), Scalar(1.0)])
    assert math.isclose(score.data, 0.1, rel_tol=1e-12), f"score {score.data}, expected 0.1"


def test_hinge_loss_and_its_gradient() -> None:
    network = bench.build_network(WEIGHTS, Scalar)
    points = [[Scalar(3.0), Scalar(1.0)], [Scalar(0.0), Scalar(1.0)]]
    loss = bench.hinge_loss(network, points, [1.0, -1.0])
    # relu(1 - 0.85) = 0.15 and relu(1 + 0.1) = 1.1, mean 0.625
    assert math.isclose(loss.data, 0.625, rel_tol=1e-12), f"loss {loss.data}, expected 0.625"
    loss.backward()
    # d loss / d b_out = (-1 + 1) / 2 = 0; d loss / d v0 = (-h0 of point 1 + h0 of point 2) / 2
    output_weights, output_bias = network[1][0]
    assert output_bias.grad == 0.0, f"output bias grad {output_bias.grad}, expected 0"
    assert math.isclose(output_weights[0].grad, -0.75), f"v0 grad {output_weights[0].grad}"


def test_initial_weights_are_seeded_and_shaped() -> None:
    weights = bench.initial_weights(3)
    assert [len(layer) for layer in weights] == [16, 16, 1]
    assert [len(layer[0][0]) for layer in weights] == [2, 16, 16]
    assert all(-1.0 <= w <= 1.0 for layer in weights for ws, _ in layer for w in ws)
    assert all(b == 0.0 for layer in weights for _, b in layer)
    assert bench.initial_weights(3) == weights and bench.initial_weights(4) != weights


def test_check_same_result_catches_a_difference() -> None:
    data = xor(6, seed=1)
    a = bench.Engine("a", Scalar, None, bench.initial_weights(0), data)
    same = bench.Engine("same", Scalar, None, bench.initial_weights(0), data)
    bench.check_same_result(a, same)
    other = bench.Engine("other", Scalar, None, bench.initial_weights(1), data)
    with pytest.raises(AssertionError, match="differ: a .*, other "):
        bench.check_same_result(a, other)


def test_micrograd_builds_the_same_graph_values() -> None:
    import micrograd.engine as engine
    data = xor(8, seed=2)
    weights = bench.initial_weights(5)
    ours = bench.Engine("minitorch", Scalar, None, weights, data)
    theirs = bench.Engine("micrograd", engine.Value, 0, weights, data)
    bench.check_same_result(ours, theirs)  # same loss and every gradient


def test_full_collections_are_counted() -> None:
    with bench.FullCollections() as counter:
        gc.collect()  # a full collection
        gc.collect(0)  # a young one, not counted
    assert counter.count == 1, f"{counter.count} full collections counted, expected 1"
    assert counter.seconds >= 0.0
    assert counter not in gc.callbacks, "the callback stays registered"
