//! Challenges: a player invites named players to a game with its rules, time control and seats;
//! each answers; one decline ends it, the last accept starts the game; unanswered, it expires
//! after `--challenge-timeout-secs`. Every change is an event on each of its players' streams.
//!
//! A pending challenge is stored (made, and at each answer; each call answers once its change
//! is committed, so that a crash after the answer loses none of it) and survives a restart
//! with its answers and its deadline: [`Lobby::restore_challenges`] takes it back, expiring at once
//! those whose deadline passed while the server was down, so that its players' streams still
//! tell how it ended. An ended challenge is forgotten by the store, and kept in memory for
//! another `--challenge-timeout-secs`, so that a late answer is told it has ended
//! (CHALLENGE_CLOSED) rather than that it never existed.

use std::collections::HashMap;
use std::sync::Arc;

use canasta_proto::Reason;
use canasta_proto::v1;
use tonic::Code;

use super::seeks::PlayerId;
use super::{GameSpec, Lobby, Origin};
use crate::actor::now_ms;
use crate::errors::ApiError;
use crate::store::{ChallengeRow, LobbyOp, StoreError};

/// One challenge.
struct Challenge {
    wire: v1::Challenge,
    spec: GameSpec,
    /// The players, in seat order.
    players: Vec<PlayerId>,
    challenger: PlayerId,
}

/// A write to the lobby's tables, committed when it is ready.
type Write = std::pin::Pin<Box<dyn Future<Output = Result<(), StoreError>> + Send>>;

/// What a change of a challenge (made, or answered) leaves to do once the lobby's lock is let
/// go: wait for the write that stores the challenge as it now stands, before the caller is
/// answered; or start the game of challenge `id`, every seat having accepted.
enum Then {
    Store(v1::Challenge, Write),
    Start {
        id: String,
        spec: GameSpec,
        players: Vec<PlayerId>,
    },
}

/// The challenges the lobby holds, by id.
#[derive(Default)]
pub struct Challenges {
    by_id: HashMap<String, Challenge>,
}

fn pending(c: &Challenge) -> bool {
    c.wire.status == v1::ChallengeStatus::Pending as i32
}

/// The row that stores a pending challenge.
fn row_op(c: &Challenge) -> LobbyOp {
    LobbyOp::Challenge {
        challenge_id: c.wire.challenge_id.clone(),
        row: ChallengeRow {
            challenge: prost::Message::encode_to_vec(&c.wire),
            players: c.players.clone(),
            challenger: c.challenger,
            seed: c.spec.seed,
        },
    }
}

/// The write that forgets an ended challenge.
fn done_op(id: &str) -> LobbyOp {
    LobbyOp::ChallengeDone {
        challenge_id: id.to_string(),
    }
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        Code::NotFound,
        Reason::ChallengeNotFound,
        format!(
            "there is no challenge {} (ended challenges are forgotten after a while, and at a \
             restart): challenge again",
            canasta_engine::quote::quoted(id)
        ),
    )
}

/// The answer to a change of a challenge the database refused to store.
fn not_stored(e: &StoreError, what: &str) -> ApiError {
    ApiError::new(
        Code::Unavailable,
        Reason::StorageFailed,
        format!("{e}: {what}"),
    )
}

fn closed(c: &v1::Challenge) -> ApiError {
    let status = v1::ChallengeStatus::try_from(c.status)
        .map(|s| s.as_str_name())
        .unwrap_or("ENDED");
    ApiError::new(
        Code::FailedPrecondition,
        Reason::ChallengeClosed,
        format!(
            "challenge {} has ended ({status}{}): nothing to answer",
            c.challenge_id,
            if c.game_id.is_empty() {
                String::new()
            } else {
                format!(", game {}", c.game_id)
            }
        ),
    )
}

