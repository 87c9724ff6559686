//! The bad-input table: every RPC, every field of its request, with missing, zero, negative or
//! huge, out-of-range, oversized, duplicated and unknown values, and the bad actions a buggy or
//! hostile client sends (cards it does not hold, a card twice, mixed ranks, empty and huge
//! batches, wrong game ids and tokens, messages over the size limit). One row per case: what
//! it is, the request, and the code and reason docs/protocol.md documents for it. After every
//! row, every game's summary and every view of the game in play (each seat's and the
//! spectator's) are as before.
//!
//! The tables of rpc_games.rs and rpc_actions.rs check the common cases of single RPCs (bad
//! rule sets and setups in CreateGame, page tokens, seats and names in JoinGame, malformed
//! actions in the draw phase, stale seqs, tokens of LeaveGame); the rows here are the others,
//! and every action row runs through both SubmitAction and CheckAction.

use canasta_engine::{Arrangement, Rules, Seat};
use canasta_proto::convert::{card_list_to_wire, rules_from_wire};
use canasta_proto::v1;
use canasta_proto::v1::action::Kind;
use canasta_tests::replica::cards;
use canasta_tests::wire::{action, meld, new_meld, wire_cards};
use canasta_tests::*;
use tonic::metadata::MetadataValue;
use tonic::{Code, Request, Status};

/// Who a request is sent as.
#[derive(Clone, Debug)]
enum Auth {
    /// No `authorization` metadata: a spectator, or a missing token.
    Nobody,
    /// The token of a seat of the game in play.
    Seat(usize),
    /// The token of a seat of another game.
    OtherGame,
    /// This `authorization` value, as raw bytes.
    Raw(Vec<u8>),
}

/// A request of any RPC.
#[derive(Clone, Debug)]
enum Call {
    Create(v1::CreateGameRequest),
    List(v1::ListGamesRequest),
    Get(v1::GetGameRequest),
    Join(v1::JoinGameRequest),
    Leave(v1::LeaveGameRequest),
    View(v1::GetViewRequest),
    Submit(v1::SubmitActionRequest),
    Check(v1::CheckActionRequest),
    Watch(v1::WatchGameRequest),
    Scores(v1::GetScoresRequest),
    Export(v1::ExportGameRequest),
    Describe(v1::DescribeRulesRequest),
    Cancel(v1::CancelGameRequest),
}

