"""The exceptions of the package.

A refusal of the engine carries its stable code: the engine's own (``RuleError.code`` and
``SetupError.code`` in the Rust crate ``canasta_engine``), which are the reason names of the
network protocol (docs/protocol.md), so a program can tell the cases apart without reading the
message.
"""


class CanastaError(Exception):
    """A refusal of the engine: ``code`` is the stable reason name, ``message`` says what went
    wrong and what to do instead."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{message} [{code}]")
        self.code = code
        self.message = message


class IllegalAction(CanastaError):
    """An action the rules refuse now (``NOT_YOUR_TURN``, ``PILE_FROZEN``, ``MATCH_OVER`` ...).
    The game is left exactly as it was."""


class SetupRefused(CanastaError):
    """A game that cannot be created: an unknown preset or option, a bad player count, a card
    order that is not the pack (``UNKNOWN_PRESET``, ``BAD_OPTION_VALUE``, ``BAD_CARD_ORDER`` ...)."""


class ReplayRefused(CanastaError):
    """A record that does not replay: its setup is refused (``index`` is None), or its action
    number ``index`` is; ``code`` is the engine's reason."""

    def __init__(self, code: str, message: str, index=None):
        super().__init__(code, message)
        self.index = index


class NotationError(ValueError):
    """Text that is not an action or a card in the engine's notation (``draw``, ``take KS KH``,
    ``meld 0: KS``, ``discard 9C``, ``out / 9C`` ...): the message says what is expected."""
