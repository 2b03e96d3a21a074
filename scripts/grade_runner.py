"""The program that runs one task's tests in a grading subprocess (see
exercise_grading.run_task_tests).

It is not run as a script: the grader starts `python -c "<read stdin, exec it>"` and sends this
file's source on stdin, followed by `main({...})` with the settings. So the channel on which the
results come back (an inherited pipe) and the secret that each result line carries appear in no
argument, environment variable or file that the code under test could read; they live only in
this process's memory.

It runs pytest with a plugin, `Reporter`, that sends one JSON line per event on that channel:
what was collected, which test starts, each phase's outcome, collection errors located at the
student's file and line, and at the end of the session, whether pytest's own machinery was
replaced while the tests ran (a no-op `Function.runtest`, a hook implementation registered by
the code under test...). The grader trusts only these lines, and only when the session ended.

What it cannot do: code running in this process can read its memory (the secret, the channel)
and forge results, or undo its checks. It raises the bar above "six lines in a solution file";
the real guard is an instructor grading with `grade.py --reference` and reading the code.
"""

import json
import os
import re
import sys
import traceback

import pytest

# Functions of pytest and pluggy whose replacement would let a test "pass" without running:
# (module, attribute path). Each is looked up without descriptors when the process starts and
# compared again before each test and at the end of the session. Names a version of pytest
# lacks are skipped.
GUARDED = (
    ("_pytest.python", "Function.runtest"),
    ("_pytest.python", "Function.setup"),
    ("_pytest.python", "pytest_pyfunc_call"),
    ("_pytest.runner", "pytest_runtest_setup"),
    ("_pytest.runner", "pytest_runtest_call"),
    ("_pytest.runner", "pytest_runtest_teardown"),
    ("_pytest.runner", "pytest_runtest_makereport"),
    ("_pytest.runner", "pytest_runtest_protocol"),
    ("_pytest.runner", "runtestprotocol"),
    ("_pytest.runner", "call_and_report"),
    ("_pytest.runner", "check_interactive_exception"),
    ("_pytest.runner", "CallInfo.from_call"),
    ("_pytest.reports", "TestReport.from_item_and_call"),
    ("_pytest.reports", "TestReport.__init__"),
    ("_pytest.reports", "BaseReport.passed"),
    ("_pytest.reports", "BaseReport.failed"),
    ("_pytest.main", "pytest_runtestloop"),
    ("_pytest.main", "Session.perform_collect"),
    ("_pytest.outcomes", "fail"),
    ("_pytest.outcomes", "skip"),
    ("pluggy", "HookCaller.__call__"),
    ("pluggy", "PluginManager._hookexec"),
    ("pluggy", "PluginManager.register"),
)


TASK_MARKER = re.compile(r"task\d+_\d+")


