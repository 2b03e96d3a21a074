"""Recurrent layers: `RNN`, `LSTM` and `GRU` (stacked, optionally bidirectional, with
PyTorch's parameter names, shapes and init, so state dicts load both ways) and their
one-step cells `RNNCell`, `LSTMCell`, `GRUCell`.

A layer takes a padded batch or a `PackedSequence` (`nn.utils.rnn`) and runs its cell
along the sequence: the input projection $W_{ih} x_t + b_{ih}$ of every step is one
matmul, then each step adds $W_{hh} h_{t-1} + b_{hh}$ and applies the cell's gates.
Every weight starts uniform in $\\pm 1/\\sqrt{\\text{hidden\\_size}}$.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..._tensor import Tensor
from ...ops.joins import cat, stack
from ...tensors.creation import empty, zeros
from .. import functional, init
from ..module import Module
from ..parameter import Parameter
from .function_layer import changed_options
from .packed_sequence import PackedSequence

GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def rnn_step(mode: str, projected: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None):
    """$h' = \\tanh$ (or relu) of $(W_{ih} x + b_{ih}) + W_{hh} h + b_{hh}$."""
    total = projected + functional.linear(h, w_hh, b_hh)
    return total.tanh() if mode == "RNN_TANH" else total.relu()


def lstm_step(projected: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, b_hh: Tensor | None):
    """The LSTM cell: with $(i, f, g, o)$ the four quarters of the gates
    $W_{ih} x + b_{ih} + W_{hh} h + b_{hh}$,
    $c' = \\sigma(f) c + \\sigma(i) \\tanh(g)$ and $h' = \\sigma(o) \\tanh(c')$.
    `projected` is the input's part, $W_{ih} x + b_{ih}$ (N, 4H); returns $(h', c')$."""
    # BEGIN SOLUTION 5.1
    gates = projected + functional.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c
    # END SOLUTION 5.1


def gru_step(projected: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None):
    """The GRU cell: $r = \\sigma(\\cdot)$, $z = \\sigma(\\cdot)$ (reset and update gates),
    $n = \\tanh(W_{in} x + b_{in} + r (W_{hn} h + b_{hn}))$, $h' = (1 - z) n + z h$."""
    recurrent = functional.linear(h, w_hh, b_hh)
    x_r, x_z, x_n = projected.chunk(3, -1)
    h_r, h_z, h_n = recurrent.chunk(3, -1)
    r = (x_r + h_r).sigmoid()
    z = (x_z + h_z).sigmoid()
    n = (x_n + r * h_n).tanh()
    return (1 - z) * n + z * h


def _uniform_init(module: Module, hidden_size: int) -> None:
    bound = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -bound, bound)


