"""Record what PyTorch computes for the tests' cases, so that the tests need no torch to grade.

Usage:
    python scripts/record_torch_answers.py            # write tests/data/<test file>.json
    python scripts/record_torch_answers.py --check    # recompute; fail where a record differs

Each test file of ANSWERED_FILES (tests/helpers.py) defines its cases (inputs drawn by NumPy
from seeds of their own) and `torch_answers(torch)`: torch's outputs, dtypes, node names and
gradients for each case. Recording writes them into tests/data/<file>.json, stamped with the
torch version that made them (the records are torch 2.13's). `--check` recomputes them with
the installed torch and fails when a case differs from its record by more than the tolerance
of its dtype (tests/helpers.py RECORD_TOLERANCE: relative 1e-10 in float64, 1e-5 in float32;
integers, booleans and names exactly; a test file whose cases amplify rounding, such as long
optimizer runs, sets a looser `RECORD_TOLERANCE` of its own), or when the cases are not the
recorded ones.

Exit status: 0 when written or when every record matches, 1 when a record differs, 2 when torch
is not installed.
"""

import argparse
import importlib
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
TESTS = PROJECT_ROOT / "tests"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("files", nargs="*", help="test modules (by default ANSWERED_FILES)")
    args = parser.parse_args(argv)
    try:
        import torch
    except ModuleNotFoundError:
        print("record_torch_answers: needs torch: pip install -e '.[test,torch]'", file=sys.stderr)
        return 2
    sys.path[:0] = [str(TESTS), str(PROJECT_ROOT)]
    helpers = importlib.import_module("helpers")
    failed = False
    for name in args.files or helpers.ANSWERED_FILES:
        module = importlib.import_module(name)
        answers = helpers.live_answers(module, torch)
        if not args.check:
            path = helpers.write_answers(module.__file__, answers, torch.__version__)
            print(f"wrote {path.relative_to(PROJECT_ROOT)}: {len(answers)} cases")
            continue
        version, recorded = helpers.read_answers(module.__file__)
        problems = helpers.differences_from_record(module, answers, recorded)
        status = "differs from" if problems else "matches"
        print(f"{name}: torch {torch.__version__} {status} the record of torch {version}")
        for line in problems:
            print(f"  {line}")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
