"""The Python examples of docs/python.md run as written, so the guide stays true. The network
bot's runs against the test's server (CANASTA_TEST_SERVER, started by
tests/tests/python_package.rs) in place of the address it names."""

import os
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
    text = examples()[index]
    if "canasta.client" in text:
        server = os.environ.get("CANASTA_TEST_SERVER")
        if not server:
            pytest.skip("CANASTA_TEST_SERVER names no server (tests/tests/python_package.rs)")
        assert '"127.0.0.1:50051"' in text
        text = text.replace('"127.0.0.1:50051"', repr(server))
    exec(compile(text, f"{GUIDE.name} example {index}", "exec"), {})
    if "canasta.client" in text:
        assert re.match(r"(won|lost) \(", capsys.readouterr().out)
