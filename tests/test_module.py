"""Module 0: the `Module` tree, with `ScalarParameter`s (numbers; tensors come in module 2).

The expected names, orders and printed text follow `torch.nn.Module`:
depth-first pre-order over modules, each module's own parameters before
those of its children, children in the order they were assigned.
"""

import pytest

from minitorch import Module, ScalarParameter


class Leaf(Module):
    def __init__(self, weight: float = 1.0, bias: float = 2.0) -> None:
        super().__init__()
        self.weight = ScalarParameter(weight)
        self.bias = ScalarParameter(bias)

    def forward(self, x: float) -> float:
        return self.weight.value * x + self.bias.value


class Middle(Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = ScalarParameter(3.0)
        self.left = Leaf(10.0, 11.0)
        self.right = Leaf(20.0, 21.0)


class Top(Module):
    """A three-level tree: Top -> (body: Middle -> (left, right), head: Leaf)."""

    def __init__(self) -> None:
        super().__init__()
        self.body = Middle()
        self.offset = ScalarParameter(4.0)
        self.head = Leaf(30.0, 31.0)
        self.note = "not a parameter"


# Pre-order: a module's own parameters first, then each child's, in assignment order.
EXPECTED_PARAMETERS = [
    ("offset", 4.0),
    ("body.scale", 3.0),
    ("body.left.weight", 10.0),
    ("body.left.bias", 11.0),
    ("body.right.weight", 20.0),
    ("body.right.bias", 21.0),
    ("head.weight", 30.0),
    ("head.bias", 31.0),
]


@pytest.mark.task0_4
def test_named_parameters_have_dotted_names_in_tree_order() -> None:
    got = [(name, p.value) for name, p in Top().named_parameters()]
    assert got == EXPECTED_PARAMETERS


@pytest.mark.task0_4
def test_parameters_are_the_named_parameter_objects() -> None:
    model = Top()
    named = [p for _, p in model.named_parameters()]
    plain = list(model.parameters())
    assert len(plain) == len(EXPECTED_PARAMETERS), f"{len(plain)} parameters"
    assert all(a is b for a, b in zip(named, plain, strict=True))
    assert plain[2] is model.body.left.weight, "parameters() must yield the stored objects"


@pytest.mark.task0_4
def test_parameters_of_a_subtree() -> None:
    model = Top()
    got = [(name, p.value) for name, p in model.body.named_parameters()]
    assert got == [
        ("scale", 3.0),
        ("left.weight", 10.0),
        ("left.bias", 11.0),
        ("right.weight", 20.0),
        ("right.bias", 21.0),
    ]


def test_children_are_the_direct_submodules_in_assignment_order() -> None:
    model = Top()
    children = list(model.children())
    assert len(children) == 2, f"got {len(children)} children"
    assert children[0] is model.body and children[1] is model.head
    assert list(Leaf().children()) == []


@pytest.mark.task0_4
def test_modules_walks_the_whole_tree_depth_first() -> None:
    model = Top()
    expected = [model, model.body, model.body.left, model.body.right, model.head]
    got = list(model.modules())
    assert len(got) == len(expected), f"got {[type(m).__name__ for m in got]}"
    assert all(a is b for a, b in zip(got, expected, strict=True)), (
        f"order {[type(m).__name__ for m in got]}"
    )


@pytest.mark.task0_4
def test_named_modules_have_dotted_names() -> None:
    names = [name for name, _ in Top().named_modules()]
    assert names == ["", "body", "body.left", "body.right", "head"]


@pytest.mark.task0_4
def test_train_and_eval_reach_every_descendant() -> None:
    model = Top()
    assert all(m.training for m in model.modules()), "modules start in training mode"

    assert model.eval() is model, "eval() returns the module itself"
    flags = [m.training for m in (model, model.body, model.body.left, model.body.right, model.head)]
    assert flags == [False] * 5, f"after eval(): {flags}"

    assert model.train() is model, "train() returns the module itself"
    flags = [m.training for m in (model, model.body, model.body.left, model.body.right, model.head)]
    assert flags == [True] * 5, f"after train(): {flags}"

    model.train(False)
    assert not model.body.right.training, "train(False) is eval()"


@pytest.mark.task0_4
def test_eval_of_a_subtree_leaves_the_rest_alone() -> None:
    model = Top()
    model.body.eval()
    flags = {
        "top": model.training,
        "body": model.body.training,
        "body.left": model.body.left.training,
        "body.right": model.body.right.training,
        "head": model.head.training,
    }
    assert flags == {
        "top": True,
        "body": False,
        "body.left": False,
        "body.right": False,
        "head": True,
    }


def test_call_runs_forward_with_its_arguments() -> None:
    class Affine(Module):
        def forward(self, x: float, *, scale: float = 1.0) -> float:
            return scale * x + 1.0

    assert Affine()(2.0) == 3.0
    assert Affine()(2.0, scale=3.0) == 7.0
    assert Leaf(2.0, 5.0)(4.0) == 13.0  # 2 * 4 + 5


def test_a_module_without_forward_says_so() -> None:
    with pytest.raises(NotImplementedError, match="Middle"):
        Middle()(1.0)


def test_repr_draws_the_tree() -> None:
    # torch.nn.Module's layout: two spaces per level, "(name): Child(...)"
    expected = (
        "Top(\n  (body): Middle(\n    (left): Leaf()\n    (right): Leaf()\n  )\n  (head): Leaf()\n)"
    )
    assert repr(Top()) == expected


def test_repr_shows_extra_repr() -> None:
    class Sized(Module):
        def __init__(self, n: int) -> None:
            super().__init__()
            self.n = n

        def extra_repr(self) -> str:
            return f"n={self.n}"

    class Holder(Sized):
        def __init__(self) -> None:
            super().__init__(7)
            self.inner = Sized(3)

    assert repr(Sized(3)) == "Sized(n=3)"
    # torch.nn.Module puts extra_repr on its own line when there are children:
    # "Holder(\n  n=7\n  (inner): Sized(n=3)\n)"
    assert repr(Holder()) == "Holder(\n  n=7\n  (inner): Sized(n=3)\n)"


def test_reassigning_a_parameter_replaces_it_in_place() -> None:
    model = Leaf(1.0, 2.0)
    new_weight = ScalarParameter(5.0)
    model.weight = new_weight
    assert model.weight is new_weight
    # as torch.nn.Module: the replacement keeps the old parameter's position
    got = [(n, p.value) for n, p in model.named_parameters()]
    assert got == [("weight", 5.0), ("bias", 2.0)], f"named_parameters() = {got}"


def test_reassigning_a_child_module_to_a_parameter_replaces_it() -> None:
    model = Top()
    model.head = ScalarParameter(9.0)
    assert list(model.children()) == [model.body], "head is no longer a child"
    assert ("head", 9.0) in [(n, p.value) for n, p in model.named_parameters()]


def test_plain_attribute_reassigned_to_a_parameter_is_the_parameter() -> None:
    model = Leaf()
    model.extra = 3.0
    parameter = ScalarParameter(5.0)
    model.extra = parameter
    assert model.extra is parameter, f"model.extra is {model.extra!r}, not the new Parameter"
    assert "extra" in [n for n, _ in model.named_parameters()]


def test_deleting_an_attribute_unregisters_it() -> None:
    model = Top()
    del model.head
    del model.offset
    assert [n for n, _ in model.named_parameters()][0] == "body.scale"
    assert list(model.children()) == [model.body]
    with pytest.raises(AttributeError, match="head"):
        _ = model.head


def test_unknown_attribute_raises_attribute_error() -> None:
    with pytest.raises(AttributeError, match="'Leaf' object has no attribute 'missing'"):
        _ = Leaf().missing


def test_assigning_before_super_init_is_a_clear_error() -> None:
    class Forgetful(Module):
        def __init__(self) -> None:
            self.weight = ScalarParameter(1.0)
            super().__init__()

    with pytest.raises(AttributeError, match=r"before Module\.__init__\(\)"):
        Forgetful()


def test_register_parameter_registers_it() -> None:
    model = Leaf()
    parameter = ScalarParameter(0.5)
    assert model.register_parameter("gain", parameter) is None
    assert model.gain is parameter
    assert [n for n, _ in model.named_parameters()] == ["weight", "bias", "gain"]


def test_parameter_update_replaces_the_value() -> None:
    parameter = ScalarParameter(1.0, name="w")
    parameter.update(2.5)
    assert parameter.value == 2.5
    assert repr(parameter) == "2.5" and str(parameter) == "2.5"


@pytest.mark.task0_4
def test_assigning_a_non_parameter_to_a_parameter_name_is_refused() -> None:
    model = Leaf()
    # torch: "cannot assign 'float' as parameter 'weight' (torch.nn.Parameter or None expected)"
    with pytest.raises(TypeError, match=r"cannot assign 'float' as parameter 'weight' \("):
        model.weight = 7.0
    model.weight = None  # allowed: the slot stays, the parameter is gone
    assert [name for name, _ in model.named_parameters()] == ["bias"]


@pytest.mark.task0_4
def test_assigning_a_non_module_to_a_child_name_is_refused() -> None:
    model = Middle()
    child_name = next(name for name, _ in model.named_modules() if name)
    with pytest.raises(TypeError, match=f"cannot assign 'int' as child module '{child_name}'"):
        setattr(model, child_name, 3)


@pytest.mark.task0_4
def test_a_shared_parameter_is_listed_once() -> None:
    class Tied(Module):
        def __init__(self) -> None:
            super().__init__()
            self.first = Leaf()
            self.second = Leaf()
            self.second.weight = self.first.weight  # weight tying

    names = [name for name, _ in Tied().named_parameters()]
    assert names == ["first.weight", "first.bias", "second.bias"], names


def test_state_dict_of_scalar_parameters_round_trips() -> None:
    source, target = Top(), Top()
    target.head.weight.update(0.0)
    state = source.state_dict()
    assert list(state) == [name for name, _ in EXPECTED_PARAMETERS]
    assert list(state.values()) == [value for _, value in EXPECTED_PARAMETERS]
    assert repr(target.load_state_dict(state)) == "<All keys matched successfully>"
    assert target.head.weight.value == 30.0
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "offset"'):
        target.load_state_dict({k: v for k, v in state.items() if k != "offset"})