impl Lobby {
    /// Makes a challenge of `player`'s and tells its players. The house players it invites
    /// accept at once; if that makes every seat's answer an accept, the game starts and the
    /// answer holds it.
    pub async fn create_challenge(
        self: &Arc<Self>,
        player: PlayerId,
        r: v1::CreateChallengeRequest,
    ) -> Result<v1::CreateChallengeResponse, ApiError> {
        let mut spec = GameSpec::check(
            r.rules.as_ref(),
            r.time_control.as_ref(),
            r.rated,
            &self.config,
        )?;
        if r.seed.is_some() && spec.rated {
            // Whoever knows the seed knows every card of the game: its result says nothing of
            // the players' skill.
            return Err(ApiError::invalid(
                Reason::RatedSeed,
                "seed",
                "a seeded game is never rated (whoever knows the seed knows every card): set \
                 rated to false, or drop the seed",
            ));
        }
        spec.seed = r.seed;
        let seats = spec.layout.seats();
        let bad = |message: String| ApiError::invalid(Reason::BadSeats, "seats", message);
        if r.seats.len() != seats {
            return Err(bad(format!(
                "{} names for {seats} seats: name every seat's player, yourself among them",
                r.seats.len()
            )));
        }
        let wire = match self.make_challenge(player, &r, spec)? {
            Then::Start { id, spec, players } => self.start_challenge(&id, spec, players).await?,
            // Answered once stored: a challenge its challenger was told of survives a crash.
            Then::Store(wire, stored) => {
                if let Err(e) = stored.await {
                    // Withdrawn (its players are told), so that the challenger's answer and
                    // what a restart finds agree: no challenge.
                    let note = format!("the database refused to store it: {e}");
                    drop(self.end(&wire.challenge_id, v1::ChallengeStatus::Cancelled, note));
                    return Err(not_stored(
                        &e,
                        "the challenge was not made (its players are told it is cancelled); \
                         challenge again later",
                    ));
                }
                wire
            }
        };
        Ok(v1::CreateChallengeResponse {
            challenge: Some(wire),
        })
    }

    /// Records a new challenge and tells its players, or, if every seat has accepted (its
    /// other players are house players), marks it started and returns what its game needs.
    fn make_challenge(
        self: &Arc<Self>,
        player: PlayerId,
        r: &v1::CreateChallengeRequest,
        spec: GameSpec,
    ) -> Result<Then, ApiError> {
        let seats = spec.layout.seats();
        let bad = |message: String| ApiError::invalid(Reason::BadSeats, "seats", message);
        let mut st = self.state();
        let mut players = Vec::with_capacity(seats);
        for name in &r.seats {
            let id = Lobby::find_name(&st, name, Reason::BadSeats, "seats")?;
            if players.contains(&id) {
                return Err(bad(format!(
                    "{} is named twice: a player takes one seat",
                    canasta_engine::quote::quoted(name)
                )));
            }
            players.push(id);
        }
        if !players.contains(&player) {
            return Err(bad(
                "the challenger is not seated: name yourself at the seat you take".into(),
            ));
        }
        self.check_limits(&st.players[&player])?;
        let id = format!("c{:016x}", rand::random::<u64>());
        let timeout = self.config.challenge_timeout();
        let wire = v1::Challenge {
            challenge_id: id.clone(),
            challenger: st.players[&player].name.clone(),
            rules: Some(spec.rules.clone()),
            time_control: spec.time_control,
            rated: spec.rated,
            seats: players
                .iter()
                .map(|p| v1::ChallengeSeat {
                    player: st.players[p].name.clone(),
                    answer: if *p == player || Lobby::hosted(&st, *p) {
                        v1::ChallengeAnswer::Accepted
                    } else {
                        v1::ChallengeAnswer::Pending
                    } as i32,
                })
                .collect(),
            status: v1::ChallengeStatus::Pending as i32,
            game_id: String::new(),
            expires_unix_ms: now_ms().saturating_add(timeout.as_millis() as i64),
            note: String::new(),
            seeded: spec.seed.is_some(),
        };
        // The challenger's own wait counts from now; an invited player's only once it accepts
        // (an invitation nobody answered must not use up its player's games).
        let p = st.players.get_mut(&player).expect("a player");
        p.challenges_made += 1;
        p.challenges_in += 1;
        let challenge = Challenge {
            wire: wire.clone(),
            spec,
            players: players.clone(),
            challenger: player,
        };
        let stored = row_op(&challenge);
        st.challenges.by_id.insert(id.clone(), challenge);
        let all = players
            .iter()
            .all(|&p| p == player || Lobby::hosted(&st, p));
        if all {
            let (spec, players) = self.begin_start(&mut st, &id);
            return Ok(Then::Start { id, spec, players });
        }
        let mut ops = vec![stored];
        ops.extend(self.tell(&mut st, &players, &wire));
        let stored = Box::pin(self.store.lobby(ops));
        drop(st);
        self.expire_after(id, timeout);
        Ok(Then::Store(wire, stored))
    }

