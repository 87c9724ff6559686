//! The stable reasons of the service's errors: one [`Reason`] per case, shared by the server
//! (which sends them) and by clients (which branch on them).
//!
//! Every error status of `canasta.v1.CanastaService` carries its reason twice:
//!
//! - in a `google.rpc.ErrorInfo` detail of domain [`DOMAIN`] (the status's
//!   `grpc-status-details-bin`; the detail types are served by the server's reflection and
//!   shipped in `proto/google/rpc/`), and
//! - as plain ASCII response metadata, [`REASON_KEY`] (`canasta-reason: SEAT_TAKEN`), which
//!   every gRPC library hands over without knowing google.rpc.
//!
//! A limit's status also carries its retry delay as metadata ([`RETRY_AFTER_MS_KEY`]), beside
//! its `google.rpc.RetryInfo`, and every `ErrorInfo.metadata` entry travels as metadata too,
//! under [`METADATA_PREFIX`] (`canasta-seq` for `STALE_SEQ`).
//!
//! The wire strings never change: bots branch on them. A reason this version does not know (from
//! a newer server) is still an error of the service: [`raw_reason_of`] reads it as a string, and
//! [`Reason::parse`] answers `None` for it.
//!
//! ```
//! use canasta_proto::reason::Reason;
//!
//! assert_eq!(Reason::SeatTaken.as_str(), "SEAT_TAKEN");
//! assert_eq!(Reason::parse("PILE_FROZEN"), Some(Reason::PileFrozen));
//! assert_eq!(Reason::parse("A_REASON_OF_A_NEWER_SERVER"), None);
//! ```

use std::fmt;

use canasta_engine::{RuleError, RulesError, SetupError};
use tonic::Status;
use tonic_types::StatusExt;

/// The error domain of every reason (`google.rpc.ErrorInfo.domain`).
pub const DOMAIN: &str = "canasta.v1";

/// The response metadata that holds an error's reason, as plain ASCII (`canasta-reason:
/// STALE_SEQ`). Every error status of the service carries it.
pub const REASON_KEY: &str = "canasta-reason";

/// The response metadata that holds how long to wait before retrying, in whole milliseconds
/// rounded up (never 0), on errors that give a delay: the RESOURCE_EXHAUSTED limits. The same
/// delay as the status's `google.rpc.RetryInfo`.
pub const RETRY_AFTER_MS_KEY: &str = "canasta-retry-after-ms";

/// The prefix under which each `google.rpc.ErrorInfo.metadata` entry of an error travels as
/// response metadata too: the current seq of a `STALE_SEQ` refusal is `canasta-seq`.
pub const METADATA_PREFIX: &str = "canasta-";

