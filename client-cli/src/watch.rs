//! `canasta watch`: a game's live view in the terminal, as a spectator or as a seat (with its
//! token), rendered as `play` renders it, to the end of the match. A dropped connection or a
//! stream that fell behind is resumed from the last event shown, so nothing is lost or shown
//! twice.

use std::time::Duration;

use anyhow::Context;
use canasta_proto::convert::view_from_wire;
use canasta_proto::v1;
use canasta_proto::v1::game_event::Kind;
use serde_json::{Value, json};
use tonic::Request;

use crate::cli::{Color, WatchArgs};
use crate::lobby::{result_json, status_name};
use crate::remote::{self, Link, RATE_LIMIT_ATTEMPTS, RemoteError, authed, limited, status_text};
use crate::render::{self, Style};

/// A request carrying the token, if the watcher has one.
fn request<T>(message: T, token: Option<&str>) -> Request<T> {
    match token {
        Some(t) => authed(message, t),
        None => Request::new(message),
    }
}

/// The event kind's name, as the protocol spells the field (`deal_ended`), and the seat it is
/// about, if one.
fn kind_of(kind: &Kind) -> (&'static str, Option<u32>) {
    match kind {
        Kind::SeatJoined(k) => ("seat_joined", Some(k.seat)),
        Kind::SeatLeft(k) => ("seat_left", Some(k.seat)),
        Kind::GameStarted(_) => ("game_started", None),
        Kind::DealStarted(k) => ("deal_started", Some(k.dealer)),
        Kind::TurnStarted(k) => ("turn_started", Some(k.seat)),
        Kind::RedThreeLaid(k) => ("red_three_laid", Some(k.seat)),
        Kind::Drew(k) => ("drew", Some(k.seat)),
        Kind::PileTaken(k) => ("pile_taken", Some(k.seat)),
        Kind::Melded(k) => ("melded", Some(k.seat)),
        Kind::Discarded(k) => ("discarded", Some(k.seat)),
        Kind::AskedPartner(k) => ("asked_partner", Some(k.seat)),
        Kind::PartnerAnswered(k) => ("partner_answered", Some(k.seat)),
        Kind::Penalty(_) => ("penalty", None),
        Kind::WentOut(k) => ("went_out", Some(k.seat)),
        Kind::PileDeclined(k) => ("pile_declined", Some(k.seat)),
        Kind::DealEnded(_) => ("deal_ended", None),
        Kind::MatchEnded(_) => ("match_ended", None),
        Kind::TimedOut(k) => ("timed_out", Some(k.seat)),
    }
}

/// An event as one JSON object: `game_id`, `seq`, `kind` (the protocol's field name, e.g.
/// `discarded`), `seat` (the seat it is about, or null; the dealer for `deal_started`),
/// `text` (the line `play` shows, without colours), and `score` for `deal_ended` (the deal and
/// every side's points and total) or `result` for `match_ended`.
pub fn event_json(game_id: &str, e: &v1::GameEvent, names: &[String]) -> Option<Value> {
    let kind = e.kind.as_ref()?;
    let (name, seat) = kind_of(kind);
    // The line without its `#seq` column: the seq has a field of its own.
    let text = render::event(&Style::from_flag(Color::Never), e, names).map(|line| {
        line.split_once(' ')
            .map_or(line.clone(), |(_, rest)| rest.trim_start().to_string())
    });
    let mut j = json!({
        "game_id": game_id,
        "seq": e.seq,
        "kind": name,
        "seat": seat,
        "text": text,
    });
    match kind {
        Kind::DealEnded(d) => {
            let score = d.score.clone().unwrap_or_default();
            j["score"] = json!({
                "deal": score.deal + 1,
                "sides": score.sides.iter().map(|s| json!({
                    "side": s.side,
                    "points": s.total,
                    "total": s.cumulative,
                })).collect::<Vec<_>>(),
            });
        }
        Kind::MatchEnded(m) => j["result"] = result_json(&m.result.clone().unwrap_or_default()),
        _ => {}
    }
    Some(j)
}

/// Shows events as they come: text lines or JSON lines, the names of the seats kept current.
struct Shower {
    style: Style,
    json: bool,
    game_id: String,
    names: Vec<String>,
}

impl Shower {
    fn show(&mut self, e: &v1::GameEvent) {
        if let Some(Kind::SeatJoined(j)) = &e.kind {
            let seat = j.seat as usize;
            if self.names.len() <= seat {
                self.names.resize(seat + 1, String::new());
            }
            self.names[seat] = j.display_name.clone();
        }
        if self.json {
            if let Some(j) = event_json(&self.game_id, e, &self.names) {
                println!("{j}");
            }
        } else if let Some(line) = render::event(&self.style, e, &self.names) {
            println!("{line}");
        }
    }
}