class RNNBase(Module):
    """What `RNN`, `LSTM` and `GRU` share: the stacked, optionally bidirectional layers
    and their parameters, `weight_ih_l{k}`, `weight_hh_l{k}`, `bias_ih_l{k}`,
    `bias_hh_l{k}` (and `weight_hr_l{k}` with an LSTM's `proj_size`), `_reverse` for the
    backward direction."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        if not isinstance(dropout, int | float) or not 0 <= dropout <= 1:
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of "
                "an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                stacklevel=3,
            )
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be greater than 0")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than 0")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        directions = 2 if bidirectional else 1
        gate_size = GATES[mode] * hidden_size
        out_size = proj_size or hidden_size
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else out_size * directions
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = [
                    ("weight_ih", (gate_size, layer_input)),
                    ("weight_hh", (gate_size, out_size)),
                ]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for name, shape in shapes:
                    setattr(
                        self, name + suffix, Parameter(empty(*shape, device=device, dtype=dtype))
                    )
                    self._flat_weights_names.append(name + suffix)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _uniform_init(self, self.hidden_size)

    def flatten_parameters(self) -> None:
        """A no-op: the weights are separate tensors here (PyTorch packs them for cuDNN)."""

    @property
    def all_weights(self) -> list[list[Parameter]]:
        per = len(self._flat_weights_names) // (self.num_layers * (2 if self.bidirectional else 1))
        weights = [getattr(self, n) for n in self._flat_weights_names]
        return [weights[i : i + per] for i in range(0, len(weights), per)]

    def _weights(self, layer: int, direction: int) -> dict[str, Any]:
        suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")
        return {n: getattr(self, n + suffix, None) for n in names}

    def _initial(self, input: Tensor, batch: int, size: int) -> Tensor:  # noqa: A002
        layers = self.num_layers * (2 if self.bidirectional else 1)
        return zeros(layers, batch, size, dtype=input.dtype, device=input.device)

    def _check(self, input: Tensor, hx: Tensor, expected: tuple[int, ...], what: str) -> None:  # noqa: A002
        if tuple(hx.shape) != expected:
            raise RuntimeError(f"Expected {what} size {expected}, got {list(hx.shape)}")

    def _run(self, data: Tensor, batch_sizes: list[int], states: list[Tensor]):
        """The layers over time-major packed `data` (sum(batch_sizes), H_in) from `states`
        (each (D * layers, N, H)): the packed output (sum(batch_sizes), D * H_out) and the
        final states. At step $t$ the first `batch_sizes[t]` rows of the state step; the
        others keep their value (finished sequences, or, backwards, ones not yet begun)."""
        directions = 2 if self.bidirectional else 1
        offsets = [0]
        for size in batch_sizes:
            offsets.append(offsets[-1] + size)
        finals: list[list[Tensor]] = [[] for _ in states]
        layer_input = data
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                w = self._weights(layer, direction)
                projected = functional.linear(layer_input, w["weight_ih"], w["bias_ih"])
                state = [s[layer * directions + direction] for s in states]
                seen = []
                steps = range(len(batch_sizes))
                for t in reversed(steps) if direction == 1 else steps:
                    size = batch_sizes[t]
                    rows = projected[offsets[t] : offsets[t] + size]
                    whole = size == state[0].shape[0]
                    new = self._cell(rows, state if whole else [s[:size] for s in state], w)
                    seen.append(new[0])
                    if not whole:
                        new = [cat([n, s[size:]]) for n, s in zip(new, state, strict=True)]
                    state = new
                outputs.append(cat(seen[::-1] if direction == 1 else seen))
                for final, value in zip(finals, state, strict=True):
                    final.append(value)
            layer_input = outputs[0] if directions == 1 else cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = functional.dropout(layer_input, self.dropout, True)
        return layer_input, [stack(f) for f in finals]

    def _cell(self, projected: Tensor, state: list[Tensor], w: dict[str, Any]) -> list[Tensor]:
        if self.mode == "LSTM":
            h, c = lstm_step(projected, state[0], state[1], w["weight_hh"], w["bias_hh"])
            if w["weight_hr"] is not None:
                h = functional.linear(h, w["weight_hr"])
            return [h, c]
        if self.mode == "GRU":
            return [gru_step(projected, state[0], w["weight_hh"], w["bias_hh"])]
        return [rnn_step(self.mode, projected, state[0], w["weight_hh"], w["bias_hh"])]

    def forward(self, input: Tensor | PackedSequence, hx: Any = None) -> tuple[Any, Any]:  # noqa: A002
        """The output (L, N, D * H_out) (or (N, L, ...) with `batch_first`, or a
        `PackedSequence` for a packed input) and the final states (D * layers, N, H)."""
        packed = isinstance(input, PackedSequence)
        data = input.data if packed else input
        if not packed and input.dim() not in (2, 3):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D "
                "tensor instead"
            )
        if data.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {data.shape[-1]}"
            )
        batched = packed or input.dim() == 3
        if packed:
            batch_sizes = [int(n) for n in input.batch_sizes.tolist()]
        else:
            if not batched:
                data = data.unsqueeze(1)
            elif self.batch_first:
                data = data.transpose(0, 1)
            batch_sizes = [data.shape[1]] * data.shape[0]
            data = data.reshape(-1, self.input_size)
        batch = batch_sizes[0]
        layers = self.num_layers * (2 if self.bidirectional else 1)
        out_size = self.proj_size or self.hidden_size
        is_lstm = self.mode == "LSTM"
        if hx is None:
            states = [self._initial(data, batch, out_size)]
            if is_lstm:
                states.append(self._initial(data, batch, self.hidden_size))
        else:
            states = list(hx) if is_lstm else [hx]
            if not batched:
                states = [s.unsqueeze(1) for s in states]
            if packed and input.sorted_indices is not None:
                states = [s.index_select(1, input.sorted_indices) for s in states]
            self._check(data, states[0], (layers, batch, out_size), "hidden")
            if is_lstm:
                self._check(data, states[1], (layers, batch, self.hidden_size), "hidden[1]")
        output, finals = self._run(data, batch_sizes, states)
        if packed:
            if input.unsorted_indices is not None:
                finals = [f.index_select(1, input.unsorted_indices) for f in finals]
            output = PackedSequence(
                output, input.batch_sizes, input.sorted_indices, input.unsorted_indices
            )
        else:
            output = output.reshape(len(batch_sizes), batch, -1)
            if not batched:
                output = output.squeeze(1)
                finals = [f.squeeze(1) for f in finals]
            elif self.batch_first:
                output = output.transpose(0, 1)
        return output, (tuple(finals) if is_lstm else finals[0])

    def extra_repr(self) -> str:
        defaults = {"proj_size": 0, "num_layers": 1, "bias": True, "batch_first": False}
        defaults.update(dropout=0, bidirectional=False)
        return f"{self.input_size}, {self.hidden_size}" + changed_options(self, defaults)


class RNN(RNNBase):
    """The Elman RNN: $h_t = \\tanh(W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh})$ (or relu,
    `nonlinearity="relu"`), layer on layer."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        nonlinearity: str = "tanh",
        **kwargs: Any,
    ) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(
            "RNN_" + nonlinearity.upper(), input_size, hidden_size, num_layers, **kwargs
        )
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """Long short-term memory (Hochreiter & Schmidhuber), layer on layer (see `lstm_step`);
    with `proj_size` each step's $h$ is projected by `weight_hr`. Takes and returns
    `(h, c)`."""

    def __init__(
        self, input_size: int, hidden_size: int, num_layers: int = 1, **kwargs: Any
    ) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, **kwargs)


