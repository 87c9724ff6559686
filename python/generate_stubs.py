"""Generates the canasta.v1 stubs that the package ships (``canasta/v1/*_pb2.py``,
``*_pb2.pyi``, ``*_pb2_grpc.py``) from the protocol's files, ``proto/canasta/v1/*.proto``, with
grpcio-tools (the version pinned in ``requirements.txt``), and the members of the reasons' enum
(``canasta/reasons.py``) from the protocol crate's list, ``proto/src/reason.rs``.

After a change to a .proto file, from the repository's root::

    python python/generate_stubs.py

The package's tests fail while the shipped stubs differ from a fresh generation. An argument
writes the stubs under another directory instead (``OUT/canasta/v1/``).
"""

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROTO = HERE.parent / "proto"
REASONS_RS = PROTO / "src" / "reason.rs"
REASONS_PY = HERE / "canasta" / "reasons.py"
# The generated part of reasons.py lies between these lines.
BEGIN = "    # --- generated from proto/src/reason.rs by python/generate_stubs.py ---\n"
END = "    # --- end of the generated part ---\n"


def proto_files():
    """The protocol's files, in a fixed order."""
    return sorted((PROTO / "canasta" / "v1").glob("*.proto"))


def generate(out: Path) -> None:
    """Writes the stubs of every .proto file under ``out/canasta/v1/``."""
    from grpc_tools import protoc  # grpcio-tools

    out.mkdir(parents=True, exist_ok=True)
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        *(str(f) for f in proto_files()),
    ]
    if protoc.main(args) != 0:
        raise SystemExit("grpc_tools.protoc failed (its message is above)")


def reason_members() -> str:
    """The enum's members, in the protocol crate's order, under its section headings."""
    lines = []
    for line in REASONS_RS.read_text().splitlines():
        heading = re.match(r"\s*// ----- (.*) -----$", line)
        member = re.match(r'\s*[A-Z][A-Za-z0-9]* = "([A-Z0-9_]+)",$', line)
        if heading:
            if lines:
                lines.append("")
            lines.append(f"    # {heading.group(1)}")
        elif member:
            lines.append(f'    {member.group(1)} = "{member.group(1)}"')
    return "\n".join(lines) + "\n"


def reasons_py() -> str:
    """reasons.py with its members as the protocol crate lists them."""
    text = REASONS_PY.read_text()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + BEGIN + reason_members() + END + tail


if __name__ == "__main__":
    generate(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
    if len(sys.argv) == 1:
        REASONS_PY.write_text(reasons_py())
