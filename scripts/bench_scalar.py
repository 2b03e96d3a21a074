"""Time one training step of a 2-16-16-1 MLP of minitorch Scalars, and of micrograd's if installed.

Usage:
    python scripts/bench_scalar.py [--points 100] [--rounds 7] [--steps 3] [--gc-variants]
                                   [--alternate-steps]

One step: zero the gradients, run the network forward on every point, compute the mean
hinge loss $\\frac{1}{n}\\sum_i \\mathrm{relu}(1 - y_i s_i)$ of its scores $s_i$ (labels
$y_i = \\pm 1$) and run `backward()` on it. The network (ReLU hidden layers, linear output)
is written once, for any value type with `+`, `*` and `.relu()`, so both engines build the
very same graph from the very same weights and points (`check_same_result` compares losses
and gradients first).

When `micrograd` is importable, both engines run in the same process, taking turns in blocks:
`gc.collect()`, one untimed warm-up step, then `--steps` timed steps; `--rounds` turns each.
A block is what a training loop of one engine looks like. Alternating single steps instead
(`--alternate-steps`) measures something else: a micrograd graph is a set of reference cycles
(each node's `_backward` closure refers back to the node), freed only by the cyclic garbage
collector, so minitorch's collections would then also sweep and free micrograd's garbage.

The table shows, per engine, the best and the median time of a step, how many full (generation
2) collections ran per step and the time spent in them, and micrograd / minitorch (above 1:
minitorch is faster). The headline uses Python's default collector settings; `--gc-variants`
adds rows with other settings, applied to both engines alike.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from minitorch import Scalar, topological_sort
from minitorch.datasets import Dataset, xor

try:
    from micrograd.engine import Value
except ImportError:  # micrograd is optional
    Value = None

LAYER_SIZES = (2, 16, 16, 1)

# The weights of one layer: one (weights, bias) pair per output neuron.
Layer = list[tuple[list[Any], Any]]
FloatWeights = list[list[tuple[list[float], float]]]


def initial_weights(seed: int, sizes: Sequence[int] = LAYER_SIZES) -> FloatWeights:
    """Uniform weights in [-1, 1] and zero biases, as micrograd's `Neuron` starts."""
    rng = random.Random(seed)
    return [
        [([rng.uniform(-1.0, 1.0) for _ in range(n_in)], 0.0) for _ in range(n_out)]
        for n_in, n_out in zip(sizes, sizes[1:], strict=False)
    ]


def build_network(weights: FloatWeights, make: Callable) -> list[Layer]:
    """The float weights wrapped as leaves of one engine (`make` is `Scalar` or `Value`)."""
    return [[([make(w) for w in ws], make(b)) for ws, b in layer] for layer in weights]


def parameters(network: list[Layer]) -> list[Any]:
    return [p for layer in network for ws, b in layer for p in (*ws, b)]


def forward(network: list[Layer], point: Sequence[Any]) -> Any:
    """$b + \\sum_j w_j x_j$ per neuron, added left to right as micrograd's `Neuron` does,
    with ReLU on every layer but the last."""
    values = list(point)
    for depth, layer in enumerate(network):
        outputs = []
        for ws, b in layer:
            total = b
            for w, x in zip(ws, values, strict=True):
                total = total + w * x
            outputs.append(total.relu() if depth < len(network) - 1 else total)
        values = outputs
    return values[0]


def hinge_loss(network: list[Layer], points: list[list[Any]], signs: list[float]) -> Any:
    """$\\frac{1}{n} \\sum_i \\mathrm{relu}(1 - y_i s_i)$: micrograd's demo loss without its
    weight penalty."""
    total = None
    for point, sign in zip(points, signs, strict=True):
        loss = (1.0 + (-sign) * forward(network, point)).relu()
        total = loss if total is None else total + loss
    return total * (1.0 / len(points))


class Engine:
    """One engine's network, inputs and training step."""

    def __init__(
        self, name: str, make: Callable, zero: Any, weights: FloatWeights, data: Dataset
    ) -> None:
        self.name = name
        self.network = build_network(weights, make)
        self.params = parameters(self.network)
        self.points = [[make(x1), make(x2)] for x1, x2 in data.X]
        self.signs = [2.0 * y - 1.0 for y in data.y]
        self.zero = zero  # what "no gradient yet" is: None for minitorch, 0 for micrograd

    def step(self) -> float:
        for p in self.params:
            p.grad = self.zero
        loss = hinge_loss(self.network, self.points, self.signs)
        loss.backward()
        return loss.data


def check_same_result(a: Engine, b: Engine) -> None:
    """Both engines must compute the same loss and gradients, or the timing means nothing."""
    loss_a, loss_b = a.step(), b.step()
    if abs(loss_a - loss_b) > 1e-9 * (1.0 + abs(loss_a)):
        raise AssertionError(f"losses differ: {a.name} {loss_a}, {b.name} {loss_b}")
    for i, (pa, pb) in enumerate(zip(a.params, b.params, strict=True)):
        ga, gb = pa.grad or 0.0, pb.grad or 0.0
        if abs(ga - gb) > 1e-9 * (1.0 + abs(ga)):
            raise AssertionError(f"gradient {i} differs: {a.name} {ga}, {b.name} {gb}")


