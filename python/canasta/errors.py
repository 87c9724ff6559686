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


class WireError(CanastaError, ValueError):
    """A protocol message that does not convert to the package's objects (``code`` is the
    protocol's reason, e.g. ``INVALID_CARD``, ``MALFORMED_MESSAGE``; the message names the
    field)."""


class ServiceError(CanastaError):
    """A refusal of the server (``canasta.client``, ``canasta.aio``).

    - ``status``: the gRPC status code's name (``"FAILED_PRECONDITION"``, ``"ABORTED"`` ...);
    - ``reason``: the :class:`canasta.Reason` member, or None for a reason this version does not
      know (a newer server's) or none at all (a transport failure);
    - ``code``: the reason as the server spelled it ('' if it gave none);
    - ``message``: what went wrong and what to do instead;
    - ``retry_after``: the seconds the server asked to wait (limits), else None;
    - ``details``: the other ``canasta-*`` facts it sent (``{"seq": "41"}`` on ``STALE_SEQ``).
    """

    def __init__(self, status: str, code: str, message: str, retry_after=None, details=None):
        from .reasons import Reason

        super().__init__(code, message)
        self.status = status
        self.reason = Reason.parse(code) if code else None
        self.retry_after = retry_after
        self.details = dict(details or {})

    def __str__(self):
        return f"{self.message} [{self.status} {self.code or 'no reason'}]"
