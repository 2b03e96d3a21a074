"""minitorch.profiler: what it counts, how its times add up, torch's table and schedule."""

import json
import threading

import pytest

import minitorch
from minitorch.profiler import ProfilerAction, profile, record_function, schedule


def averages(prof, **options):
    return {e.key: e for e in prof.key_averages(**options)}


def test_counts_each_operation_forward_and_backward():
    x = minitorch.ones(4, requires_grad=True)
    with profile() as prof:
        y = x * x * x
        y.sum().backward()
    rows = averages(prof)
    assert rows["Mul"].count >= 2  # the two products; backward's own products add more
    assert rows["MulBackward0"].count == 2
    assert rows["SumBackward0"].count == 1
    assert rows["Sum"].count == 1
    outside = minitorch.ones(2) * 2  # nothing is recorded after the block
    assert outside is not None and averages(prof)["Mul"].count == rows["Mul"].count


def test_self_times_add_up_and_totals_contain_their_parts():
    x = minitorch.rand(16, 16, requires_grad=True)
    with profile() as prof:
        with record_function("step"):
            (x @ x).relu().sum().backward()
    events = prof.events()
    step = next(e for e in events if e.name == "step")
    inside = [e for e in events if e.depth == 1]
    assert inside, "the operations run inside the range are one level deeper"
    assert sum(e.cpu_time_total for e in inside) <= step.cpu_time_total
    assert step.self_cpu_time_total == pytest.approx(
        step.cpu_time_total - sum(e.cpu_time_total for e in inside), abs=1e-6
    )
    for e in events:
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total + 1e-9
        assert 0 <= e.self_kernel_time_total <= e.self_cpu_time_total + 1e-9
    kernels = {e.name: e.self_kernel_time_total for e in events if e.name == "MatMul"}
    assert kernels and min(kernels.values()) > 0  # its kernel ran inside it
    assert step.self_kernel_time_total == 0  # every kernel ran inside an operation
    table = prof.key_averages()
    assert table.wall_time == pytest.approx(sum(e.self_cpu_time_total for e in events))


def test_backends_are_restored_even_after_an_error():
    before = minitorch.get_backend()
    with pytest.raises(ValueError, match="boom"):
        with profile():
            assert minitorch.get_backend() is not before  # the timing stand-in
            assert minitorch.get_backend().name == before.name
            raise ValueError("boom")
    assert minitorch.get_backend() is before
    with profile():
        with pytest.raises(RuntimeError, match="already running"):
            profile().__enter__()


def test_an_error_inside_an_operation_closes_its_range():
    with profile() as prof:
        with pytest.raises(RuntimeError):
            minitorch.ones(2, 3) @ minitorch.ones(2, 3)
        minitorch.ones(2) + 1
    assert all(e.depth == 0 for e in prof.events())


def test_record_function_as_context_and_decorator_and_outside_a_profile():
    @record_function("helper")
    def helper(t):
        return t + 1

    assert helper(minitorch.ones(1)).item() == 2.0  # no profile: just runs
    with profile() as prof:
        helper(minitorch.ones(1))
        with record_function("block"):
            helper(minitorch.ones(1))
    rows = averages(prof)
    assert rows["helper"].count == 2 and rows["block"].count == 1
    depths = [(e.name, e.depth) for e in prof.events() if e.name in ("helper", "block")]
    assert depths == [("helper", 0), ("helper", 1), ("block", 0)]  # in the order they closed


def test_table_has_torchs_columns_sorting_and_limit():
    x = minitorch.ones(8, 8)
    with profile(record_shapes=True) as prof:
        for _ in range(3):
            x + x
        x @ x
    text = prof.key_averages().table(sort_by="count", row_limit=1)
    lines = text.splitlines()
    for column in ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]:
        assert column in lines[1]
    assert "# of Calls" in lines[1] and "Self kernel" in lines[1]
    assert lines[3].split()[0] == "Add" and lines[3].split()[-1] == "3"
    assert len(lines) == 6 and lines[5].startswith("Self CPU time total: ")
    shaped = prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total")
    assert "Input Shapes" in shaped and "[[8, 8], [8, 8]]" in shaped
    with pytest.raises(AttributeError, match="no attribute 'bogus'"):
        prof.key_averages().table(sort_by="bogus")


def test_time_format_is_torchs():
    from minitorch.profiler.profile import format_time

    assert format_time(438.26) == "438.260us"
    assert format_time(286127.0) == "286.127ms"
    assert format_time(1234000.0) == "1.234s"


def test_only_this_thread_is_recorded():
    def elsewhere():
        minitorch.ones(3) * 2

    with profile() as prof:
        worker = threading.Thread(target=elsewhere)
        worker.start()
        worker.join()
    assert "Mul" not in averages(prof)


def products_into(seen: list):
    """An `on_trace_ready` handler that appends how many products the trace holds."""

    def ready(prof):
        rows = averages(prof)
        seen.append(rows["Mul"].count if "Mul" in rows else 0)

    return ready


def test_schedule_steps_as_torch_does():
    """torch 2.13's actions and trace counts for the same schedules and loop."""
    actions = schedule(wait=1, warmup=1, active=2, repeat=1, skip_first=1)
    assert [actions(i).name for i in range(7)] == [
        "NONE", "NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE", "NONE", "NONE",
    ]  # fmt: skip
    with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
        schedule(wait=0, warmup=0, active=0)
    with pytest.warns(UserWarning, match="won't be using warmup"):
        schedule(wait=2, warmup=0, active=1)
    expected = {  # products seen by each on_trace_ready call: step k runs k + 1 products
        (1, 1, 2, 2, 0): [7, 15],
        (0, 1, 1, 0, 2): [4, 6, 8, 0],
    }
    x = minitorch.ones(3)
    for (wait, warmup, active, repeat, skip), counts in expected.items():
        seen = []
        plan = schedule(wait=wait, warmup=warmup, active=active, repeat=repeat, skip_first=skip)
        with profile(schedule=plan, on_trace_ready=products_into(seen)) as prof:
            for step in range(9):
                for _ in range(step + 1):
                    x * x
                prof.step()
        assert seen == counts
    assert ProfilerAction.RECORD_AND_SAVE.name == "RECORD_AND_SAVE"


def test_schedule_matches_live_torch(torch):
    for args in [
        dict(wait=1, warmup=1, active=2, repeat=1, skip_first=1),
        dict(wait=0, warmup=2, active=3),
    ]:
        ours, theirs = schedule(**args), torch.profiler.schedule(**args)
        assert [ours(i).name for i in range(12)] == [theirs(i).name for i in range(12)]


def test_chrome_trace_lists_every_event(tmp_path):
    with profile() as prof:
        minitorch.ones(2) + 1
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())["traceEvents"]
    assert [e["name"] for e in trace] == [e.name for e in prof.events()]
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in trace)