/// What a row must be answered with.
#[derive(Clone, Debug, PartialEq)]
enum Expect {
    /// An error status with this code and ErrorInfo reason.
    Error(Code, &'static str),
    /// CheckAction's verdict: not legal, for this rule.
    Illegal(&'static str),
}

/// One row of the table.
struct Row {
    what: String,
    auth: Auth,
    call: Call,
    expect: Expect,
}

fn row(what: impl Into<String>, auth: Auth, call: Call, expect: Expect) -> Row {
    Row {
        what: what.into(),
        auth,
        call,
        expect,
    }
}

fn invalid(reason: &'static str) -> Expect {
    Expect::Error(Code::InvalidArgument, reason)
}

fn rule(reason: &'static str) -> Expect {
    Expect::Error(Code::FailedPrecondition, reason)
}

const TOO_LARGE: Expect = Expect::Error(Code::ResourceExhausted, "MESSAGE_TOO_LARGE");
const NOT_FOUND: Expect = Expect::Error(Code::NotFound, "GAME_NOT_FOUND");
const MISSING_TOKEN: Expect = Expect::Error(Code::Unauthenticated, "MISSING_TOKEN");
const MALFORMED_TOKEN: Expect = Expect::Error(Code::Unauthenticated, "MALFORMED_TOKEN");
const NOT_A_SEAT: Expect = Expect::Error(Code::PermissionDenied, "NOT_A_SEAT_OF_GAME");

/// The server's limit on a request (its default `--max-message-bytes`).
const MAX_MESSAGE_BYTES: usize = 1 << 20;

/// The tables' world: a server, the game in play (seat 0 has drawn and must meld or discard),
/// a game waiting for its second player, and a token of that other game.
struct World {
    server: TestServer,
    client: Client,
    id: String,
    tokens: Vec<String>,
    waiting: String,
    other_token: String,
}

/// Seat 0's hand after its draw: the arranged hand and the fours of spades and hearts.
const HAND0: &str = "7H 7S Jk 3S KS KH KD 9C TC JD QS AS 4D 5D 6H";

/// What no request of the table may change.
#[derive(Debug, PartialEq)]
struct Snapshot {
    games: Vec<v1::GameSummary>,
    views: Vec<v1::GetViewResponse>,
}

impl World {
    async fn new() -> World {
        // The table sends many requests with one token in a moment: lift the rate limit, which
        // is not under test here.
        let config = test_config()
            .requests_per_second(1_000_000.0)
            .build()
            .unwrap();
        let server = TestServer::with_config(config).await;
        let mut client = server.client().await;
        let rules = rules(v1::Preset::Official, 2, &[]);
        let spec = rules_from_wire(&rules).expect("good rules");
        let arrangement = Arrangement {
            hands: vec![cards(HAND0), vec![]],
            pile: cards("2C 7D"),
            stock: cards("4S 4H 5S 5H"),
            cut: vec![],
        };
        let deck = arrangement
            .deck(&Rules::new(&spec).expect("good rules"), 0, Seat(1))
            .expect("an arrangement");
        let game = create_with(
            &mut client,
            v1::CreateGameRequest {
                rules: Some(rules),
                seed: Some(11),
                card_orders: vec![v1::CardOrder {
                    cards: card_list_to_wire(&deck),
                }],
                first_dealer: Some(1),
                ..Default::default()
            },
        )
        .await;
        let tokens = join_all(&mut client, &game).await;
        let seq = client
            .get_game(v1::GetGameRequest {
                game_id: game.game_id.clone(),
            })
            .await
            .expect("the game")
            .into_inner()
            .game
            .expect("a summary")
            .seq;
        client
            .submit_action(authed(
                v1::SubmitActionRequest {
                    game_id: game.game_id.clone(),
                    expected_seq: seq,
                    request_id: "draw".into(),
                    action: Some(action(Kind::DrawStock(v1::DrawStockAction {}))),
                },
                &tokens[0],
            ))
            .await
            .expect("seat 0 draws");
        let waiting = create(&mut client, 2, 12).await.game_id;
        let other = create(&mut client, 2, 13).await;
        let other_token = client
            .join_game(v1::JoinGameRequest {
                game_id: other.game_id,
                seat: None,
                display_name: "other".into(),
            })
            .await
            .expect("a seat")
            .into_inner()
            .token;
        World {
            server,
            client,
            id: game.game_id,
            tokens,
            waiting,
            other_token,
        }
    }

    async fn snapshot(&mut self) -> Snapshot {
        let games = self
            .client
            .list_games(v1::ListGamesRequest {
                page_size: 500,
                ..Default::default()
            })
            .await
            .expect("a list")
            .into_inner()
            .games;
        let mut views = Vec::new();
        for seat in (0..self.tokens.len()).map(Some).chain([None]) {
            let message = v1::GetViewRequest {
                game_id: self.id.clone(),
                include_actions: true,
            };
            let request = match seat {
                Some(s) => authed(message, &self.tokens[s]),
                None => Request::new(message),
            };
            views.push(
                self.client
                    .get_view(request)
                    .await
                    .expect("a view")
                    .into_inner(),
            );
        }
        Snapshot { games, views }
    }

    fn request<T>(&self, auth: &Auth, message: T) -> Request<T> {
        match auth {
            Auth::Nobody => Request::new(message),
            Auth::Seat(s) => authed(message, &self.tokens[*s]),
            Auth::OtherGame => authed(message, &self.other_token),
            Auth::Raw(bytes) => {
                let mut r = Request::new(message);
                let value = MetadataValue::try_from(bytes.as_slice()).expect("a header value");
                r.metadata_mut().insert("authorization", value);
                r
            }
        }
    }

    /// Sends a call; CheckAction's verdict comes back as its reason.
    async fn send(&mut self, auth: &Auth, call: Call) -> Result<Option<String>, Status> {
        let mut client = self.client.clone();
        let c = &mut client;
        Ok(match call {
            Call::Create(m) => c.create_game(self.request(auth, m)).await.map(|_| None)?,
            Call::List(m) => c.list_games(self.request(auth, m)).await.map(|_| None)?,
            Call::Get(m) => c.get_game(self.request(auth, m)).await.map(|_| None)?,
            Call::Join(m) => c.join_game(self.request(auth, m)).await.map(|_| None)?,
            Call::Leave(m) => c.leave_game(self.request(auth, m)).await.map(|_| None)?,
            Call::View(m) => c.get_view(self.request(auth, m)).await.map(|_| None)?,
            Call::Submit(m) => c.submit_action(self.request(auth, m)).await.map(|_| None)?,
            Call::Check(m) => {
                let verdict = c.check_action(self.request(auth, m)).await?.into_inner();
                (!verdict.legal).then_some(verdict.reason)
            }
            Call::Watch(m) => c.watch_game(self.request(auth, m)).await.map(|_| None)?,
            Call::Scores(m) => c.get_scores(self.request(auth, m)).await.map(|_| None)?,
            Call::Export(m) => c.export_game(self.request(auth, m)).await.map(|_| None)?,
            Call::Describe(m) => c
                .describe_rules(self.request(auth, m))
                .await
                .map(|_| None)?,
            Call::Cancel(m) => c.cancel_game(self.request(auth, m)).await.map(|_| None)?,
        })
    }

    /// Runs the rows; returns the failures, one line each, so that one run shows them all.
    async fn run(&mut self, rows: Vec<Row>) -> Vec<String> {
        let before = self.snapshot().await;
        let mut failures = Vec::new();
        for r in rows {
            let got = match self.send(&r.auth, r.call).await {
                Ok(Some(illegal)) => format!("Illegal({illegal})"),
                Ok(None) => "accepted".to_string(),
                Err(s) if reason(&s).is_empty() => format!("Transport({:?})", s.code()),
                Err(s) => format!("Error({:?}, {})", s.code(), reason(&s)),
            };
            let want = match &r.expect {
                Expect::Error(code, why) => format!("Error({code:?}, {why})"),
                Expect::Illegal(why) => format!("Illegal({why})"),
            };
            if got != want {
                failures.push(format!("{}: got {got}, want {want}", r.what));
            }
            if self.snapshot().await != before {
                failures.push(format!("{}: the request changed a game", r.what));
                // Later rows would be judged against a changed world: stop here.
                break;
            }
        }
        failures
    }
}

/// A discard of a card as given, valid or not.
fn discard(card: v1::Card) -> v1::Action {
    action(Kind::Discard(v1::DiscardAction { card: Some(card) }))
}

/// A card of raw wire values, valid or not.
fn card(rank: i32, suit: i32) -> v1::Card {
    v1::Card { rank, suit }
}

/// A string of `n` bytes.
fn long(n: usize) -> String {
    "x".repeat(n)
}

/// Game ids that name no game, each with what it is.
fn bad_game_ids() -> Vec<(&'static str, String, Expect)> {
    vec![
        ("a missing game id", String::new(), invalid("MISSING_FIELD")),
        ("an unknown game id", "0000000000000000".into(), NOT_FOUND),
        (
            "a game id with a control character",
            "\u{0}\u{7}".into(),
            NOT_FOUND,
        ),
        ("a game id of 64 KiB", long(64 << 10), NOT_FOUND),
    ]
}

/// Malformed `authorization` values.
fn bad_headers() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("no scheme", b"0123456789abcdef0123456789abcdef".to_vec()),
        ("the Basic scheme", b"Basic dXNlcjpwYXNz".to_vec()),
        ("an empty token", b"Bearer    ".to_vec()),
        (
            "a token of 129 characters",
            format!("Bearer {}", "a".repeat(129)).into_bytes(),
        ),
        ("a token that is not text", b"Bearer \xff\xfe".to_vec()),
    ]
}