/// `canasta watch`.
pub async fn watch(args: WatchArgs) -> anyhow::Result<()> {
    let addr = args.server.server.clone();
    let token = args.token.as_deref().map(str::trim);
    let mut client = remote::connect(&addr).await?;
    let game = limited!(
        client
            .get_game(v1::GetGameRequest {
                game_id: args.game.clone(),
            })
            .await
    )
    .map_err(RemoteError::from)?
    .into_inner()
    .game
    .context("the server answered no game")?;
    let mut shower = Shower {
        style: Style::from_flag(args.color),
        json: args.json,
        game_id: game.game_id.clone(),
        names: game.seats.iter().map(|s| s.display_name.clone()).collect(),
    };
    let status = v1::GameStatus::try_from(game.status).unwrap_or(v1::GameStatus::Unspecified);
    let start = if args.from_start {
        0
    } else if status == v1::GameStatus::Finished {
        // A finished game's last event is its end: shown as the result.
        game.seq.saturating_sub(1)
    } else {
        let wanted = v1::GetViewRequest {
            game_id: game.game_id.clone(),
            include_actions: false,
        };
        let response = limited!(client.get_view(request(wanted.clone(), token)).await)
            .map_err(RemoteError::from)?
            .into_inner();
        let wire = response.view.context("the server answered no view")?;
        if !args.json {
            let who = match wire.viewer_seat {
                Some(s) => format!("as seat {s}"),
                None => "as a spectator".to_string(),
            };
            println!(
                "watching game {} {who}: {}",
                game.game_id,
                status_name(wire.status)
            );
            if wire.status == v1::GameStatus::Waiting as i32 {
                let free = game.seats.iter().filter(|s| !s.occupied).count();
                println!(
                    "it waits for players: {free} of {} seats free",
                    game.seats.len()
                );
            } else {
                let rules = remote::rules_of(&game)?;
                let view = view_from_wire(&wire, rules)?;
                print!("{}", render::table(&shower.style, &view, &shower.names));
            }
        }
        wire.seq
    };
    let patience = Duration::from_secs(args.reconnect_secs);
    let mut link = Link::new(start);
    loop {
        let wanted = v1::WatchGameRequest {
            game_id: game.game_id.clone(),
            after_seq: link.last,
            include_actions: false,
            include_view: false,
        };
        let why = match client.watch_game(request(wanted, token)).await {
            Err(s) => match remote::retry_delay(&s) {
                Some(wait) if link.limited < RATE_LIMIT_ATTEMPTS => {
                    link.limited += 1;
                    tokio::time::sleep(wait).await;
                    continue;
                }
                _ if remote::transient(&s) => status_text(&s),
                _ => return Err(RemoteError::from(s).into()),
            },
            Ok(response) => {
                link.opened();
                let mut stream = response.into_inner();
                loop {
                    let message = match link.next(&mut stream).await {
                        Ok(m) => m,
                        Err(why) => break why,
                    };
                    use v1::watch_game_response::Kind as Message;
                    match message.kind {
                        Some(Message::Event(e)) if e.seq > link.last => {
                            link.last = e.seq;
                            shower.show(&e);
                            if matches!(e.kind, Some(Kind::MatchEnded(_))) {
                                return Ok(());
                            }
                        }
                        Some(Message::Lagged(_)) => break "the stream fell behind".to_string(),
                        _ => {}
                    }
                }
            }
        };
        link.reconnect(&mut client, &addr, patience, &why).await?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_as_json_carry_their_kind_seat_and_line() {
        let names = vec!["ann".to_string(), "bob".to_string()];
        let e = v1::GameEvent {
            seq: 12,
            kind: Some(Kind::Discarded(v1::Discarded {
                seat: 1,
                card: Some(v1::Card {
                    rank: v1::Rank::Ace as i32,
                    suit: v1::Suit::Spades as i32,
                }),
                ..Default::default()
            })),
        };
        let j = event_json("g1", &e, &names).unwrap();
        assert_eq!(j["seq"], 12);
        assert_eq!(j["kind"], "discarded");
        assert_eq!(j["seat"], 1);
        assert_eq!(j["text"], "bob (seat 1) discards AS");
        let end = v1::GameEvent {
            seq: 99,
            kind: Some(Kind::MatchEnded(v1::MatchEnded {
                result: Some(v1::MatchResult {
                    finished: true,
                    winner_side: Some(0),
                    totals: vec![5100, 2000],
                    end: v1::MatchEndKind::Target as i32,
                    forfeited_side: None,
                }),
            })),
        };
        let j = event_json("g1", &end, &names).unwrap();
        assert_eq!(j["kind"], "match_ended");
        assert!(j["seat"].is_null());
        assert_eq!(j["result"]["totals"], json!([5100, 2000]));
        assert_eq!(j["result"]["end"], "target");
        assert!(j["text"].as_str().unwrap().contains("side 0 wins"), "{j}");
    }
}
