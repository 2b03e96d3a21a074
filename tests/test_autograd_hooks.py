"""Tensor.register_hook and register_post_accumulate_grad_hook, with what torch 2.13 does
(recorded here; checked live when torch is installed)."""

import minitorch


def observe(lib):
    facts, seen, post = [], [], []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: seen.append(g.tolist()))  # sees the gradient, changes nothing
    scaling = x.register_hook(lambda g: g * 10)  # replaces it
    y = x * x
    y.register_hook(lambda g: seen.append(("y", g.tolist())))
    z = y * 3
    z.register_hook(lambda g: g + 1)  # a non-leaf's hook runs before its grad_fn's backward
    z.sum().backward()
    facts += [list(seen), x.grad.tolist()]
    scaling.remove()
    x.grad = None
    (x * 2).sum().backward()
    facts.append(x.grad.tolist())
    x.register_post_accumulate_grad_hook(lambda t: post.append(t.grad.tolist()))
    (x * 5).sum().backward()
    facts.append(list(post))
    (g,) = lib.autograd.grad((x * 7).sum(), x)  # leaf hooks run, post-accumulate ones do not
    facts += [g.tolist(), list(post), seen[-1]]
    values, _ = lib.tensor([3.0, 1.0, 2.0], requires_grad=True).sort()
    leaf = values.grad_fn  # several outputs: the hook sees the values' gradient only
    values.register_hook(lambda g: seen.append(("values", g.tolist())))
    values.sum().backward()
    facts += [seen[-1], leaf is not None]
    for bad in (
        lambda: lib.ones(2).register_hook(print),
        lambda: (x * 2).register_post_accumulate_grad_hook(print),
    ):
        try:
            bad()
        except RuntimeError as error:
            facts.append(str(error))
    return facts


EXPECTED = [  # torch 2.13
    [("y", [6.0, 6.0]), [12.0, 24.0]], [120.0, 240.0], [2.0, 2.0], [[7.0, 7.0]],
    [7.0, 7.0], [[7.0, 7.0]], [7.0, 7.0], ("values", [1.0, 1.0, 1.0]), True,
    "cannot register a hook on a tensor that doesn't require gradient",
    "post accumulate grad hooks cannot be registered on non-leaf tensors",
]  # fmt: skip


def test_hooks_behave_as_torchs():
    assert observe(minitorch) == EXPECTED


def test_hooks_match_live_torch(torch):
    assert observe(torch) == EXPECTED


def test_a_handle_removes_its_hook_and_works_as_a_context():
    x = minitorch.ones(2, requires_grad=True)
    with x.register_hook(lambda g: g * 0):
        (x * 1).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    x.grad = None
    (x * 1).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