/// Rule sets the server must refuse (CreateGame and DescribeRules share them), and a rule set
/// that puts the request over the size limit.
fn bad_rule_sets() -> Vec<(&'static str, Option<v1::RuleSet>, Expect)> {
    let with = |options: &[(&str, &str)]| Some(rules(v1::Preset::Official, 2, options));
    let raw = |preset: i32, players: u32| {
        Some(v1::RuleSet {
            preset,
            player_count: players,
            options: Default::default(),
        })
    };
    vec![
        ("a negative preset", raw(-1, 2), invalid("INVALID_ENUM")),
        (
            "the preset after the last",
            raw(5, 2),
            invalid("INVALID_ENUM"),
        ),
        (
            "i32::MIN as preset",
            raw(i32::MIN, 2),
            invalid("INVALID_ENUM"),
        ),
        (
            "u32::MAX players",
            raw(1, u32::MAX),
            invalid("BAD_PLAYER_COUNT"),
        ),
        ("256 players", raw(1, 256), invalid("BAD_PLAYER_COUNT")),
        (
            "an option of no name",
            with(&[("", "1")]),
            invalid("UNKNOWN_OPTION"),
        ),
        (
            "an option name of 1 KiB",
            with(&[(&long(1024), "1")]),
            invalid("UNKNOWN_OPTION"),
        ),
        (
            "an option name in other case",
            with(&[("Target_Score", "5000")]),
            invalid("UNKNOWN_OPTION"),
        ),
        (
            "an empty option value",
            with(&[("target_score", "")]),
            invalid("BAD_OPTION_VALUE"),
        ),
        (
            "a value of 1 KiB",
            with(&[("target_score", &long(1024))]),
            invalid("BAD_OPTION_VALUE"),
        ),
        (
            "a target beyond i32",
            with(&[("target_score", "99999999999")]),
            invalid("BAD_OPTION_VALUE"),
        ),
        (
            "a target of zero",
            with(&[("target_score", "0")]),
            invalid("OPTION_CONFLICT"),
        ),
        (
            "a negative target",
            with(&[("target_score", "-500")]),
            invalid("OPTION_CONFLICT"),
        ),
        (
            "a negative joker count",
            with(&[("jokers", "-1")]),
            invalid("BAD_OPTION_VALUE"),
        ),
        (
            "255 decks",
            with(&[("decks", "255")]),
            invalid("OPTION_CONFLICT"),
        ),
        (
            "zero decks",
            with(&[("decks", "0")]),
            invalid("OPTION_CONFLICT"),
        ),
        (
            "a hand of 255 cards",
            with(&[("hand_size", "255")]),
            invalid("OPTION_CONFLICT"),
        ),
        (
            "a boolean that is not one",
            with(&[("wild_canastas", "maybe")]),
            invalid("BAD_OPTION_VALUE"),
        ),
        (
            "an option value over the size limit",
            with(&[("target_score", &long(MAX_MESSAGE_BYTES))]),
            TOO_LARGE,
        ),
    ]
}

fn create_rows() -> Vec<Row> {
    let base = || v1::CreateGameRequest {
        rules: Some(rules(v1::Preset::Official, 2, &[])),
        seed: Some(1),
        ..Default::default()
    };
    let with = |f: &dyn Fn(&mut v1::CreateGameRequest)| {
        let mut r = base();
        f(&mut r);
        Call::Create(r)
    };
    let mut rows: Vec<Row> = bad_rule_sets()
        .into_iter()
        .map(|(what, rules, expect)| {
            row(
                format!("CreateGame: {what}"),
                Auth::Nobody,
                with(&|r| r.rules = rules.clone()),
                expect,
            )
        })
        .collect();
    let pack = {
        let mut deck = Vec::new();
        for _ in 0..2 {
            deck.extend(wire_cards("Jk Jk"));
            for rank in 2..=14 {
                for suit in 1..=4 {
                    deck.push(card(rank, suit));
                }
            }
        }
        v1::CardOrder { cards: deck }
    };
    let mut bad_suit = pack.clone();
    bad_suit.cards[3].suit = -1;
    let mut unknown_rank = pack.clone();
    unknown_rank.cards[7].rank = i32::MAX;
    let mut rows_more = vec![
        row(
            "CreateGame: an empty card order",
            Auth::Nobody,
            with(&|r| r.card_orders = vec![v1::CardOrder { cards: vec![] }]),
            invalid("BAD_CARD_ORDER"),
        ),
        row(
            "CreateGame: a card of suit -1 in a card order",
            Auth::Nobody,
            with(&|r| r.card_orders = vec![bad_suit.clone()]),
            invalid("INVALID_CARD"),
        ),
        row(
            "CreateGame: a card of rank i32::MAX in a card order",
            Auth::Nobody,
            with(&|r| r.card_orders = vec![unknown_rank.clone()]),
            invalid("INVALID_CARD"),
        ),
        row(
            "CreateGame: a pack twice in one card order",
            Auth::Nobody,
            with(&|r| {
                let mut twice = pack.clone();
                twice.cards.extend(pack.cards.clone());
                r.card_orders = vec![twice];
            }),
            invalid("BAD_CARD_ORDER"),
        ),
        row(
            "CreateGame: first dealer 256 (not 0 in a byte)",
            Auth::Nobody,
            with(&|r| r.first_dealer = Some(256)),
            invalid("BAD_FIRST_DEALER"),
        ),
        row(
            "CreateGame: first dealer u32::MAX",
            Auth::Nobody,
            with(&|r| r.first_dealer = Some(u32::MAX)),
            invalid("BAD_FIRST_DEALER"),
        ),
        row(
            "CreateGame: a start score of i32::MAX",
            Auth::Nobody,
            with(&|r| r.start_scores = vec![i32::MAX, 0]),
            invalid("BAD_START_SCORES"),
        ),
        row(
            "CreateGame: a start score of i32::MIN",
            Auth::Nobody,
            with(&|r| r.start_scores = vec![0, i32::MIN]),
            invalid("BAD_START_SCORES"),
        ),
        row(
            "CreateGame: 10 000 start scores",
            Auth::Nobody,
            with(&|r| r.start_scores = vec![0; 10_000]),
            invalid("BAD_START_SCORES"),
        ),
        row(
            "CreateGame: a negative timeout policy",
            Auth::Nobody,
            with(&|r| {
                r.time_control = Some(v1::TimeControl {
                    move_budget_ms: 1000,
                    policy: -1,
                })
            }),
            invalid("INVALID_ENUM"),
        ),
        row(
            "CreateGame: an unknown timeout policy without a budget",
            Auth::Nobody,
            with(&|r| {
                r.time_control = Some(v1::TimeControl {
                    move_budget_ms: 0,
                    policy: 3,
                })
            }),
            invalid("INVALID_ENUM"),
        ),
        row(
            "CreateGame: card orders over the size limit",
            Auth::Nobody,
            with(&|r| r.card_orders = vec![pack.clone(); MAX_MESSAGE_BYTES / 400]),
            TOO_LARGE,
        ),
        row(
            "CreateGame: a malformed token",
            Auth::Raw(b"Basic x".to_vec()),
            Call::Create(base()),
            MALFORMED_TOKEN,
        ),
    ];
    rows.append(&mut rows_more);
    rows
}

