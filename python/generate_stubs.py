"""Generates the canasta.v1 stubs that the package ships (``canasta/v1/*_pb2.py``,
``*_pb2.pyi``, ``*_pb2_grpc.py``) from the protocol's files, ``proto/canasta/v1/*.proto``, with
grpcio-tools (the version pinned in ``requirements.txt``).

After a change to a .proto file, from the repository's root::

    python python/generate_stubs.py

The package's tests fail while the shipped stubs differ from a fresh generation. An argument
writes the stubs under another directory instead (``OUT/canasta/v1/``).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROTO = HERE.parent / "proto"


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


if __name__ == "__main__":
    generate(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
