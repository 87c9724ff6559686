from canasta.v1 import cards_pb2 as _cards_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MeldSpec(_message.Message):
    __slots__ = ("meld_index", "cards")
    MELD_INDEX_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    meld_index: int
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, meld_index: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...

class DrawStockAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TakePileAction(_message.Message):
    __slots__ = ("meld_index", "cards", "melds")
    MELD_INDEX_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    meld_index: int
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    melds: _containers.RepeatedCompositeFieldContainer[MeldSpec]
    def __init__(self, meld_index: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., melds: _Optional[_Iterable[_Union[MeldSpec, _Mapping]]] = ...) -> None: ...

class MeldAction(_message.Message):
    __slots__ = ("melds",)
    MELDS_FIELD_NUMBER: _ClassVar[int]
    melds: _containers.RepeatedCompositeFieldContainer[MeldSpec]
    def __init__(self, melds: _Optional[_Iterable[_Union[MeldSpec, _Mapping]]] = ...) -> None: ...

class DiscardAction(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: _cards_pb2.Card
    def __init__(self, card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ...) -> None: ...

class GoOutAction(_message.Message):
    __slots__ = ("melds", "discard")
    MELDS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    melds: _containers.RepeatedCompositeFieldContainer[MeldSpec]
    discard: _cards_pb2.Card
    def __init__(self, melds: _Optional[_Iterable[_Union[MeldSpec, _Mapping]]] = ..., discard: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ...) -> None: ...

class AskPartnerAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AnswerPartnerAction(_message.Message):
    __slots__ = ("yes",)
    YES_FIELD_NUMBER: _ClassVar[int]
    yes: bool
    def __init__(self, yes: _Optional[bool] = ...) -> None: ...

class DeclinePileAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Action(_message.Message):
    __slots__ = ("draw_stock", "take_pile", "meld", "discard", "go_out", "ask_partner", "answer_partner", "decline_pile")
    DRAW_STOCK_FIELD_NUMBER: _ClassVar[int]
    TAKE_PILE_FIELD_NUMBER: _ClassVar[int]
    MELD_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    GO_OUT_FIELD_NUMBER: _ClassVar[int]
    ASK_PARTNER_FIELD_NUMBER: _ClassVar[int]
    ANSWER_PARTNER_FIELD_NUMBER: _ClassVar[int]
    DECLINE_PILE_FIELD_NUMBER: _ClassVar[int]
    draw_stock: DrawStockAction
    take_pile: TakePileAction
    meld: MeldAction
    discard: DiscardAction
    go_out: GoOutAction
    ask_partner: AskPartnerAction
    answer_partner: AnswerPartnerAction
    decline_pile: DeclinePileAction
    def __init__(self, draw_stock: _Optional[_Union[DrawStockAction, _Mapping]] = ..., take_pile: _Optional[_Union[TakePileAction, _Mapping]] = ..., meld: _Optional[_Union[MeldAction, _Mapping]] = ..., discard: _Optional[_Union[DiscardAction, _Mapping]] = ..., go_out: _Optional[_Union[GoOutAction, _Mapping]] = ..., ask_partner: _Optional[_Union[AskPartnerAction, _Mapping]] = ..., answer_partner: _Optional[_Union[AnswerPartnerAction, _Mapping]] = ..., decline_pile: _Optional[_Union[DeclinePileAction, _Mapping]] = ...) -> None: ...