class FullCollections:
    """Counts the full (generation 2) collections, and the time in them, while active."""

    def __init__(self) -> None:
        self.count = 0
        self.seconds = 0.0
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.count += 1
            self.seconds += time.perf_counter() - self._start

    def __enter__(self) -> FullCollections:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)


class Timings:
    """Step times and full collections of one engine."""

    def __init__(self) -> None:
        self.steps: list[float] = []
        self.collections = FullCollections()

    def time_step(self, engine: Engine) -> None:
        with self.collections:
            start = time.perf_counter()
            engine.step()
            self.steps.append(time.perf_counter() - start)


def measure(
    engines: list[Engine], rounds: int, steps: int, alternate_steps: bool
) -> dict[str, Timings]:
    """Blocks of `steps` timed steps per engine, after a collection and a warm-up step; or,
    with `alternate_steps`, single steps taking turns with nothing in between."""
    timings = {engine.name: Timings() for engine in engines}
    if alternate_steps:
        for engine in engines:
            engine.step()
        for _ in range(rounds * steps):
            for engine in engines:
                timings[engine.name].time_step(engine)
            if not gc.isenabled():
                gc.collect()  # untimed: micrograd's graphs would pile up without it
        return timings
    for _ in range(rounds):
        for engine in engines:
            gc.collect()
            engine.step()
            for _ in range(steps):
                timings[engine.name].time_step(engine)
    return timings


class GcSetting:
    """A garbage-collector setting applied, the same way, around the timing of every engine."""

    def __init__(self, label: str, apply: Callable[[], None]) -> None:
        self.label = label
        self.apply = apply

    def __enter__(self) -> None:
        self.saved = (gc.isenabled(), gc.get_threshold())
        self.apply()

    def __exit__(self, *exc: object) -> None:
        enabled, threshold = self.saved
        gc.set_threshold(*threshold)
        (gc.enable if enabled else gc.disable)()


GC_SETTINGS = [
    GcSetting("default gc", lambda: None),
    # micrograd's graphs are then freed only by the gc.collect() before each block
    GcSetting("gc disabled", gc.disable),
    GcSetting("gc threshold 50000", lambda: gc.set_threshold(50_000, 10, 10)),
]


def graph_size(engine: Engine) -> int:
    """The number of non-constant Scalars one minitorch step backpropagates through."""
    return len(topological_sort(hinge_loss(engine.network, engine.points, engine.signs)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=100, help="points per step (default 100)")
    parser.add_argument("--rounds", type=int, default=7, help="turns per engine (default 7)")
    parser.add_argument("--steps", type=int, default=3, help="timed steps per turn (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--gc-variants", action="store_true", help="also time other collector settings"
    )
    parser.add_argument(
        "--alternate-steps", action="store_true", help="engines take turns every single step"
    )
    args = parser.parse_args(argv)
    if args.points < 2 or args.rounds < 1 or args.steps < 1:
        parser.error("need --points >= 2, --rounds >= 1 and --steps >= 1")

    data = xor(args.points, seed=args.seed)
    weights = initial_weights(args.seed)
    engines = [Engine("minitorch", Scalar, None, weights, data)]
    if Value is not None:
        engines.append(Engine("micrograd", Value, 0, weights, data))
        check_same_result(engines[0], engines[1])
    else:
        print("micrograd is not installed: timing minitorch alone")

    if args.alternate_steps:
        scheme = f"{args.rounds * args.steps} single steps in turn"
    else:
        scheme = f"{args.rounds} turns of {args.steps} steps"
    print(
        f"one step = forward + backward of a {'-'.join(map(str, LAYER_SIZES))} MLP over "
        f"{args.points} points ({graph_size(engines[0])} Scalars); {scheme}; "
        f"Python {sys.version.split()[0]}"
    )
    print(
        f"{'gc setting':<19} {'engine':<10} {'best ms':>8} {'median ms':>9} "
        f"{'full gc/step':>12} {'ms in them':>10}  micrograd/minitorch (best, median)"
    )
    settings = GC_SETTINGS if args.gc_variants else GC_SETTINGS[:1]
    for setting in settings:
        with setting:
            timings = measure(engines, args.rounds, args.steps, args.alternate_steps)
        best = {name: min(t.steps) for name, t in timings.items()}
        median = {name: statistics.median(t.steps) for name, t in timings.items()}
        for name, t in timings.items():
            n = len(t.steps)
            line = (
                f"{setting.label:<19} {name:<10} {best[name] * 1e3:8.1f} {median[name] * 1e3:9.1f} "
                f"{t.collections.count / n:12.1f} {t.collections.seconds / n * 1e3:10.1f}"
            )
            if name == "micrograd":
                line += (
                    f"  {best[name] / best['minitorch']:.2f}x, "
                    f"{median[name] / median['minitorch']:.2f}x"
                )
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
