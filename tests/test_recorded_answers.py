"""The answers recorded from torch in tests/data: one file for each test file of ANSWERED_FILES,
and, where torch is installed, what it computes now (scripts/record_torch_answers.py --check
does the same)."""

import importlib

import pytest
from helpers import ANSWERED_FILES, DATA_DIR, assert_recorded_are_torchs, read_answers


def test_each_answered_file_has_its_answers_and_no_others():
    assert sorted(path.stem for path in DATA_DIR.glob("*.json")) == sorted(ANSWERED_FILES)


@pytest.mark.parametrize("name", ANSWERED_FILES)
def test_answers_are_stamped_with_the_torch_that_made_them(name):
    version, answers = read_answers(name)
    assert version.startswith("2.13") and answers


@pytest.mark.parametrize("name", ANSWERED_FILES)
def test_recorded_answers_are_torchs(torch, name):
    assert_recorded_are_torchs(importlib.import_module(name), torch)