class GRU(RNNBase):
    """Gated recurrent units (Cho et al.), layer on layer (see `gru_step`)."""

    def __init__(
        self, input_size: int, hidden_size: int, num_layers: int = 1, **kwargs: Any
    ) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, **kwargs)


class RNNCellBase(Module):
    """One step of a recurrent layer: parameters `weight_ih`, `weight_hh`, `bias_ih`,
    `bias_hh`; an input (N, H_in) or (H_in) and a state (zeros when not given)."""

    gates = 1

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        gate_size = self.gates * hidden_size
        self.weight_ih = Parameter(empty(gate_size, input_size, device=device, dtype=dtype))
        self.weight_hh = Parameter(empty(gate_size, hidden_size, device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(gate_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(empty(gate_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _uniform_init(self, self.hidden_size)

    def _prepared(self, input: Tensor, hx: Any) -> tuple[Tensor, list[Tensor], bool]:  # noqa: A002
        if input.dim() not in (1, 2):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead"
            )
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)  # noqa: A001
        if hx is None:
            shape = (input.shape[0], self.hidden_size)
            states = [zeros(*shape, dtype=input.dtype, device=input.device)] * (
                2 if self.gates == 4 else 1
            )
        else:
            states = list(hx) if self.gates == 4 else [hx]
            if not batched:
                states = [s.unsqueeze(0) for s in states]
        projected = functional.linear(input, self.weight_ih, self.bias_ih)
        return projected, states, batched

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        return s + (f", nonlinearity={nonlinearity}" if nonlinearity != "tanh" else "")


class RNNCell(RNNCellBase):
    """$h' = \\tanh(W_{ih} x + b_{ih} + W_{hh} h + b_{hh})$ (or relu)."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device=None,
        dtype=None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        projected, (h,), batched = self._prepared(input, hx)
        h = rnn_step("RNN_" + self.nonlinearity.upper(), projected, h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step (see `lstm_step`): takes and returns `(h, c)`."""

    gates = 4

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Tensor]:  # noqa: A002
        projected, (h, c), batched = self._prepared(input, hx)
        h, c = lstm_step(projected, h, c, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step (see `gru_step`)."""

    gates = 3

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        projected, (h,), batched = self._prepared(input, hx)
        h = gru_step(projected, h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