fn describe_rows() -> Vec<Row> {
    let mut rows: Vec<Row> = bad_rule_sets()
        .into_iter()
        .map(|(what, rules, expect)| {
            row(
                format!("DescribeRules: {what}"),
                Auth::Nobody,
                Call::Describe(v1::DescribeRulesRequest { rules }),
                expect,
            )
        })
        .collect();
    rows.push(row(
        "DescribeRules: a malformed token",
        Auth::Raw(b"Bearer".to_vec()),
        Call::Describe(v1::DescribeRulesRequest {
            rules: Some(rules(v1::Preset::Official, 2, &[])),
        }),
        MALFORMED_TOKEN,
    ));
    rows
}

fn list_rows() -> Vec<Row> {
    let list = |page_token: String, status: i32| {
        Call::List(v1::ListGamesRequest {
            page_size: 10,
            page_token,
            status,
        })
    };
    vec![
        row(
            "ListGames: a negative status",
            Auth::Nobody,
            list(String::new(), -1),
            invalid("INVALID_ENUM"),
        ),
        row(
            "ListGames: the status after the last",
            Auth::Nobody,
            list(String::new(), 4),
            invalid("INVALID_ENUM"),
        ),
        row(
            "ListGames: a negative page token",
            Auth::Nobody,
            list("-1".into(), 0),
            invalid("BAD_PAGE_TOKEN"),
        ),
        row(
            "ListGames: a page token beyond usize",
            Auth::Nobody,
            list("99999999999999999999999".into(), 0),
            invalid("BAD_PAGE_TOKEN"),
        ),
        row(
            "ListGames: a page token of 64 KiB",
            Auth::Nobody,
            list(long(64 << 10), 0),
            invalid("BAD_PAGE_TOKEN"),
        ),
        row(
            "ListGames: a page token over the size limit",
            Auth::Nobody,
            list(long(MAX_MESSAGE_BYTES), 0),
            TOO_LARGE,
        ),
        row(
            "ListGames: a malformed token",
            Auth::Raw(b"Bearer ".to_vec()),
            list(String::new(), 0),
            MALFORMED_TOKEN,
        ),
    ]
}

/// Rows for the RPCs whose request is a game id only, or a game id and flags.
fn game_id_rows(w: &World) -> Vec<Row> {
    let mut rows = Vec::new();
    type Make = fn(String) -> Call;
    let rpcs: [(&str, Make, Auth); 8] = [
        (
            "GetGame",
            |id| Call::Get(v1::GetGameRequest { game_id: id }),
            Auth::Nobody,
        ),
        (
            "GetView",
            |id| {
                Call::View(v1::GetViewRequest {
                    game_id: id,
                    include_actions: true,
                })
            },
            Auth::Nobody,
        ),
        (
            "WatchGame",
            |id| {
                Call::Watch(v1::WatchGameRequest {
                    game_id: id,
                    after_seq: 0,
                    include_actions: true,
                    include_view: false,
                })
            },
            Auth::Nobody,
        ),
        (
            "GetScores",
            |id| Call::Scores(v1::GetScoresRequest { game_id: id }),
            Auth::Nobody,
        ),
        (
            "ExportGame",
            |id| Call::Export(v1::ExportGameRequest { game_id: id }),
            Auth::Nobody,
        ),
        (
            "LeaveGame",
            |id| Call::Leave(v1::LeaveGameRequest { game_id: id }),
            Auth::Seat(1),
        ),
        (
            "JoinGame",
            |id| {
                Call::Join(v1::JoinGameRequest {
                    game_id: id,
                    seat: None,
                    display_name: "Ann".into(),
                })
            },
            Auth::Nobody,
        ),
        (
            "CancelGame",
            |id| Call::Cancel(v1::CancelGameRequest { game_id: id }),
            Auth::Seat(0),
        ),
    ];
    for (name, make, auth) in rpcs {
        for (what, id, expect) in bad_game_ids() {
            rows.push(row(
                format!("{name}: {what}"),
                auth.clone(),
                make(id),
                expect,
            ));
        }
        rows.push(row(
            format!("{name}: a game id over the size limit"),
            auth.clone(),
            make(long(MAX_MESSAGE_BYTES)),
            TOO_LARGE,
        ));
        for (what, header) in bad_headers() {
            rows.push(row(
                format!("{name}: a malformed token ({what})"),
                Auth::Raw(header),
                make(w.id.clone()),
                MALFORMED_TOKEN,
            ));
        }
        // A seat's call for the game in play, with the token of another game.
        if !matches!(
            name,
            "GetGame" | "GetScores" | "ExportGame" | "JoinGame" | "CancelGame"
        ) {
            rows.push(row(
                format!("{name}: the token of another game"),
                Auth::OtherGame,
                make(w.id.clone()),
                NOT_A_SEAT,
            ));
        }
    }
    rows.push(row(
        "LeaveGame: no token",
        Auth::Nobody,
        Call::Leave(v1::LeaveGameRequest {
            game_id: w.id.clone(),
        }),
        MISSING_TOKEN,
    ));
    // Only the creator token cancels a game: not a seat's, not another game's, not none.
    let cancel = |id: &str| {
        Call::Cancel(v1::CancelGameRequest {
            game_id: id.to_string(),
        })
    };
    let not_creator = Expect::Error(Code::PermissionDenied, "NOT_GAME_CREATOR");
    for (what, auth, id) in [
        ("a seat's token", Auth::Seat(0), &w.id),
        ("the token of another game", Auth::OtherGame, &w.waiting),
        (
            "a made-up token",
            Auth::Raw(b"Bearer 0123".to_vec()),
            &w.waiting,
        ),
    ] {
        rows.push(row(
            format!("CancelGame: {what}"),
            auth,
            cancel(id),
            not_creator.clone(),
        ));
    }
    rows.push(row(
        "CancelGame: no token",
        Auth::Nobody,
        cancel(&w.waiting),
        MISSING_TOKEN,
    ));
    rows.push(row(
        "ExportGame: a game in play",
        Auth::Nobody,
        Call::Export(v1::ExportGameRequest {
            game_id: w.id.clone(),
        }),
        rule("GAME_NOT_FINISHED"),
    ));
    let watch = |after_seq| {
        Call::Watch(v1::WatchGameRequest {
            game_id: w.id.clone(),
            after_seq,
            include_actions: false,
            include_view: false,
        })
    };
    rows.push(row(
        "WatchGame: after_seq u64::MAX",
        Auth::Seat(0),
        watch(u64::MAX),
        invalid("BAD_SEQ"),
    ));
    rows.push(row(
        "WatchGame: after_seq 2^32",
        Auth::Nobody,
        watch(1 << 32),
        invalid("BAD_SEQ"),
    ));
    rows
}

