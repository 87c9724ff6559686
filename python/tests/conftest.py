import pytest

import canasta


def layouts():
    """Every preset with every player count it is played by."""
    out = []
    for preset in canasta.presets():
        for players in range(2, 7):
            try:
                canasta.Game(preset, players)
            except canasta.SetupRefused as e:
                assert e.code == "BAD_PLAYER_COUNT"
                continue
            out.append((preset, players))
    return out


LAYOUTS = layouts()


@pytest.fixture(params=LAYOUTS, ids=[f"{p}-{n}" for p, n in LAYOUTS])
def layout(request):
    return request.param
