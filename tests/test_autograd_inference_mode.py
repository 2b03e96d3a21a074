"""minitorch.inference_mode: no graph inside, and inference tensors that refuse autograd
afterwards, with torch 2.13's behaviour and messages (recorded here; checked live too)."""

import pytest

import minitorch

SAVED = "Inference tensors cannot be saved for backward."
INPLACE = "Inplace update to inference tensor outside InferenceMode is not allowed."
REQUIRES = "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."


def observe(lib):
    """What a program sees of inference mode, as a list of facts (run on either library)."""
    facts = []
    normal = lib.ones(3)
    with lib.inference_mode():
        x = lib.ones(3)
        w = lib.ones(3, requires_grad=True)
        y = w * 2
        facts += [x.is_inference(), lib.is_inference_mode_enabled(), lib.is_grad_enabled()]
        facts += [y.requires_grad, y.is_inference(), w.is_inference()]
        facts += [normal.view(3).is_inference(), normal.is_inference()]
        x.add_(1)  # in place inside the mode is allowed
        with lib.inference_mode(False):
            z = lib.ones(1)
            facts += [z.is_inference(), lib.is_grad_enabled(), lib.is_inference_mode_enabled()]
    facts += [lib.is_inference_mode_enabled(), lib.is_grad_enabled(), x.tolist()]
    facts += [x.detach().is_inference(), x.view(3).is_inference(), x[1:].is_inference()]
    facts += [x.clone().is_inference(), (x + 1).is_inference()]
    facts.append((x + lib.ones(3, requires_grad=True)).requires_grad)  # add saves nothing
    for attempt in (
        lambda: x.add_(1),
        lambda: x[0].fill_(2),
        lambda: x.copy_(lib.ones(3)),
        lambda: x.requires_grad_(),
        lambda: x * lib.ones(3, requires_grad=True),
    ):
        try:
            attempt()
            facts.append("ok")
        except RuntimeError as error:
            facts.append(str(error)[:40])
    facts.append(x.tolist())  # what the refused writes left
    return facts


EXPECTED = [  # torch 2.13
    True, True, False, False, True, True, False, False,
    False, True, False,
    False, True, [2.0, 2.0, 2.0],
    True, True, True, False, False,
    True,
    INPLACE[:40], INPLACE[:40], INPLACE[:40], REQUIRES[:40], SAVED[:40],
]  # fmt: skip
# The documented difference: a refused in-place write leaves the tensor as it was here;
# torch 2.13 raises after writing (x + 1, then x[0] = 2, then ones: x ends as ones)
LEFT_HERE, LEFT_BY_TORCH = [2.0, 2.0, 2.0], [1.0, 1.0, 1.0]


def test_inference_mode_behaves_as_torchs():
    assert observe(minitorch) == [*EXPECTED, LEFT_HERE]


def test_inference_mode_matches_live_torch(torch):
    assert observe(torch) == [*EXPECTED, LEFT_BY_TORCH]


def test_a_clone_is_a_normal_tensor_for_autograd():
    with minitorch.inference_mode():
        x = minitorch.full((3,), 2.0)
    clone = x.clone().requires_grad_()
    (clone * clone).sum().backward()
    assert clone.grad.tolist() == [4.0, 4.0, 4.0]


def test_decorator_forms_and_nesting_restore_the_modes():
    @minitorch.inference_mode
    def bare(a):
        return a * 2

    @minitorch.inference_mode()
    def called(a):
        return a * 2

    @minitorch.inference_mode(False)
    def off(a):
        return a * 2

    assert bare(minitorch.ones(1)).is_inference() and called(minitorch.ones(1)).is_inference()
    assert not off(minitorch.ones(1)).is_inference()
    assert bare.__name__ == "bare"
    mode = minitorch.inference_mode()
    with mode:
        with mode.clone():
            pass
        assert minitorch.is_inference_mode_enabled()
    with minitorch.no_grad():
        with pytest.raises(ValueError):
            with minitorch.inference_mode():
                raise ValueError
        assert not minitorch.is_grad_enabled() and not minitorch.is_inference_mode_enabled()
    assert minitorch.is_grad_enabled()
    assert minitorch.autograd.inference_mode is minitorch.inference_mode


def test_messages_are_torchs_in_full():
    with minitorch.inference_mode():
        x = minitorch.ones(2)
    with pytest.raises(RuntimeError) as error:
        x.mul_(2)
    assert str(error.value) == (
        INPLACE + "You can make a clone to get a normal tensor before doing inplace update.See "
        "https://github.com/pytorch/rfcs/pull/17 for more details."
    )
    with pytest.raises(RuntimeError, match="use `minitorch.no_grad\\(\\)` instead of"):
        x * minitorch.ones(2, requires_grad=True)