fn join_rows(w: &World) -> Vec<Row> {
    let join = |seat: Option<u32>, name: &str| {
        Call::Join(v1::JoinGameRequest {
            game_id: w.waiting.clone(),
            seat,
            display_name: name.to_string(),
        })
    };
    vec![
        row(
            "JoinGame: seat u32::MAX",
            Auth::Nobody,
            join(Some(u32::MAX), "Ann"),
            invalid("INVALID_SEAT"),
        ),
        row(
            "JoinGame: seat 256 (0 in a byte)",
            Auth::Nobody,
            join(Some(256), "Ann"),
            invalid("INVALID_SEAT"),
        ),
        row(
            "JoinGame: no display name",
            Auth::Nobody,
            join(None, ""),
            invalid("MISSING_FIELD"),
        ),
        row(
            "JoinGame: seat 2 of 2 and no display name",
            Auth::Nobody,
            join(Some(2), ""),
            invalid("INVALID_SEAT"),
        ),
        row(
            "JoinGame: a name of spaces only",
            Auth::Nobody,
            join(None, "    "),
            invalid("BAD_DISPLAY_NAME"),
        ),
        row(
            "JoinGame: a name of 41 characters",
            Auth::Nobody,
            join(None, &"é".repeat(41)),
            invalid("BAD_DISPLAY_NAME"),
        ),
        row(
            "JoinGame: a name of 64 KiB",
            Auth::Nobody,
            join(None, &long(64 << 10)),
            invalid("BAD_DISPLAY_NAME"),
        ),
        row(
            "JoinGame: a name with a NUL",
            Auth::Nobody,
            join(None, "A\u{0}B"),
            invalid("BAD_DISPLAY_NAME"),
        ),
        row(
            "JoinGame: a name with an escape",
            Auth::Nobody,
            join(None, "A\u{1b}[2J"),
            invalid("BAD_DISPLAY_NAME"),
        ),
        // Invisible and direction-changing characters make one name look like another.
        row(
            "JoinGame: a name with a right-to-left override",
            Auth::Nobody,
            join(None, "x\u{202E}nimda"),
            invalid("BAD_DISPLAY_NAME"),
        ),
        row(
            "JoinGame: a name with a direction isolate",
            Auth::Nobody,
            join(None, "Ann\u{2067}B"),
            invalid("BAD_DISPLAY_NAME"),
        ),
        row(
            "JoinGame: a name with a right-to-left mark",
            Auth::Nobody,
            join(None, "Ann\u{200F}"),
            invalid("BAD_DISPLAY_NAME"),
        ),
        row(
            "JoinGame: a name with a zero-width space",
            Auth::Nobody,
            join(None, "An\u{200B}n"),
            invalid("BAD_DISPLAY_NAME"),
        ),
        row(
            "JoinGame: a name with a byte-order mark",
            Auth::Nobody,
            join(None, "\u{FEFF}Ann"),
            invalid("BAD_DISPLAY_NAME"),
        ),
        row(
            "JoinGame: a name with a soft hyphen",
            Auth::Nobody,
            join(None, "An\u{AD}n"),
            invalid("BAD_DISPLAY_NAME"),
        ),
        row(
            "JoinGame: a name with a variation selector",
            Auth::Nobody,
            join(None, "Ann\u{FE0F}"),
            invalid("BAD_DISPLAY_NAME"),
        ),
        row(
            "JoinGame: a name with a tag character",
            Auth::Nobody,
            join(None, "Ann\u{E0041}"),
            invalid("BAD_DISPLAY_NAME"),
        ),
        row(
            "JoinGame: a name of a Hangul filler",
            Auth::Nobody,
            join(None, "\u{3164}"),
            invalid("BAD_DISPLAY_NAME"),
        ),
        row(
            "JoinGame: a name with a private-use character",
            Auth::Nobody,
            join(None, "Ann\u{E000}"),
            invalid("BAD_DISPLAY_NAME"),
        ),
        row(
            "JoinGame: a name with a line separator",
            Auth::Nobody,
            join(None, "Ann\u{2028}B"),
            invalid("BAD_DISPLAY_NAME"),
        ),
        row(
            "JoinGame: a name over the size limit",
            Auth::Nobody,
            join(None, &long(MAX_MESSAGE_BYTES)),
            TOO_LARGE,
        ),
        row(
            "JoinGame: a seat of the game in play",
            Auth::Nobody,
            Call::Join(v1::JoinGameRequest {
                game_id: w.id.clone(),
                seat: Some(1),
                display_name: "Ann".into(),
            }),
            rule("SEAT_TAKEN"),
        ),
        row(
            "JoinGame: any seat of the game in play",
            Auth::Nobody,
            Call::Join(v1::JoinGameRequest {
                game_id: w.id.clone(),
                seat: None,
                display_name: "Ann".into(),
            }),
            rule("GAME_FULL"),
        ),
    ]
}

