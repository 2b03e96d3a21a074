"""torch.autograd's pre-0.4 names (Variable, variable) and the engine switches, with what
torch 2.13 does (recorded here; checked live when torch is installed)."""

import pytest

import minitorch


def observe(lib):
    variable = lib.autograd.Variable
    x = lib.ones(2)
    facts = [variable(x) is x, variable(x).requires_grad]
    leaf = variable(x, requires_grad=True)
    facts += [leaf.requires_grad, leaf.is_leaf, isinstance(x, variable), leaf.tolist()]
    computed = variable(lib.ones(2, requires_grad=True) * 2)
    facts += [computed.grad_fn is None, computed.requires_grad, tuple(variable().shape)]
    leaf.sum().backward()
    facts.append(leaf.grad.tolist())
    for bad in (lambda: variable([1, 2]), lambda: lib.autograd.variable(x)):
        try:
            bad()
        except (TypeError, RuntimeError) as error:
            facts.append((type(error).__name__, str(error)))
    facts += [lib.autograd.is_multithreading_enabled(), lib.autograd.is_view_replay_enabled()]
    with lib.autograd.set_multithreading_enabled(False):
        facts.append(lib.autograd.is_multithreading_enabled())
    facts.append(lib.autograd.is_multithreading_enabled())
    return facts


EXPECTED = [  # torch 2.13
    False, False, True, True, True, [1.0, 1.0], True, False, (0,), [1.0, 1.0],
    ("TypeError", "Variable data has to be a tensor, but got list"),
    ("RuntimeError", "torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead"),
    True, False, False, True,
]  # fmt: skip


def test_legacy_names_behave_as_torchs():
    assert observe(minitorch) == EXPECTED


def test_legacy_names_match_live_torch(torch):
    assert observe(torch) == EXPECTED


def test_saved_tensor_is_what_a_node_saves():
    x = minitorch.ones(2, requires_grad=True)
    y = x.exp()
    saved = y.grad_fn.ctx.saved_values
    assert any(isinstance(v, minitorch.autograd.SavedTensor) for v in saved)
    with pytest.raises(TypeError):
        minitorch.autograd.Variable("not a tensor")
