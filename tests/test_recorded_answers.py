"""The answers recorded from torch in tests/data: one file for each test file of ANSWERED_FILES,
and, where torch is installed, what it computes now (scripts/record_torch_answers.py --check
does the same)."""

import importlib

import numpy as np
import pytest
from helpers import (
    ANSWERED_FILES,
    DATA_DIR,
    RECORD_TOLERANCE,
    assert_recorded_are_torchs,
    differences,
    read_answers,
    record_tolerance,
)


def test_each_answered_file_has_its_answers_and_no_others():
    assert sorted(path.stem for path in DATA_DIR.glob("*.json")) == sorted(ANSWERED_FILES)


@pytest.mark.parametrize("name", ANSWERED_FILES)
def test_answers_are_stamped_with_the_torch_that_made_them(name):
    version, answers = read_answers(name)
    assert version.startswith("2.13") and answers


@pytest.mark.parametrize("name", ANSWERED_FILES)
def test_recorded_answers_are_torchs(torch, name):
    assert_recorded_are_torchs(importlib.import_module(name), torch)


def test_a_file_may_loosen_its_record_tolerance_and_no_further():
    nearby = {"x": np.array([1.0]), "n": 3}
    off_by_1e9 = {"x": np.array([1.0 + 1e-9]), "n": 3}
    assert differences(off_by_1e9, nearby)
    lbfgs = importlib.import_module("test_optim_lbfgs")
    assert not differences(off_by_1e9, nearby, tolerance=record_tolerance(lbfgs))
    assert differences({**off_by_1e9, "n": 4}, nearby, tolerance=record_tolerance(lbfgs))
    assert record_tolerance(importlib.import_module("test_tensor_math")) == RECORD_TOLERANCE