/// Bad actions of seat 0 in its play phase (it drew the fours of spades and hearts; its side
/// has no meld and needs 50 points to make its first), each with the answer SubmitAction
/// gives; CheckAction gives the same, or its verdict for a rule.
fn action_cases() -> Vec<(&'static str, Option<v1::Action>, Expect)> {
    let spec = |index: Option<u32>, text: &str| v1::MeldSpec {
        meld_index: index,
        cards: wire_cards(text),
    };
    let ten_thousand = vec![new_meld("4S 4H Jk"); 10_000];
    vec![
        ("no action", None, invalid("MISSING_FIELD")),
        // The engine counts at most 15 of a card: a 16th was dropped, and another action read.
        (
            "a meld of 16 fours of spades",
            Some(meld(vec![v1::MeldSpec {
                meld_index: None,
                cards: wire_cards(&["4S"; 16].join(" ")),
            }])),
            invalid("TOO_MANY_CARDS"),
        ),
        (
            "a discard of a card not held",
            Some(discard(wire_cards("8D")[0])),
            rule("CARD_NOT_HELD"),
        ),
        (
            "a meld of cards not held",
            Some(meld(vec![new_meld("8D 8C 8H")])),
            rule("CARD_NOT_HELD"),
        ),
        (
            "a meld with a card held once, twice",
            Some(meld(vec![new_meld("KS KS KH KD")])),
            rule("CARD_NOT_HELD"),
        ),
        (
            "the same cards in two melds",
            Some(meld(vec![new_meld("KS KH KD"), new_meld("KS KH KD")])),
            rule("CARD_NOT_HELD"),
        ),
        (
            "a meld of mixed ranks",
            Some(meld(vec![new_meld("KS KH QS")])),
            rule("MIXED_RANKS"),
        ),
        ("an empty batch", Some(meld(vec![])), rule("EMPTY_MELD")),
        (
            "a meld of no cards",
            Some(meld(vec![new_meld("")])),
            rule("EMPTY_MELD"),
        ),
        (
            "an addition to a meld the side does not have",
            Some(meld(vec![spec(Some(0), "KS")])),
            rule("NO_SUCH_MELD"),
        ),
        (
            "an addition to meld 255",
            Some(meld(vec![spec(Some(255), "KS")])),
            rule("NO_SUCH_MELD"),
        ),
        (
            "an addition to meld 256",
            Some(meld(vec![spec(Some(256), "KS")])),
            invalid("INVALID_INDEX"),
        ),
        (
            "an addition to meld u32::MAX",
            Some(meld(vec![spec(Some(u32::MAX), "KS")])),
            invalid("INVALID_INDEX"),
        ),
        (
            "a batch of 256 melds",
            Some(meld(vec![new_meld("KS KH KD"); 256])),
            invalid("TOO_MANY_CARDS"),
        ),
        (
            "a batch of 10 000 melds",
            Some(meld(ten_thousand)),
            invalid("TOO_MANY_CARDS"),
        ),
        (
            "a meld below the minimum",
            Some(meld(vec![new_meld("KS KH KD")])),
            rule("BELOW_MINIMUM"),
        ),
        (
            "a card of rank -1",
            Some(discard(card(-1, 1))),
            invalid("INVALID_CARD"),
        ),
        (
            "a card of rank i32::MAX",
            Some(discard(card(i32::MAX, 1))),
            invalid("INVALID_CARD"),
        ),
        (
            "a card of suit 5",
            Some(discard(card(13, 5))),
            invalid("INVALID_CARD"),
        ),
        (
            "a card of suit i32::MIN",
            Some(discard(card(13, i32::MIN))),
            invalid("INVALID_CARD"),
        ),
        (
            "a three of no suit",
            Some(discard(card(3, 0))),
            invalid("INVALID_CARD"),
        ),
        (
            "a going out discarding a card of no rank",
            Some(action(Kind::GoOut(v1::GoOutAction {
                melds: vec![],
                discard: Some(card(0, 0)),
            }))),
            invalid("INVALID_CARD"),
        ),
        (
            "a pile take with a card of no rank",
            Some(action(Kind::TakePile(v1::TakePileAction {
                meld_index: None,
                cards: vec![card(0, 2)],
                melds: vec![],
            }))),
            invalid("INVALID_CARD"),
        ),
        (
            "a pile take after the draw",
            Some(action(Kind::TakePile(v1::TakePileAction {
                meld_index: None,
                cards: wire_cards("7H 7S"),
                melds: vec![],
            }))),
            rule("WRONG_PHASE"),
        ),
        (
            "a second draw",
            Some(action(Kind::DrawStock(v1::DrawStockAction {}))),
            rule("WRONG_PHASE"),
        ),
        (
            "an answer nobody asked for",
            Some(action(Kind::AnswerPartner(v1::AnswerPartnerAction {
                yes: true,
            }))),
            rule("WRONG_PHASE"),
        ),
        (
            "a question without a partner",
            Some(action(Kind::AskPartner(v1::AskPartnerAction {}))),
            rule("NO_PARTNER"),
        ),
        (
            "a going out with cards left",
            Some(action(Kind::GoOut(v1::GoOutAction {
                melds: vec![],
                discard: Some(wire_cards("9C")[0]),
            }))),
            rule("CARDS_LEFT"),
        ),
    ]
}

fn action_rows(w: &World, seq: u64) -> Vec<Row> {
    let mut rows = Vec::new();
    let submit =
        |game_id: &str, expected_seq: u64, request_id: &str, action: Option<v1::Action>| {
            Call::Submit(v1::SubmitActionRequest {
                game_id: game_id.to_string(),
                expected_seq,
                request_id: request_id.to_string(),
                action,
            })
        };
    let check = |game_id: &str, action: Option<v1::Action>| {
        Call::Check(v1::CheckActionRequest {
            game_id: game_id.to_string(),
            action,
        })
    };
    for (what, action, expect) in action_cases() {
        let verdict = match expect {
            Expect::Error(Code::FailedPrecondition, why) => Expect::Illegal(why),
            ref e => e.clone(),
        };
        rows.push(row(
            format!("SubmitAction: {what}"),
            Auth::Seat(0),
            submit(&w.id, seq, "bad", action.clone()),
            expect,
        ));
        rows.push(row(
            format!("CheckAction: {what}"),
            Auth::Seat(0),
            check(&w.id, action),
            verdict,
        ));
    }
    let discard = Some(discard(wire_cards("9C")[0]));
    rows.push(row(
        "SubmitAction: the seat not to act",
        Auth::Seat(1),
        submit(&w.id, seq, "r", discard.clone()),
        rule("NOT_YOUR_TURN"),
    ));
    rows.push(row(
        "CheckAction: the seat not to act",
        Auth::Seat(1),
        check(&w.id, discard.clone()),
        Expect::Illegal("NOT_YOUR_TURN"),
    ));
    for (what, expected_seq) in [
        ("0", 0),
        ("one behind", seq - 1),
        ("one ahead", seq + 1),
        ("u64::MAX", u64::MAX),
    ] {
        rows.push(row(
            format!("SubmitAction: expected_seq {what}"),
            Auth::Seat(0),
            submit(&w.id, expected_seq, "r", discard.clone()),
            Expect::Error(Code::Aborted, "STALE_SEQ"),
        ));
    }
    // Seat 0 drew with the request id "draw": the same id for another action is refused (a
    // retry must repeat its action).
    rows.push(row(
        "SubmitAction: the request id of the applied draw, for a discard",
        Auth::Seat(0),
        submit(&w.id, seq, "draw", discard.clone()),
        invalid("REQUEST_ID_REUSED"),
    ));
    rows.push(row(
        "SubmitAction: the request id of the applied draw, for a malformed action",
        Auth::Seat(0),
        submit(
            &w.id,
            seq,
            "draw",
            Some(action(Kind::Discard(v1::DiscardAction { card: None }))),
        ),
        invalid("REQUEST_ID_REUSED"),
    ));
    for (what, id) in [
        ("empty", String::new()),
        ("of 65 characters", "é".repeat(65)),
        ("of 64 KiB", long(64 << 10)),
    ] {
        rows.push(row(
            format!("SubmitAction: a request id {what}"),
            Auth::Seat(0),
            submit(&w.id, seq, &id, discard.clone()),
            invalid("BAD_REQUEST_ID"),
        ));
    }
    for (what, id, expect) in bad_game_ids() {
        rows.push(row(
            format!("SubmitAction: {what}"),
            Auth::Seat(0),
            submit(&id, seq, "r", discard.clone()),
            expect.clone(),
        ));
        rows.push(row(
            format!("CheckAction: {what}"),
            Auth::Seat(0),
            check(&id, discard.clone()),
            expect,
        ));
    }
    for (what, auth, expect) in [
        ("no token", Auth::Nobody, MISSING_TOKEN),
        ("the token of another game", Auth::OtherGame, NOT_A_SEAT),
        (
            "a well-formed token of no seat",
            Auth::Raw(format!("Bearer {}", "0".repeat(32)).into_bytes()),
            NOT_A_SEAT,
        ),
        (
            "a token of 128 characters",
            Auth::Raw(format!("Bearer {}", "f".repeat(128)).into_bytes()),
            NOT_A_SEAT,
        ),
    ] {
        rows.push(row(
            format!("SubmitAction: {what}"),
            auth.clone(),
            submit(&w.id, seq, "r", discard.clone()),
            expect.clone(),
        ));
        rows.push(row(
            format!("CheckAction: {what}"),
            auth,
            check(&w.id, discard.clone()),
            expect,
        ));
    }
    for (what, header) in bad_headers() {
        rows.push(row(
            format!("SubmitAction: a malformed token ({what})"),
            Auth::Raw(header.clone()),
            submit(&w.id, seq, "r", discard.clone()),
            MALFORMED_TOKEN,
        ));
        rows.push(row(
            format!("CheckAction: a malformed token ({what})"),
            Auth::Raw(header),
            check(&w.id, discard.clone()),
            MALFORMED_TOKEN,
        ));
    }
    // Over the server's limit: refused whole, before anything else is looked at.
    let huge_meld = Some(meld(vec![new_meld("4S 4H Jk"); MAX_MESSAGE_BYTES / 8]));
    rows.push(row(
        "SubmitAction: a message over the size limit",
        Auth::Seat(0),
        submit(&w.id, seq, "r", huge_meld.clone()),
        TOO_LARGE,
    ));
    rows.push(row(
        "CheckAction: a message over the size limit",
        Auth::Seat(0),
        check(&w.id, huge_meld),
        TOO_LARGE,
    ));
    rows.push(row(
        "SubmitAction: a request id over the size limit",
        Auth::Nobody,
        submit(&w.id, seq, &long(MAX_MESSAGE_BYTES), discard.clone()),
        TOO_LARGE,
    ));
    rows
}