    /// Expires challenge `id` after `wait` if it is still pending then, and forgets it
    /// `--challenge-timeout-secs` later.
    fn expire_after(self: &Arc<Self>, id: String, wait: std::time::Duration) {
        let lobby = self.clone();
        let kept = self.config.challenge_timeout();
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            if let Some((_, stored)) = lobby.end(&id, v1::ChallengeStatus::Expired, String::new())
                && let Err(e) = stored.await
            {
                tracing::error!(challenge = %id, error = %e, "an expired challenge's end was not stored: after a restart it is pending again, and expires then");
            }
            // Kept a while, so that a late answer hears it has ended.
            tokio::time::sleep(kept).await;
            lobby.state().challenges.by_id.remove(&id);
        });
    }

    /// Takes back the pending challenges stored before a restart: their players' counts, and
    /// their expiry at the deadline they had (at once for those whose deadline has passed, so
    /// that their players are told). A challenge whose rules this server no longer accepts (its
    /// configuration changed) is cancelled, with why.
    pub(super) fn restore_challenges(self: &Arc<Self>, rows: Vec<(String, ChallengeRow)>) {
        let mut expiries = Vec::new();
        {
            let mut st = self.state();
            for (id, row) in rows {
                let Ok(wire) = <v1::Challenge as prost::Message>::decode(row.challenge.as_slice())
                else {
                    tracing::error!(challenge = %id, "a pending challenge does not decode: it is forgotten");
                    drop(self.store.lobby(vec![done_op(&id)]));
                    continue;
                };
                if row.players.len() != wire.seats.len()
                    || !row.players.iter().all(|p| st.players.contains_key(p))
                    || !st.players.contains_key(&row.challenger)
                {
                    tracing::error!(challenge = %id, "a pending challenge names players the lobby does not have: it is forgotten");
                    drop(self.store.lobby(vec![done_op(&id)]));
                    continue;
                }
                let spec = GameSpec::check(
                    wire.rules.as_ref(),
                    wire.time_control.as_ref(),
                    Some(wire.rated),
                    &self.config,
                );
                let mut spec = match spec {
                    Ok(spec) => spec,
                    Err(e) => {
                        // Ended at once, and its players told why.
                        let mut wire = wire;
                        wire.status = v1::ChallengeStatus::Cancelled as i32;
                        wire.note = format!(
                            "the restarted server no longer accepts its game: {}",
                            e.message
                        );
                        let mut ops = vec![done_op(&id)];
                        ops.extend(self.tell(&mut st, &row.players, &wire));
                        drop(self.store.lobby(ops));
                        continue;
                    }
                };
                spec.seed = row.seed;
                if let Some(p) = st.players.get_mut(&row.challenger) {
                    p.challenges_made += 1;
                }
                for (player, seat) in row.players.iter().zip(&wire.seats) {
                    // As counted when it was made and answered: a house player's accept was no
                    // wait of its own.
                    if seat.answer == v1::ChallengeAnswer::Accepted as i32
                        && !Lobby::hosted(&st, *player)
                        && let Some(p) = st.players.get_mut(player)
                    {
                        p.challenges_in += 1;
                    }
                }
                let left = wire.expires_unix_ms.saturating_sub(now_ms()).max(0) as u64;
                expiries.push((id.clone(), std::time::Duration::from_millis(left)));
                st.challenges.by_id.insert(
                    id,
                    Challenge {
                        wire,
                        spec,
                        players: row.players,
                        challenger: row.challenger,
                    },
                );
            }
        }
        for (id, wait) in expiries {
            self.expire_after(id, wait);
        }
    }

    /// The events telling `players` of a challenge's state.
    fn tell(
        &self,
        st: &mut super::State,
        players: &[PlayerId],
        wire: &v1::Challenge,
    ) -> Vec<LobbyOp> {
        players
            .iter()
            .filter_map(|p| {
                self.push_event(st, *p, v1::player_event::Kind::Challenge(wire.clone()))
            })
            .collect()
    }

    /// Ends a pending challenge with `status` (nothing if it has ended); frees its players'
    /// counts and tells them. Returns the challenge as ended and the write that stores its end,
    /// for an answer to wait for.
    fn end(
        &self,
        id: &str,
        status: v1::ChallengeStatus,
        note: String,
    ) -> Option<(
        v1::Challenge,
        impl Future<Output = Result<(), StoreError>> + Send + use<>,
    )> {
        let mut st = self.state();
        let c = st.challenges.by_id.get_mut(id)?;
        if !pending(c) {
            return None;
        }
        c.wire.status = status as i32;
        c.wire.note = note;
        let (wire, players, challenger) = (c.wire.clone(), c.players.clone(), c.challenger);
        if let Some(p) = st.players.get_mut(&challenger) {
            p.challenges_made -= 1;
        }
        for (id, seat) in players.iter().zip(&wire.seats) {
            // A house player's accept was no wait of its own.
            if seat.answer == v1::ChallengeAnswer::Accepted as i32
                && !Lobby::hosted(&st, *id)
                && let Some(p) = st.players.get_mut(id)
            {
                p.challenges_in -= 1;
            }
        }
        let mut ops = vec![done_op(id)];
        ops.extend(self.tell(&mut st, &players, &wire));
        Some((wire, self.store.lobby(ops)))
    }

    /// An invited player's answer; the last accept starts the game (answered once it has).
    pub async fn answer_challenge(
        self: &Arc<Self>,
        player: PlayerId,
        r: v1::AnswerChallengeRequest,
    ) -> Result<v1::AnswerChallengeResponse, ApiError> {
        if r.challenge_id.is_empty() {
            return Err(ApiError::invalid(
                Reason::MissingField,
                "challenge_id",
                "challenge_id is required: name the challenge (your WatchPlayer stream gives it)",
            ));
        }
        let then = {
            let mut st = self.state();
            let c = st
                .challenges
                .by_id
                .get_mut(&r.challenge_id)
                .ok_or_else(|| not_found(&r.challenge_id))?;
            let Some(seat) = c.players.iter().position(|&p| p == player) else {
                return Err(ApiError::new(
                    Code::PermissionDenied,
                    Reason::NotInvited,
                    "this challenge does not invite you: answer only your own invitations",
                ));
            };
            if c.challenger == player {
                return Err(ApiError::new(
                    Code::PermissionDenied,
                    Reason::NotInvited,
                    "you made this challenge (and accepted it so): CancelChallenge withdraws it",
                ));
            }
            if !pending(c) {
                return Err(closed(&c.wire));
            }
            let was_accepted = c.wire.seats[seat].answer == v1::ChallengeAnswer::Accepted as i32;
            if !r.accept {
                c.wire.seats[seat].answer = v1::ChallengeAnswer::Declined as i32;
                if was_accepted {
                    st.players.get_mut(&player).expect("a player").challenges_in -= 1;
                }
                drop(st);
                let (wire, stored) = self
                    .end(
                        &r.challenge_id,
                        v1::ChallengeStatus::Declined,
                        String::new(),
                    )
                    .expect("pending");
                Then::Store(wire, Box::pin(stored))
            } else {
                if !was_accepted {
                    // Accepting is a wait of the player's, within its limits.
                    self.check_games(&st.players[&player])?;
                    st.players.get_mut(&player).expect("a player").challenges_in += 1;
                }
                let c = st
                    .challenges
                    .by_id
                    .get_mut(&r.challenge_id)
                    .expect("found above");
                c.wire.seats[seat].answer = v1::ChallengeAnswer::Accepted as i32;
                let all = c
                    .wire
                    .seats
                    .iter()
                    .all(|s| s.answer == v1::ChallengeAnswer::Accepted as i32);
                if all {
                    let (spec, players) = self.begin_start(&mut st, &r.challenge_id);
                    Then::Start {
                        id: r.challenge_id.clone(),
                        spec,
                        players,
                    }
                } else {
                    let (wire, players) = (c.wire.clone(), c.players.clone());
                    let mut ops = vec![row_op(c)];
                    ops.extend(self.tell(&mut st, &players, &wire));
                    Then::Store(wire, Box::pin(self.store.lobby(ops)))
                }
            }
        };
        let wire = match then {
            Then::Start { id, spec, players } => self.start_challenge(&id, spec, players).await?,
            // Answered once stored: an answer its player was told of survives a crash.
            Then::Store(wire, stored) => match stored.await {
                Ok(()) => wire,
                Err(e) if r.accept => {
                    // Withdrawn (its players are told), so that the answer and what a restart
                    // finds agree: no accept stands.
                    let note = format!("the database refused to store an answer: {e}");
                    drop(self.end(&r.challenge_id, v1::ChallengeStatus::Cancelled, note));
                    return Err(not_stored(
                        &e,
                        "your accept was not stored, and the challenge is cancelled (its \
                         players are told); challenge again later",
                    ));
                }
                Err(e) => {
                    return Err(not_stored(
                        &e,
                        "the challenge is declined, but a restart of the server would find it \
                         pending again: decline it again then",
                    ));
                }
            },
        };
        Ok(v1::AnswerChallengeResponse {
            challenge: Some(wire),
        })
    }

    /// Marks a challenge every seat accepted as started (no other answer or cancel reaches it
    /// from now on) and counts its game among its players'; returns what the game needs.
    fn begin_start(&self, st: &mut super::State, id: &str) -> (GameSpec, Vec<PlayerId>) {
        let c = st.challenges.by_id.get_mut(id).expect("a challenge");
        c.wire.status = v1::ChallengeStatus::Started as i32;
        let (spec, players, challenger) = (c.spec.clone(), c.players.clone(), c.challenger);
        let accepted: Vec<bool> = c
            .wire
            .seats
            .iter()
            .map(|s| s.answer == v1::ChallengeAnswer::Accepted as i32)
            .collect();
        if let Some(p) = st.players.get_mut(&challenger) {
            p.challenges_made -= 1;
        }
        for (id, accepted) in players.iter().zip(accepted) {
            let hosted = Lobby::hosted(st, *id);
            let p = st.players.get_mut(id).expect("a player");
            // A house player's accept was no wait of its own.
            if accepted && !hosted {
                p.challenges_in -= 1;
            }
            p.games_open += 1;
        }
        (spec, players)
    }

    /// Creates a started challenge's game, records it on the challenge and tells its players;
    /// a game that cannot be created cancels the challenge, with why.
    async fn start_challenge(
        self: &Arc<Self>,
        id: &str,
        spec: GameSpec,
        players: Vec<PlayerId>,
    ) -> Result<v1::Challenge, ApiError> {
        let origins = vec![Origin::Challenge(id.to_string()); players.len()];
        let started = self.start_game(&spec, &players, &origins).await;
        let mut st = self.state();
        let Some(c) = st.challenges.by_id.get_mut(id) else {
            return Err(not_found(id));
        };
        let outcome = match &started {
            Ok(s) => {
                c.wire.game_id = s.game.game_id.clone();
                Ok(())
            }
            Err(e) => {
                c.wire.status = v1::ChallengeStatus::Cancelled as i32;
                c.wire.note = format!("the game could not be created: {}", e.message);
                Err(e.clone())
            }
        };
        let wire = c.wire.clone();
        let mut ops = vec![done_op(id)];
        ops.extend(self.tell(&mut st, &players, &wire));
        drop(self.store.lobby(ops));
        outcome?;
        Ok(wire)
    }

    /// Withdraws a pending challenge, for its challenger.
    pub async fn cancel_challenge(
        &self,
        player: PlayerId,
        r: v1::CancelChallengeRequest,
    ) -> Result<v1::CancelChallengeResponse, ApiError> {
        if r.challenge_id.is_empty() {
            return Err(ApiError::invalid(
                Reason::MissingField,
                "challenge_id",
                "challenge_id is required: name the challenge CreateChallenge returned",
            ));
        }
        {
            let st = self.state();
            let c = st
                .challenges
                .by_id
                .get(&r.challenge_id)
                .ok_or_else(|| not_found(&r.challenge_id))?;
            if c.challenger != player {
                return Err(ApiError::new(
                    Code::PermissionDenied,
                    Reason::NotInvited,
                    "only the player who made a challenge withdraws it: decline it with \
                     AnswerChallenge",
                ));
            }
            if !pending(c) {
                return Err(closed(&c.wire));
            }
        }
        let (wire, stored) = self
            .end(
                &r.challenge_id,
                v1::ChallengeStatus::Cancelled,
                String::new(),
            )
            .ok_or_else(|| not_found(&r.challenge_id))?;
        // Answered once stored: a withdrawal its challenger was told of survives a crash.
        if let Err(e) = stored.await {
            return Err(not_stored(
                &e,
                "the challenge is withdrawn, but a restart of the server would find it pending \
                 again: withdraw it again then",
            ));
        }
        Ok(v1::CancelChallengeResponse {
            challenge: Some(wire),
        })
    }
}
