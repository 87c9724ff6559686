"""The Python examples of docs/python.md run as written, so the guide stays true."""

import pathlib
import re

import pytest

GUIDE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def examples():
    return re.findall(r"```python\n(.*?)```", GUIDE.read_text(), flags=re.S)


def test_the_guide_has_examples():
    assert len(examples()) >= 2


@pytest.mark.parametrize("index", range(len(examples())))
def test_an_example_of_the_guide_runs(index, capsys):
    exec(compile(examples()[index], f"{GUIDE.name} example {index}", "exec"), {})