async fn run_table(rows: impl FnOnce(&World, u64) -> Vec<Row>) {
    let mut w = World::new().await;
    let seq = w.snapshot().await.views[0]
        .view
        .as_ref()
        .expect("a view")
        .seq;
    let rows = rows(&w, seq);
    let count = rows.len();
    let failures = w.run(rows).await;
    assert!(
        failures.is_empty(),
        "{} of {count} rows failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    w.server.stop().await;
}

#[tokio::test]
async fn create_game_and_describe_rules_refuse_every_bad_field() {
    run_table(|_, _| {
        let mut rows = create_rows();
        rows.extend(describe_rows());
        rows
    })
    .await;
}

#[tokio::test]
async fn list_join_and_game_id_rpcs_refuse_every_bad_field() {
    run_table(|w, _| {
        let mut rows = list_rows();
        rows.extend(join_rows(w));
        rows.extend(game_id_rows(w));
        rows
    })
    .await;
}

#[tokio::test]
async fn submit_and_check_action_refuse_every_bad_field_and_action() {
    run_table(action_rows).await;
}

/// A message far beyond the limit (65 MiB; the limit is 1 MiB) is refused by the transport from
/// its frame header, before its body is read, with the service's own code and reason.
#[tokio::test]
async fn a_huge_message_is_refused_from_its_header() {
    run_table(|w, seq| {
        vec![row(
            "SubmitAction: a request id of 65 MiB",
            Auth::Seat(0),
            Call::Submit(v1::SubmitActionRequest {
                game_id: w.id.clone(),
                expected_seq: seq,
                request_id: long(65 << 20),
                action: None,
            }),
            TOO_LARGE,
        )]
    })
    .await;
}

// ----- client strings echoed in errors -----

/// A status's message and details (which hold it again) stay small whatever the size of the string it quotes (a
/// client that limits trailers, 16 KiB in grpc-core, would see a transport error instead).
fn assert_short(status: &Status, reason_wanted: &str, what: &str) {
    assert_eq!(status.code(), Code::InvalidArgument, "{what}: {status:?}");
    assert_eq!(reason(status), reason_wanted, "{what}: {status:?}");
    // The unknown option's message lists every option's name (some 700 characters).
    assert!(
        status.message().len() < 1024,
        "{what}: a message of {} bytes",
        status.message().len()
    );
    assert!(
        status.details().len() < 4096,
        "{what}: details of {} bytes",
        status.details().len()
    );
    assert!(
        !status.message().contains(&"x".repeat(65)),
        "{what}: more than 64 characters quoted"
    );
}

#[tokio::test]
async fn option_names_and_values_are_quoted_cut_short() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    for size in [5 << 10, 100 << 10] {
        let key = long(size);
        let value = long(size);
        for (what, options, want) in [
            ("name", [(key.as_str(), "1")], "UNKNOWN_OPTION"),
            (
                "value",
                [("target_score", value.as_str())],
                "BAD_OPTION_VALUE",
            ),
            (
                "flag",
                [("wild_canastas", value.as_str())],
                "BAD_OPTION_VALUE",
            ),
            (
                "Rasche letter",
                [("rasche_b", value.as_str())],
                "BAD_OPTION_VALUE",
            ),
        ] {
            let rule_set = rules(v1::Preset::Official, 2, &options);
            let created = client
                .create_game(v1::CreateGameRequest {
                    rules: Some(rule_set.clone()),
                    seed: Some(1),
                    ..Default::default()
                })
                .await
                .expect_err("refused");
            assert_short(
                &created,
                want,
                &format!("CreateGame, an option {what} of {size}"),
            );
            let described = client
                .describe_rules(v1::DescribeRulesRequest {
                    rules: Some(rule_set),
                })
                .await
                .expect_err("refused");
            assert_short(
                &described,
                want,
                &format!("DescribeRules, an option {what} of {size}"),
            );
        }
    }
    server.stop().await;
}

