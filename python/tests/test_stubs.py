"""The canasta.v1 stubs the package ships are those the protocol's files make now: a .proto
changed without `python python/generate_stubs.py` fails here."""

import importlib.util
from pathlib import Path

PYTHON = Path(__file__).resolve().parents[1]


def _generator():
    spec = importlib.util.spec_from_file_location("generate_stubs", PYTHON / "generate_stubs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_stubs_are_freshly_generated(tmp_path):
    generator = _generator()
    assert len(generator.proto_files()) >= 4
    generator.generate(tmp_path)
    fresh = {p.name: p.read_bytes() for p in (tmp_path / "canasta" / "v1").iterdir()}
    shipped = {
        p.name: p.read_bytes()
        for p in (PYTHON / "canasta" / "v1").iterdir()
        if p.name != "__init__.py" and p.suffix in (".py", ".pyi")
    }
    assert sorted(shipped) == sorted(fresh), "regenerate: python python/generate_stubs.py"
    for name, text in fresh.items():
        assert shipped[name] == text, f"canasta/v1/{name} is stale: python python/generate_stubs.py"


def test_the_installed_package_has_the_stubs():
    import canasta.v1
    from canasta.v1 import service_pb2, service_pb2_grpc

    installed = Path(canasta.v1.__file__).parent
    for p in (PYTHON / "canasta" / "v1").iterdir():
        if p.suffix in (".py", ".pyi"):
            assert (installed / p.name).read_bytes() == p.read_bytes(), p.name
    assert hasattr(service_pb2_grpc, "CanastaServiceStub")
    assert service_pb2.DESCRIPTOR.package == "canasta.v1"


def test_wire_conversions_are_the_protocols():
    from canasta import Action, Game, _engine
    from canasta.v1 import actions_pb2

    game = Game("official", 4, seed=1)
    for action in ["draw", "take KS KH", "meld 0: KS; 1: QS", "out / 9C", "yes", "decline"]:
        wire = actions_pb2.Action.FromString(_engine.action_to_wire_bytes(action))
        assert _engine.action_from_wire_bytes(wire.SerializeToString()) == Action(action)
    assert actions_pb2.Action.FromString(_engine.action_to_wire_bytes("draw")).HasField(
        "draw_stock"
    )
    # The bots choose on a view; the view lists the game's legal actions.
    seat = game.to_act
    view = game.view(seat)
    assert view.legal_actions() == game.legal_actions()
    assert game.view((seat + 1) % 4).legal_actions() == []
    assert _bots_play_on_views(game)


def _bots_play_on_views(game):
    from canasta import Bot, IllegalAction

    bot = Bot("greedy")
    for _ in range(200):
        if game.over:
            break
        view = game.view(game.to_act)
        action = bot(view, view.legal_actions())
        game.apply(action)
    other = game.view((game.to_act + 1) % 4) if game.to_act is not None else None
    if other is not None:
        try:
            bot(other, [])
        except IllegalAction as e:
            assert e.code == "NOT_YOUR_TURN"
        else:
            raise AssertionError("a bot chose for a seat not to act")
    return True