def _lookup(module_name: str, path: str):
    owner = sys.modules.get(module_name) or __import__(module_name, fromlist=["_"])
    for name in path.split("."):
        namespace = getattr(owner, "__dict__", {})
        if name not in namespace:
            return None
        owner = namespace[name]
    return owner


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Reporter:
    """The pytest plugin of the grading subprocess: it sends each event as a JSON line."""

    def __init__(self, fd: int, secret: str, root: str):
        # Bound now, before any code under test runs, so that patching os, json or this class
        # later does not change what is sent.
        self._write = os.write
        self._encode = json.JSONEncoder(ensure_ascii=True).encode
        self._fd = fd
        self._secret = secret
        self._root = os.path.realpath(root) + os.sep
        self._guarded = {}
        for module_name, path in GUARDED:
            try:
                found = _lookup(module_name, path)
            except ImportError:
                found = None
            if found is not None:
                self._guarded[f"{module_name}.{path}"] = (module_name, path, found)
        self._hooks = None
        self._plugins = None
        self._pm = None
        self._inner_hookexec = None
        self._reported = set()
        # Top-level modules that a file of the project must not provide: the standard library's,
        # pytest's and those of the tools loaded so far, and the ones the tests rely on.
        self._shadowable = set(sys.stdlib_module_names) | {"hypothesis", "numpy"}
        self._shadowable |= {name.partition(".")[0] for name in sys.modules}
        self._shadowable -= {"minitorch", "tests", "scripts", "grade_runner", "__main__"}
        # A virtual environment may live inside the project: its files are installed ones.
        prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix}
        self._installed = tuple(os.path.realpath(prefix) + os.sep for prefix in prefixes)

    # --- sending -----------------------------------------------------------------------------

    def send(self, event: str, **fields) -> None:
        data = (self._encode({"secret": self._secret, "event": event, **fields}) + "\n").encode()
        while data:
            written = self._write(self._fd, data)
            data = data[written:]

    # --- what counts as tampering ------------------------------------------------------------

    def _snapshot_hooks(self) -> dict:
        hooks = {}
        for name, caller in vars(self._pm.hook).items():
            if name.startswith("pytest_") and hasattr(caller, "get_hookimpls"):
                hooks[name] = tuple(impl.function for impl in caller.get_hookimpls())
        return hooks

    def problems(self) -> list[str]:
        """What of pytest's machinery differs from when the session started."""
        found = []
        for label, (module_name, path, original) in self._guarded.items():
            try:
                current = _lookup(module_name, path)
            except ImportError:
                current = None
            if current is not original:
                found.append(f"{label} was replaced")
        if self._pm is not None:
            if self._pm._inner_hookexec is not self._inner_hookexec:
                found.append("pluggy's hook executor was replaced")
            now = self._snapshot_hooks()
            for name, functions in now.items():
                before = self._hooks.get(name, ())
                for function in functions:
                    if function not in before:
                        where = getattr(function, "__module__", "?")
                        found.append(f"hook {name} gained an implementation (from {where})")
                for function in before:
                    if function not in functions:
                        found.append(f"hook {name} lost an implementation")
            plugins = {id(plugin) for plugin in self._pm.get_plugins()}
            if plugins != self._plugins:
                found.append("plugins were registered or unregistered during the tests")
        return found

    def shadowing_modules(self) -> list[str]:
        """Standard or testing modules that were imported from a file of the project."""
        found = []
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            if name in self._shadowable and isinstance(file, str):
                relative = self.relative(file)
                if relative is not None and not os.path.realpath(file).startswith(self._installed):
                    found.append(f"{relative} was imported as the module {name}")
        return found

    def check(self, when: str, modules: bool = False) -> None:
        problems = self.problems() + (self.shadowing_modules() if modules else [])
        for problem in problems:
            if problem not in self._reported:
                self._reported.add(problem)
                self.send("tampered", what=problem, when=when)

    # --- pytest hooks --------------------------------------------------------------------------

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session) -> None:
        # Last of all: pytest's own plugins (the fixture manager...) and the initial conftest
        # files (tests/conftest.py) are registered by now; test modules (and through them the
        # package under test) are imported later, during collection.
        self._pm = session.config.pluginmanager
        self._inner_hookexec = self._pm._inner_hookexec
        self._hooks = self._snapshot_hooks()
        self._plugins = {id(plugin) for plugin in self._pm.get_plugins()}
        self.send("start", pid=os.getpid())

    def pytest_collection_finish(self, session) -> None:
        ids = [item.nodeid for item in session.items]
        tasks = [
            sorted({mark.name for mark in item.iter_markers() if TASK_MARKER.fullmatch(mark.name)})
            for item in session.items
        ]
        self.send("collected", ids=ids, tasks=tasks)
        self.check("after collection", modules=True)

    def pytest_exception_interact(self, node, call, report) -> None:
        if isinstance(node, pytest.Collector):
            where, error = self.locate(call.excinfo.value)
            self.send("collect_error", id=node.nodeid, where=where, error=error)

    def pytest_runtest_logstart(self, nodeid, location) -> None:
        self.check(f"before {nodeid}")
        self.send("running", id=nodeid)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item) -> None:
        # Runs before pytest's own pytest_runtest_call, which calls item.runtest().
        import _pytest.python

        original = self._guarded.get("_pytest.python.Function.runtest")
        if isinstance(item, _pytest.python.Function) and original is not None:
            if (
                "runtest" in vars(item)
                or _lookup("_pytest.python", "Function.runtest") is not (original[2])
            ):
                self.send("tampered", what="Function.runtest was replaced", when=item.nodeid)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item, call):
        # Returns None: pytest's own implementation makes the report; this only notes a skip
        # raised from the package under test (a stub that skips instead of failing).
        if call.excinfo is not None and isinstance(call.excinfo.value, pytest.skip.Exception):
            # The last frame of the project: the code that called pytest.skip().
            entries = [
                (self.relative(entry.filename), entry.lineno)
                for entry in traceback.extract_tb(call.excinfo.tb)
            ]
            entries = [(path, line) for path, line in entries if path]
            if entries and entries[-1][0].startswith("minitorch/"):
                self.send("skip_from_package", id=item.nodeid, where="{}:{}".format(*entries[-1]))

    def pytest_runtest_logreport(self, report) -> None:
        message = ""
        if report.failed and report.longrepr is not None:
            crash = getattr(report.longrepr, "reprcrash", None)
            message = _short(crash.message if crash else str(report.longrepr).splitlines()[-1])
        self.send(
            "report",
            id=report.nodeid,
            when=report.when,
            outcome=report.outcome,
            xfail=hasattr(report, "wasxfail"),
            message=message,
        )

    def pytest_sessionfinish(self, session, exitstatus) -> None:
        self.check("at the end of the session", modules=True)
        self.send("finish", exitstatus=int(exitstatus))

    # --- locating errors -----------------------------------------------------------------------

    def relative(self, filename: str) -> str | None:
        """`filename` relative to the project root, with forward slashes; None outside it."""
        path = os.path.realpath(filename)
        if path.startswith(self._root):
            return path[len(self._root) :].replace(os.sep, "/")
        return None

    def locate(self, error: BaseException) -> tuple[str, str]:
        """("minitorch/ops.py:12", "SyntaxError: invalid syntax") for a collection error."""
        wrapped = isinstance(error, pytest.Collector.CollectError)
        cause = (error.__cause__ or error.__context__ or error) if wrapped else error
        if isinstance(cause, SyntaxError) and cause.filename:
            where = f"{self.relative(cause.filename)}:{cause.lineno}"
            return where, _short(f"SyntaxError: {cause.msg}")
        frames = traceback.extract_tb(cause.__traceback__)
        inside = [(self.relative(f.filename), f.lineno) for f in frames]
        inside = [(path, line) for path, line in inside if path]
        package = [(path, line) for path, line in inside if path.startswith("minitorch/")]
        outside = [(frame.filename, frame.lineno) for frame in frames]
        located = package or inside or outside
        where = "{}:{}".format(*located[-1]) if located else "?"
        if wrapped and cause is error:  # pytest's own message, without a cause
            return where, _short(str(error).strip().splitlines()[-1] if str(error) else "")
        return where, _short(f"{type(cause).__name__}: {cause}")


def main(config: dict) -> None:
    """Run pytest on config["args"] in config["root"], reporting on file descriptor config["fd"]
    (or, where pipes cannot be inherited, appending to the file config["path"])."""
    root = config["root"]
    os.chdir(root)
    sys.path.insert(0, root)
    sys.argv = ["pytest"]
    import pytest

    if "fd" in config:
        fd = config["fd"]
    else:
        fd = os.open(config["path"], os.O_WRONLY | os.O_APPEND | getattr(os, "O_BINARY", 0))
    reporter = Reporter(fd, config["secret"], root)
    code = pytest.main(config["args"], plugins=[reporter])
    reporter.send("exit", code=int(code))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(code))