// A Play call's `submit` for another game quotes the game id it names.
#[tokio::test]
async fn a_play_call_quotes_another_game_s_id_cut_short() {
    use canasta_tests::play::{PlayCall, watch};
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let game = create(&mut client, 2, 5).await;
    let tokens = join_all(&mut client, &game).await;
    let mut call = PlayCall::open(&mut client, Some(&tokens[0]), watch(&game.game_id))
        .await
        .expect("the call opens");
    call.send(v1::PlayRequest {
        kind: Some(v1::play_request::Kind::Submit(v1::SubmitActionRequest {
            game_id: long(100 << 10),
            expected_seq: 0,
            request_id: "r".into(),
            action: Some(action(Kind::DrawStock(v1::DrawStockAction {}))),
        })),
    })
    .await;
    let error = call.result().await.error.expect("refused");
    assert_eq!(error.reason, "WRONG_GAME");
    assert!(error.message.len() < 300, "{} bytes", error.message.len());
    drop(call);
    server.stop().await;
}

// ----- bytes that are not a message -----

/// A codec that sends its bytes as they are, and reads back the bytes of each answer.
#[derive(Clone, Copy, Default)]
struct Raw;

impl tonic::codec::Codec for Raw {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = Raw;
    type Decoder = Raw;
    fn encoder(&mut self) -> Raw {
        Raw
    }
    fn decoder(&mut self) -> Raw {
        Raw
    }
}

impl tonic::codec::Encoder for Raw {
    type Item = Vec<u8>;
    type Error = Status;
    fn encode(
        &mut self,
        item: Vec<u8>,
        buf: &mut tonic::codec::EncodeBuf<'_>,
    ) -> Result<(), Status> {
        use prost::bytes::BufMut;
        buf.put_slice(&item);
        Ok(())
    }
}

impl tonic::codec::Decoder for Raw {
    type Item = Vec<u8>;
    type Error = Status;
    fn decode(&mut self, buf: &mut tonic::codec::DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
        use prost::bytes::Buf;
        Ok(Some(buf.copy_to_bytes(buf.remaining()).to_vec()))
    }
}

/// Bytes that no protobuf library reads as a request whose field 1 is a string and field 2 a
/// number (JoinGame's and SubmitAction's), each with what is wrong.
fn unreadable() -> Vec<(&'static str, Vec<u8>)> {
    // An unknown field 15 opening a group, in a group, … 200 deep (prost stops at 100).
    let mut deep = vec![0x7b; 200];
    deep.extend([0x7c; 200]);
    vec![
        (
            "invalid UTF-8 in a string field",
            vec![0x0a, 0x02, 0xff, 0xfe],
        ),
        ("a truncated varint", vec![0x10, 0xff]),
        (
            "a varint of eleven bytes",
            [vec![0x10], vec![0xff; 10], vec![0x01]].concat(),
        ),
        ("a number where a string is", vec![0x08, 0x01]),
        ("a length past the end", vec![0x0a, 0x05, 0x01]),
        ("a field number 0", vec![0x02, 0x00]),
        ("groups nested 200 deep", deep),
    ]
}

fn assert_malformed(status: &Status, what: &str) {
    assert_eq!(status.code(), Code::InvalidArgument, "{what}: {status:?}");
    assert_eq!(reason(status), "MALFORMED_MESSAGE", "{what}: {status:?}");
    assert!(
        status.message().contains("protobuf"),
        "{what}: the message says what is wrong: {status:?}"
    );
}

#[tokio::test]
async fn undecodable_request_bytes_are_invalid_argument_with_a_reason() {
    let w = World::new().await;
    let channel = channel(w.server.addr).await;
    for method in [
        "/canasta.v1.CanastaService/JoinGame",
        "/canasta.v1.CanastaService/SubmitAction",
        "/canasta.v1.CanastaService/WatchGame",
    ] {
        for (what, bytes) in unreadable() {
            let mut grpc = tonic::client::Grpc::new(channel.clone());
            grpc.ready().await.expect("the channel is ready");
            let path = tonic::codegen::http::uri::PathAndQuery::from_static(method);
            let request = authed(bytes, &w.tokens[0]);
            let status = if method.ends_with("WatchGame") {
                grpc.server_streaming(request, path, Raw).await.map(|_| ())
            } else {
                grpc.unary(request, path, Raw).await.map(|_| ())
            }
            .expect_err("refused");
            assert_malformed(&status, &format!("{method}, {what}"));
        }
    }
    w.server.stop().await;
}

// A Play call reads its messages one by one: one that cannot be read, first or later, ends the
// call with the same answer as a unary call's.
#[tokio::test]
async fn a_play_call_ends_with_invalid_argument_at_an_undecodable_message() {
    let w = World::new().await;
    let channel = channel(w.server.addr).await;
    let watch = v1::PlayRequest {
        kind: Some(v1::play_request::Kind::Watch(v1::WatchGameRequest {
            game_id: w.id.clone(),
            ..Default::default()
        })),
    };
    let good = prost::Message::encode_to_vec(&watch);
    // `watch` (field 1) or `submit` (field 2) with invalid UTF-8 in its game id.
    let bad_watch = vec![0x0a, 0x04, 0x0a, 0x02, 0xff, 0xfe];
    let bad_submit = vec![0x12, 0x04, 0x0a, 0x02, 0xff, 0xfe];
    for (what, messages) in [
        ("a first message", vec![bad_watch]),
        ("a submit after the watch", vec![good.clone(), bad_submit]),
        (
            "a truncated varint after the watch",
            vec![good.clone(), vec![0x12, 0x02, 0x10, 0xff]],
        ),
    ] {
        let mut grpc = tonic::client::Grpc::new(channel.clone());
        grpc.ready().await.expect("the channel is ready");
        let path =
            tonic::codegen::http::uri::PathAndQuery::from_static("/canasta.v1.CanastaService/Play");
        let request = authed(tokio_stream::iter(messages), &w.tokens[0]);
        let status = match grpc.streaming(request, path, Raw).await {
            Err(status) => status,
            Ok(response) => {
                let mut responses = response.into_inner();
                loop {
                    match responses.message().await {
                        Ok(Some(_)) => continue,
                        Ok(None) => panic!("{what}: the call ended without an error"),
                        Err(status) => break status,
                    }
                }
            }
        };
        assert_malformed(&status, what);
    }
    w.server.stop().await;
}