/// Declares [`Reason`] with its wire strings: the enum, [`Reason::ALL`], [`Reason::as_str`] and
/// [`Reason::parse`] from one list, so that they cannot disagree.
macro_rules! reasons {
    ($( $(#[$doc:meta])* $variant:ident = $wire:literal, )*) => {
        /// Why the service refused a request: the stable code of `google.rpc.ErrorInfo.reason`
        /// and of the `canasta-reason` metadata ([`REASON_KEY`]). Each is documented with when
        /// it is sent and what a client should do; `docs/protocol.md` lists them all.
        ///
        /// New reasons are added as the service grows (hence `non_exhaustive`): a client meets
        /// reasons it does not know and treats them by their gRPC code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Reason {
            $( $(#[$doc])* $variant, )*
        }

        impl Reason {
            /// Every reason, in the order of `docs/protocol.md`: the service's, then the rules'.
            pub const ALL: &'static [Reason] = &[$(Reason::$variant,)*];

            /// The reason as the wire spells it (`"SEAT_TAKEN"`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Reason::$variant => $wire,)*
                }
            }

            /// The reason the wire string names; `None` for a string that is no reason of this
            /// version (a newer server's, or none at all).
            pub fn parse(wire: &str) -> Option<Reason> {
                match wire {
                    $($wire => Some(Reason::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

reasons! {
    // ----- the request: INVALID_ARGUMENT -----
    /// INVALID_ARGUMENT: the request's bytes are not protobuf of its type (invalid UTF-8 in a
    /// string, a truncated varint, a wrong wire type, nesting too deep), for a unary call or a
    /// message of a Play call (which then ends). Encode requests with a protobuf library from
    /// the .proto files (or the server's reflection); regenerate stale stubs.
    MalformedMessage = "MALFORMED_MESSAGE",
    /// INVALID_ARGUMENT: a required field is absent (JoinGame's `display_name` among them); the
    /// BadRequest detail names it. Send it.
    MissingField = "MISSING_FIELD",
    /// INVALID_ARGUMENT: an enum value is unspecified (`*_UNSPECIFIED`) or unknown to the
    /// server. Send one of the values the .proto lists.
    InvalidEnum = "INVALID_ENUM",
    /// INVALID_ARGUMENT: a card with no rank, a bad suit, or a joker with a suit. Fix the card
    /// (the BadRequest detail names where it is).
    InvalidCard = "INVALID_CARD",
    /// INVALID_ARGUMENT: a list of cards longer than any pack, or with more than 15 copies of a
    /// card (refused, not cut short). Send fewer. (A client reading a view back,
    /// `canasta_proto::convert::view_from_wire`, refuses with it a seat's known cards that its
    /// hand does not hold too.)
    TooManyCards = "TOO_MANY_CARDS",
    /// INVALID_ARGUMENT: a meld index out of range. Name one of the side's melds. (A client
    /// reading a view back, `canasta_proto::convert::view_from_wire`, refuses with it a side
    /// or a count out of range too; GetReplayStep a step past the game's last.)
    InvalidIndex = "INVALID_INDEX",
    /// INVALID_ARGUMENT: the preset is not played by that many players (CreateGame). Change the
    /// count.
    BadPlayerCount = "BAD_PLAYER_COUNT",
    /// INVALID_ARGUMENT: the rule set names an option that does not exist (CreateGame,
    /// DescribeRules). Use the names DescribeRules lists.
    UnknownOption = "UNKNOWN_OPTION",
    /// INVALID_ARGUMENT: an option's value cannot be read; the message says what is expected.
    /// Fix the value.
    BadOptionValue = "BAD_OPTION_VALUE",
    /// INVALID_ARGUMENT: options contradict each other or the player count; the message names
    /// them. Change one of them.
    OptionConflict = "OPTION_CONFLICT",
    /// INVALID_ARGUMENT: a prearranged deck (`card_orders`) is not the rules' pack. Send the
    /// whole pack, top first.
    BadCardOrder = "BAD_CARD_ORDER",
    /// INVALID_ARGUMENT: `first_dealer` is not a seat that plays the first deal. Name one.
    BadFirstDealer = "BAD_FIRST_DEALER",
    /// INVALID_ARGUMENT: `start_scores` are not one per side, or beyond the bounds either way.
    /// Send one score per side within the bounds.
    BadStartScores = "BAD_START_SCORES",
    /// INVALID_ARGUMENT: no such seat. Choose 0 to players-1.
    InvalidSeat = "INVALID_SEAT",
    /// INVALID_ARGUMENT: the display name is blank, too long, or holds an invisible,
    /// direction-changing or control character (JoinGame). Send 1 to 40 visible characters.
    BadDisplayName = "BAD_DISPLAY_NAME",
    /// INVALID_ARGUMENT: `time_control.move_budget_ms` below the server's floor or above its
    /// ceiling (CreateGame). Send a budget within the bounds the message gives, or 0 for none.
    BadTimeControl = "BAD_TIME_CONTROL",
    /// INVALID_ARGUMENT: a `bots` entry names no built-in bot, or settings the bot does not
    /// take (CreateGame); the BadRequest detail names the entry. Name one of greedy, random,
    /// safe, search (search with a budget such as search:50ms or search:400).
    UnknownBot = "UNKNOWN_BOT",
    /// INVALID_ARGUMENT: a `bots` entry asks for more thinking than the server allows a move
    /// (a search budget above `--max-bot-think-ms` or `--max-bot-iterations`, or more than one
    /// thread) (CreateGame). Ask for a budget within the caps the message gives.
    BotBudgetTooHigh = "BOT_BUDGET_TOO_HIGH",
    /// INVALID_ARGUMENT: two `bots` entries name the same seat (CreateGame). Name each seat
    /// once.
    DuplicateSeat = "DUPLICATE_SEAT",
    /// INVALID_ARGUMENT: `request_id` empty or over 64 characters. Send a fresh id of 1 to 64.
    BadRequestId = "BAD_REQUEST_ID",
    /// INVALID_ARGUMENT: the `request_id` was already applied, to another action. Use a fresh
    /// id for each new action, the same id only to retry the same action.
    RequestIdReused = "REQUEST_ID_REUSED",
    /// INVALID_ARGUMENT: a ListGames page token the server did not make. Start from the first
    /// page.
    BadPageToken = "BAD_PAGE_TOKEN",
    /// INVALID_ARGUMENT: `after_seq` beyond the game's last event. Watch from a seq you saw, or
    /// 0.
    BadSeq = "BAD_SEQ",
    /// INVALID_ARGUMENT, as a Play result: a second `watch` on an open Play call (the call goes
    /// on). Send actions as `submit`; open another call to watch from another seq.
    PlayAlreadyOpen = "PLAY_ALREADY_OPEN",
    /// INVALID_ARGUMENT, as a Play result: a `submit` names another game than the call's (the
    /// call goes on). Leave `game_id` empty, or open a call for that game.
    WrongGame = "WRONG_GAME",

    // ----- the game's state: FAILED_PRECONDITION, ABORTED -----
    /// FAILED_PRECONDITION: an action (SubmitAction, CheckAction, Play) while seats are still
    /// free. Wait for the prompt, which comes after GameStarted.
    GameNotStarted = "GAME_NOT_STARTED",
    /// FAILED_PRECONDITION: the match is over (an action, a join, a leave). Stop, or create
    /// another game.
    GameFinished = "GAME_FINISHED",
    /// FAILED_PRECONDITION: ExportGame or GetReplayStep of a game in progress. Export or
    /// replay it after MatchEnded.
    GameNotFinished = "GAME_NOT_FINISHED",
    /// FAILED_PRECONDITION: the seat asked for is held (JoinGame). Join another seat (leave
    /// `seat` unset for the lowest free one), or watch.
    SeatTaken = "SEAT_TAKEN",
    /// FAILED_PRECONDITION: every seat is held (JoinGame). Join another game, or watch.
    GameFull = "GAME_FULL",
    /// FAILED_PRECONDITION: CancelGame of a game that has started; only a waiting game can be
    /// cancelled. Play the match, or leave the seat.
    GameStarted = "GAME_STARTED",
    /// ABORTED: the game moved on since `expected_seq` (ErrorInfo metadata `seq`, metadata
    /// `canasta-seq`: the current seq); nothing was applied. Do not retry: read the missed
    /// events and decide again on the next prompt.
    StaleSeq = "STALE_SEQ",

    // ----- who asks: NOT_FOUND, UNAUTHENTICATED, PERMISSION_DENIED -----
    /// NOT_FOUND: no game has that id (a server with `--memory` forgets its games when it
    /// stops). List the games; stop playing this one.
    GameNotFound = "GAME_NOT_FOUND",
    /// UNAUTHENTICATED: a seat's call (LeaveGame, SubmitAction, CheckAction, Play) without a
    /// token. Send `authorization: Bearer <token>`.
    MissingToken = "MISSING_TOKEN",
    /// UNAUTHENTICATED: the `authorization` metadata is not `Bearer <token>` with a token of the
    /// server's form. Fix the header.
    MalformedToken = "MALFORMED_TOKEN",
    /// PERMISSION_DENIED: the token holds no seat of this game (a token of another game, or its
    /// seat was left). Use this game's token, or join again.
    NotASeatOfGame = "NOT_A_SEAT_OF_GAME",
    /// PERMISSION_DENIED: CancelGame with a token that is not the game's creator token (a seat's
    /// token is not one), or of a game stored before creator tokens. Send the `creator_token`
    /// CreateGame returned, or let the game expire.
    NotGameCreator = "NOT_GAME_CREATOR",
    /// DEADLINE_EXCEEDED: a Play call sent no first message within the server's
    /// `--play-open-timeout-secs`; nothing was held or changed. Open the call again and send
    /// `watch` at once. (INVALID_ARGUMENT when the first message is not `watch`: send `watch`
    /// first.)
    PlayNotOpened = "PLAY_NOT_OPENED",

    // ----- the server's limits: RESOURCE_EXHAUSTED (with RetryInfo and canasta-retry-after-ms) -----
    /// RESOURCE_EXHAUSTED: the server holds as many unfinished games as it may (CreateGame).
    /// Retry after the delay given, or play an existing game.
    TooManyGames = "TOO_MANY_GAMES",
    /// RESOURCE_EXHAUSTED: too many watch streams (WatchGame, Play): the token's, or for a
    /// spectator the game's or the address's. Close a stream (keep one per seat); retry after
    /// the delay given.
    TooManyWatchers = "TOO_MANY_WATCHERS",
    /// RESOURCE_EXHAUSTED: the request is over the server's `--max-message-bytes`, refused from
    /// its length before its body was read. Send a smaller one.
    MessageTooLarge = "MESSAGE_TOO_LARGE",
    /// RESOURCE_EXHAUSTED: too many requests, for the token on its own game, for the address
    /// otherwise; nothing was done. Wait the delay given (RetryInfo, or the
    /// `canasta-retry-after-ms` metadata) and send the same request again.
    RateLimited = "RATE_LIMITED",

    // ----- the server: UNAVAILABLE, DATA_LOSS -----
    /// UNAVAILABLE: the game, seat or action could not be stored, and nothing changed (the disk
    /// failed or is full, or the database was replaced; the message says which). Retry later;
    /// for an action, with the same request id.
    StorageFailed = "STORAGE_FAILED",
    /// UNAVAILABLE: the server is stopping and took no new request; nothing changed. Reconnect
    /// to the restarted server and retry (streams resume by seq).
    ShuttingDown = "SHUTTING_DOWN",
    /// DATA_LOSS: the game's stored record is damaged or does not replay (on a restore, or on
    /// the rebuild of a finished game); the server cannot restore the game and does not serve
    /// it. Tell the server's operator; play another game.
    BadLog = "BAD_LOG",

    // ----- the lobby (LobbyService) -----
    /// INVALID_ARGUMENT: a rated seek or challenge with option overrides: a rated game plays
    /// its preset's own rules. Drop the options, or set `rated` to false.
    RatedHouseRules = "RATED_HOUSE_RULES",
    /// INVALID_ARGUMENT: a challenge with a `seed` that is rated (rated is the default):
    /// whoever knows the seed knows every card, so a seeded game is never rated. Set `rated` to
    /// false, or drop the seed.
    RatedSeed = "RATED_SEED",
    /// INVALID_ARGUMENT: a seek's `partner` that cannot be one: the seeker itself, a name no
    /// player has, or a partner in rules without partnerships (each side one seat). Name
    /// another registered player, or none.
    BadPartner = "BAD_PARTNER",
    /// INVALID_ARGUMENT: a challenge's `seats` that do not seat the rules' players: not as many
    /// names as seats, a name twice, a name no player has, or the challenger absent. List every
    /// seat's registered player, the challenger once.
    BadSeats = "BAD_SEATS",
    /// INVALID_ARGUMENT: `fill_with_bots_after_ms` over an hour. Give at most 3600000, or 0.
    BadFillWait = "BAD_FILL_WAIT",
    /// FAILED_PRECONDITION: `fill_with_bots_after_ms` on a server that hosts no house players
    /// (`--house-player none`). Send 0, and wait for players.
    HouseBotsUnavailable = "HOUSE_BOTS_UNAVAILABLE",
    /// ALREADY_EXISTS: RegisterPlayer with a name a player has (regardless of case). Choose
    /// another name.
    NameTaken = "NAME_TAKEN",
    /// UNAUTHENTICATED: a lobby call whose key no player holds. Send the key RegisterPlayer
    /// returned (a lost key is not recovered: register another name).
    UnknownPlayerKey = "UNKNOWN_PLAYER_KEY",
    /// NOT_FOUND: no player has that name (GetPlayer). Check the name (the leaderboard lists
    /// players).
    PlayerNotFound = "PLAYER_NOT_FOUND",
    /// NOT_FOUND: no challenge has that id (a server forgets an ended challenge after a while,
    /// and when it restarts; pending ones it keeps). Challenge again.
    ChallengeNotFound = "CHALLENGE_NOT_FOUND",
    /// PERMISSION_DENIED: AnswerChallenge by a player the challenge does not invite, or
    /// CancelChallenge by another than its challenger. Answer only your own invitations.
    NotInvited = "NOT_INVITED",
    /// FAILED_PRECONDITION: an answer to, or the cancel of, a challenge that has ended (started,
    /// declined, expired or cancelled). Nothing to do: its last state is in the answer's
    /// message and on the players' streams.
    ChallengeClosed = "CHALLENGE_CLOSED",
    /// OUT_OF_RANGE: WatchPlayer's `after_seq` older than the events the server keeps of the
    /// player (ErrorInfo metadata `first_seq`: the oldest kept). Read the player's record
    /// (GetPlayer) and the games it names, then watch from `first_seq - 1`.
    EventsDropped = "EVENTS_DROPPED",
    /// RESOURCE_EXHAUSTED: the player holds as many seeks and pending challenges as it may
    /// (the server's `--max-seeks-per-player`). Close a seek or wait for an answer.
    TooManySeeks = "TOO_MANY_SEEKS",
    /// RESOURCE_EXHAUSTED: the player sits in as many unfinished lobby games (with its seeks
    /// and the pending challenges it made or accepted) as it may (the server's
    /// `--max-games-per-player`), at a seek, a challenge or an accept. Finish a game first.
    TooManyPlayerGames = "TOO_MANY_PLAYER_GAMES",

    // ----- the rules: FAILED_PRECONDITION, from the engine's RuleError -----
    // Each says the action breaks a rule; the message names the rule and what would be legal
    // instead. A client chooses another action (the prompt lists the legal ones: a listed
    // action is never refused for a rule).
    /// FAILED_PRECONDITION: the match is over; no action is possible. Stop.
    MatchOver = "MATCH_OVER",
    /// FAILED_PRECONDITION: the seat is not part of this game. Act only for your own seat.
    NoSuchSeat = "NO_SUCH_SEAT",
    /// FAILED_PRECONDITION: another seat must act now. Wait for your prompt.
    NotYourTurn = "NOT_YOUR_TURN",
    /// FAILED_PRECONDITION: the action does not fit the phase of the turn (a discard before
    /// drawing, a draw after it, anything but an answer when the partner asked). Act on the
    /// prompt's choices.
    WrongPhase = "WRONG_PHASE",
    /// FAILED_PRECONDITION: drawing from an empty stock. Take the pile if you can, or decline it.
    StockEmpty = "STOCK_EMPTY",
    /// FAILED_PRECONDITION: declining the pile while the stock still has cards. Draw or take the
    /// pile.
    StockNotEmpty = "STOCK_NOT_EMPTY",
    /// FAILED_PRECONDITION: declining a pile that must be taken (the stock is empty and the top
    /// card can be taken: forcing). Take the pile.
    MustTakePile = "MUST_TAKE_PILE",
    /// FAILED_PRECONDITION: taking an empty pile. Draw from the stock.
    PileEmpty = "PILE_EMPTY",
    /// FAILED_PRECONDITION: the pile's top card (a wild card or a stop card) blocks it. Draw
    /// from the stock.
    PileBlocked = "PILE_BLOCKED",
    /// FAILED_PRECONDITION: the pile is frozen for the player and needs a natural pair of the
    /// top card's rank from the hand. Offer that pair, or draw.
    PileFrozen = "PILE_FROZEN",
    /// FAILED_PRECONDITION: the cards offered do not meld the pile's top card. Offer cards that
    /// meld it, or add it to the side's meld of its rank.
    TopCardNotMelded = "TOP_CARD_NOT_MELDED",
    /// FAILED_PRECONDITION: one card in hand may not take a pile of one card. Draw from the
    /// stock.
    OneCardPile = "ONE_CARD_PILE",
    /// FAILED_PRECONDITION: the action names more copies of a card than the player holds. Use
    /// the cards of your hand.
    CardNotHeld = "CARD_NOT_HELD",
    /// FAILED_PRECONDITION: a meld action with no melds, or a meld entry with no cards. Name the
    /// cards.
    EmptyMeld = "EMPTY_MELD",
    /// FAILED_PRECONDITION: a meld of fewer than three cards. Meld three or more.
    MeldTooSmall = "MELD_TOO_SMALL",
    /// FAILED_PRECONDITION: a meld with fewer than two natural cards. Add naturals.
    TooFewNaturals = "TOO_FEW_NATURALS",
    /// FAILED_PRECONDITION: a meld with more wild cards than the rules allow. Use fewer.
    TooManyWilds = "TOO_MANY_WILDS",
    /// FAILED_PRECONDITION: wild cards would outnumber (or, where they must be fewer, equal) the
    /// naturals of the meld. Add naturals or use fewer wild cards.
    WildRatio = "WILD_RATIO",
    /// FAILED_PRECONDITION: a new meld with natural cards of more than one rank. Make one meld
    /// per rank.
    MixedRanks = "MIXED_RANKS",
    /// FAILED_PRECONDITION: a card that does not belong in the meld it is added to. Add natural
    /// cards of the meld's rank, or wild cards.
    WrongRank = "WRONG_RANK",
    /// FAILED_PRECONDITION: a red three melded or discarded; they are laid out by themselves.
    /// Leave them out.
    RedThree = "RED_THREE",
    /// FAILED_PRECONDITION: black threes melded other than when going out. Meld them only in
    /// going out.
    BlackThreesOnlyGoingOut = "BLACK_THREES_ONLY_GOING_OUT",
    /// FAILED_PRECONDITION: a black-three meld of the wrong size or with a wild card. Meld 3 (to
    /// the rules' maximum) black threes alone.
    BadBlackThreeMeld = "BAD_BLACK_THREE_MELD",
    /// FAILED_PRECONDITION: a meld of wild cards only, where the rules forbid it. Add wild cards
    /// to a meld with naturals.
    WildOnlyMeld = "WILD_ONLY_MELD",
    /// FAILED_PRECONDITION: a new meld of a rank the side has melded already. Add the cards to
    /// that meld.
    RankAlreadyMelded = "RANK_ALREADY_MELDED",
    /// FAILED_PRECONDITION: the same meld (or two new melds of one rank) twice in one batch. Put
    /// all its cards in one entry.
    DuplicateMeld = "DUPLICATE_MELD",
    /// FAILED_PRECONDITION: no meld with that number on the player's side. Add only to your
    /// side's melds.
    NoSuchMeld = "NO_SUCH_MELD",
    /// FAILED_PRECONDITION: cards added to a completed canasta where the rules close them. Meld
    /// the cards elsewhere.
    CanastaClosed = "CANASTA_CLOSED",
    /// FAILED_PRECONDITION: the side's initial meld does not reach its minimum. Meld more cards
    /// in the same action.
    BelowMinimum = "BELOW_MINIMUM",
    /// FAILED_PRECONDITION: the action would leave too few cards to go on with the turn. Keep a
    /// card (or go out with `go_out`, when the side may).
    MustKeepCard = "MUST_KEEP_CARD",
    /// FAILED_PRECONDITION: going out would leave cards in hand. Meld or discard every card.
    CardsLeft = "CARDS_LEFT",
    /// FAILED_PRECONDITION: the side lacks the canastas needed to go out. Keep melding.
    NotEnoughCanastas = "NOT_ENOUGH_CANASTAS",
    /// FAILED_PRECONDITION: going out needs a natural canasta under these rules. Keep melding.
    NeedNaturalCanasta = "NEED_NATURAL_CANASTA",
    /// FAILED_PRECONDITION: the partner answered no to going out this turn. Meld or discard.
    PartnerSaidNo = "PARTNER_SAID_NO",
    /// FAILED_PRECONDITION: asking the partner in a game without partners. Do not ask.
    NoPartner = "NO_PARTNER",
    /// FAILED_PRECONDITION: the partner was asked already this turn. Do not ask again.
    AlreadyAsked = "ALREADY_ASKED",
    /// FAILED_PRECONDITION: the partner is asked after drawing from the stock and before
    /// melding. Ask then, or not at all.
    AskTooLate = "ASK_TOO_LATE",
    /// FAILED_PRECONDITION: discarding the last card, which is going out. Send `go_out` with the
    /// discard (when the side may go out).
    DiscardLastCard = "DISCARD_LAST_CARD",
    /// FAILED_PRECONDITION: cards that are not three to seven consecutive naturals of one suit,
    /// where sequences are played. Fix the sequence.
    NotASequence = "NOT_A_SEQUENCE",
    /// FAILED_PRECONDITION: a natural card offered to a meld of wild cards. Add jokers and twos
    /// only.
    NotWild = "NOT_WILD",
    /// FAILED_PRECONDITION: a wild card added to a canasta where the rules forbid it. Add
    /// natural cards.
    NoWildOnCanasta = "NO_WILD_ON_CANASTA",
    /// FAILED_PRECONDITION: the pile may not be taken that way under these rules (the message
    /// says why). Take it with a natural pair, or draw.
    PileTakeForbidden = "PILE_TAKE_FORBIDDEN",
    /// FAILED_PRECONDITION: melding after taking the pile, where the rules forbid it. Discard.
    NoMeldAfterTake = "NO_MELD_AFTER_TAKE",
    /// FAILED_PRECONDITION: going out without a discard, where the rules require one. Keep a
    /// card to discard.
    GoOutNeedsDiscard = "GO_OUT_NEEDS_DISCARD",
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&RuleError> for Reason {
    /// The reason of a rule violation. Exhaustive on purpose: a new rule error of the engine does
    /// not compile until it has its reason here (and in docs/protocol.md).
    fn from(e: &RuleError) -> Reason {
        match e {
            RuleError::MatchOver => Reason::MatchOver,
            RuleError::NoSuchSeat { .. } => Reason::NoSuchSeat,
            RuleError::NotYourTurn { .. } => Reason::NotYourTurn,
            RuleError::WrongPhase { .. } => Reason::WrongPhase,
            RuleError::StockEmpty => Reason::StockEmpty,
            RuleError::StockNotEmpty => Reason::StockNotEmpty,
            RuleError::MustTakePile { .. } => Reason::MustTakePile,
            RuleError::PileEmpty => Reason::PileEmpty,
            RuleError::PileBlocked { .. } => Reason::PileBlocked,
            RuleError::PileFrozen { .. } => Reason::PileFrozen,
            RuleError::TopCardNotMelded { .. } => Reason::TopCardNotMelded,
            RuleError::OneCardPile => Reason::OneCardPile,
            RuleError::CardNotHeld { .. } => Reason::CardNotHeld,
            RuleError::EmptyMeld => Reason::EmptyMeld,
            RuleError::MeldTooSmall { .. } => Reason::MeldTooSmall,
            RuleError::TooFewNaturals { .. } => Reason::TooFewNaturals,
            RuleError::TooManyWilds { .. } => Reason::TooManyWilds,
            RuleError::WildRatio { .. } => Reason::WildRatio,
            RuleError::MixedRanks { .. } => Reason::MixedRanks,
            RuleError::WrongRank { .. } => Reason::WrongRank,
            RuleError::RedThree => Reason::RedThree,
            RuleError::BlackThreesOnlyGoingOut => Reason::BlackThreesOnlyGoingOut,
            RuleError::BadBlackThreeMeld { .. } => Reason::BadBlackThreeMeld,
            RuleError::WildOnlyMeld => Reason::WildOnlyMeld,
            RuleError::RankAlreadyMelded { .. } => Reason::RankAlreadyMelded,
            RuleError::DuplicateMeld => Reason::DuplicateMeld,
            RuleError::NoSuchMeld { .. } => Reason::NoSuchMeld,
            RuleError::CanastaClosed { .. } => Reason::CanastaClosed,
            RuleError::BelowMinimum { .. } => Reason::BelowMinimum,
            RuleError::MustKeepCard { .. } => Reason::MustKeepCard,
            RuleError::CardsLeft { .. } => Reason::CardsLeft,
            RuleError::NotEnoughCanastas { .. } => Reason::NotEnoughCanastas,
            RuleError::NeedNaturalCanasta => Reason::NeedNaturalCanasta,
            RuleError::PartnerSaidNo => Reason::PartnerSaidNo,
            RuleError::NoPartner => Reason::NoPartner,
            RuleError::AlreadyAsked => Reason::AlreadyAsked,
            RuleError::AskTooLate => Reason::AskTooLate,
            RuleError::DiscardLastCard { .. } => Reason::DiscardLastCard,
            RuleError::NotASequence => Reason::NotASequence,
            RuleError::NotWild { .. } => Reason::NotWild,
            RuleError::NoWildOnCanasta { .. } => Reason::NoWildOnCanasta,
            RuleError::PileTakeForbidden { .. } => Reason::PileTakeForbidden,
            RuleError::NoMeldAfterTake => Reason::NoMeldAfterTake,
            RuleError::GoOutNeedsDiscard => Reason::GoOutNeedsDiscard,
        }
    }
}

impl From<&RulesError> for Reason {
    /// The reason of a refused rule set.
    fn from(e: &RulesError) -> Reason {
        match e {
            // Presets are named by the engine's callers (the command line), never on the wire,
            // where the preset is an enum: an unknown one is an unknown enum value there.
            RulesError::UnknownPreset(_) => Reason::InvalidEnum,
            RulesError::UnknownOption(_) => Reason::UnknownOption,
            RulesError::BadValue { .. } => Reason::BadOptionValue,
            RulesError::Players(_) => Reason::BadPlayerCount,
            RulesError::Conflict(_) => Reason::OptionConflict,
        }
    }
}

impl From<&SetupError> for Reason {
    /// The reason of a refused setup.
    fn from(e: &SetupError) -> Reason {
        match e {
            SetupError::Rules(e) => Reason::from(e),
            SetupError::CardOrder { .. } => Reason::BadCardOrder,
            SetupError::FirstDealer { .. } => Reason::BadFirstDealer,
            SetupError::StartScores { .. } | SetupError::StartScoreRange { .. } => {
                Reason::BadStartScores
            }
        }
    }
}

/// The reason of an error status of the service, if it is one this version knows: read from
/// its `google.rpc.ErrorInfo` detail (domain [`DOMAIN`]), else from the `canasta-reason`
/// metadata. `None` for a status without either (the transport's: a connection that failed, a
/// proxy's refusal) and for a reason of a newer server ([`raw_reason_of`] reads those).
pub fn reason_of(status: &Status) -> Option<Reason> {
    raw_reason_of(status).and_then(|r| Reason::parse(&r))
}

/// The reason of an error status of the service as the wire spells it, known to this version
/// or not; `None` if the status carries none (so it does not come from the service).
pub fn raw_reason_of(status: &Status) -> Option<String> {
    if let Some(info) = status.get_details_error_info()
        && info.domain == DOMAIN
    {
        return Some(info.reason);
    }
    status
        .metadata()
        .get(REASON_KEY)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// A gRPC code's canonical name, as the gRPC specification spells it (`DEADLINE_EXCEEDED`;
/// tonic's `Debug` spells the variant, `DeadlineExceeded`): how the server's metrics label a
/// code, and how a client names a failure that carries no reason.
pub fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code;
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canasta_engine::{Card, Phase, Rank, Seat, Suit};
    use tonic::Code;
    use tonic_types::ErrorDetails;

    #[test]
    fn wire_strings_are_unique_and_parse_back() {
        let mut seen = std::collections::HashSet::new();
        for &r in Reason::ALL {
            let wire = r.as_str();
            assert!(seen.insert(wire), "{wire} twice");
            // google.rpc.ErrorInfo: at most 63 characters of [A-Z0-9_].
            assert!(wire.len() <= 63 && !wire.is_empty(), "{wire}");
            assert!(
                wire.bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'),
                "{wire}"
            );
            assert_eq!(Reason::parse(wire), Some(r));
            assert_eq!(r.to_string(), wire);
        }
        assert_eq!(Reason::parse("seat_taken"), None, "case matters");
        assert_eq!(Reason::parse(""), None);
        assert_eq!(Reason::parse("ILLEGAL_ACTION"), None);
    }

    /// One of each rule error: its reason is the engine's own code, so the wire says what the
    /// engine says (`RuleError::code`, `RuleError::CODES`).
    #[test]
    fn rule_errors_keep_the_engine_s_codes() {
        let card = Card::new(Rank::King, Suit::Spades);
        let errors = [
            RuleError::MatchOver,
            RuleError::NoSuchSeat { seat: Seat(5) },
            RuleError::NotYourTurn { to_act: Seat(1) },
            RuleError::WrongPhase {
                phase: Phase::Draw,
                action: "discard",
            },
            RuleError::StockEmpty,
            RuleError::StockNotEmpty,
            RuleError::MustTakePile { top: card },
            RuleError::PileEmpty,
            RuleError::PileBlocked { top: card },
            RuleError::PileFrozen {
                top: card,
                naturals: 1,
            },
            RuleError::TopCardNotMelded {
                top: card,
                with_wild: false,
            },
            RuleError::OneCardPile,
            RuleError::CardNotHeld { card, held: 0 },
            RuleError::EmptyMeld,
            RuleError::MeldTooSmall { len: 2 },
            RuleError::TooFewNaturals { rank: Rank::King },
            RuleError::TooManyWilds {
                rank: Rank::King,
                wilds: 4,
                max: 3,
            },
            RuleError::WildRatio {
                rank: Rank::King,
                wilds: 2,
                naturals: 2,
                strict: true,
            },
            RuleError::MixedRanks {
                a: Rank::King,
                b: Rank::Queen,
            },
            RuleError::WrongRank {
                rank: Rank::Queen,
                card,
            },
            RuleError::RedThree,
            RuleError::BlackThreesOnlyGoingOut,
            RuleError::BadBlackThreeMeld { count: 2, max: 4 },
            RuleError::WildOnlyMeld,
            RuleError::RankAlreadyMelded {
                rank: Rank::King,
                meld: 0,
            },
            RuleError::DuplicateMeld,
            RuleError::NoSuchMeld { meld: 3, count: 1 },
            RuleError::CanastaClosed { meld: 0 },
            RuleError::BelowMinimum {
                value: 30,
                minimum: 50,
            },
            RuleError::MustKeepCard {
                left: 0,
                could_go_out: false,
            },
            RuleError::CardsLeft { left: 2 },
            RuleError::NotEnoughCanastas { have: 0, need: 1 },
            RuleError::NeedNaturalCanasta,
            RuleError::PartnerSaidNo,
            RuleError::NoPartner,
            RuleError::AlreadyAsked,
            RuleError::AskTooLate,
            RuleError::NotASequence,
            RuleError::NotWild { card },
            RuleError::NoWildOnCanasta { meld: 0 },
            RuleError::PileTakeForbidden {
                top: card,
                why: "test",
            },
            RuleError::NoMeldAfterTake,
            RuleError::GoOutNeedsDiscard,
            RuleError::DiscardLastCard {
                could_go_out: false,
            },
        ];
        let mut codes: Vec<&str> = errors.iter().map(RuleError::code).collect();
        for e in &errors {
            assert_eq!(Reason::from(e).as_str(), e.code(), "{e:?}");
        }
        codes.sort();
        let mut all = RuleError::CODES.to_vec();
        all.sort();
        assert_eq!(codes, all, "one error of each kind");
    }

    #[test]
    fn rule_set_and_setup_errors_keep_the_engine_s_codes() {
        let errors = [
            RulesError::UnknownOption("x".into()),
            RulesError::BadValue {
                option: "x".into(),
                why: "y".into(),
            },
            RulesError::Players("x".into()),
            RulesError::Conflict("x".into()),
        ];
        for e in &errors {
            assert_eq!(Reason::from(e).as_str(), e.code(), "{e:?}");
            let setup = SetupError::Rules(e.clone());
            assert_eq!(Reason::from(&setup).as_str(), setup.code());
        }
        for e in [
            SetupError::CardOrder {
                deal: 0,
                why: "x".into(),
            },
            SetupError::FirstDealer { seat: Seat(9) },
            SetupError::StartScores { given: 1, sides: 2 },
            SetupError::StartScoreRange { score: i32::MAX },
        ] {
            assert_eq!(Reason::from(&e).as_str(), e.code(), "{e:?}");
        }
        assert_eq!(
            Reason::from(&RulesError::UnknownPreset("x".into())),
            Reason::InvalidEnum
        );
    }

    fn with_info(domain: &str, reason: &str) -> Status {
        Status::with_error_details(
            Code::FailedPrecondition,
            "m",
            ErrorDetails::with_error_info(reason, domain, []),
        )
    }

    #[test]
    fn the_reason_is_read_from_the_detail_then_from_the_metadata() {
        assert_eq!(
            reason_of(&with_info(DOMAIN, "PILE_FROZEN")),
            Some(Reason::PileFrozen)
        );
        // A newer server's reason: still the service's error, known by its string only.
        let newer = with_info(DOMAIN, "A_NEWER_REASON");
        assert_eq!(reason_of(&newer), None);
        assert_eq!(raw_reason_of(&newer).as_deref(), Some("A_NEWER_REASON"));

        // The metadata alone (a status rebuilt by a proxy that dropped the details).
        let mut plain = Status::new(Code::NotFound, "m");
        plain
            .metadata_mut()
            .insert(REASON_KEY, "GAME_NOT_FOUND".parse().unwrap());
        assert_eq!(reason_of(&plain), Some(Reason::GameNotFound));

        // Another domain's ErrorInfo is not ours: the metadata decides.
        let mut other = with_info("example.com", "SEAT_TAKEN");
        assert_eq!(raw_reason_of(&other), None);
        other
            .metadata_mut()
            .insert(REASON_KEY, "GAME_FULL".parse().unwrap());
        assert_eq!(reason_of(&other), Some(Reason::GameFull));

        assert_eq!(
            raw_reason_of(&Status::unavailable("connection refused")),
            None
        );
    }

    // The canonical names: tonic's variant names in SCREAMING_SNAKE_CASE, each code its own.
    #[test]
    fn code_names_are_the_canonical_ones() {
        let names: std::collections::BTreeSet<&str> = (0..=16)
            .map(|n| {
                let code = tonic::Code::from_i32(n);
                let name = code_name(code);
                let mut spelled = String::new();
                for (i, c) in format!("{code:?}").chars().enumerate() {
                    if c.is_uppercase() && i > 0 {
                        spelled.push('_');
                    }
                    spelled.push(c.to_ascii_uppercase());
                }
                assert_eq!(name, spelled);
                name
            })
            .collect();
        assert_eq!(names.len(), 17);
        assert_eq!(code_name(tonic::Code::Ok), "OK");
    }
}
