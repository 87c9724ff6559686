//! `canasta tournament`: a round robin among registered players on a server, played through
//! challenges. Every group of `--players` entrants plays, in every way of forming its sides
//! (alice and carol against bob and dave, then alice and bob against carol and dave, …),
//! `--rounds` times, the seats turned one place each round. This command makes each game's
//! challenge as one of its players whose key it holds (`--key-file`), accepts the invitations
//! of the other players it holds, and leaves the rest (`--player`) to their bots. The players'
//! bots play the games (`canasta bot --seek` or `--accept-challenges` follow their players'
//! games). It prints each game as it ends, then the standings with 95% confidence intervals
//! (the statistics of `canasta match`) and each player's rating before and after.
//!
//! `--duplicate` plays each game of the round robin once per side on one seed (a seeded
//! challenge), the sides moved round the seats each time as `canasta match --duplicate` moves
//! its bots ([`rotate_sides`]): each side gets the same cards in turn, and the standings'
//! margins are taken over these duplicate sets, where the luck of the cards cancels out. A
//! seeded game is never rated, so neither is a duplicate event.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::time::Duration;

use anyhow::{Context, anyhow};
use canasta_engine::Rules;
use canasta_engine::table::Table;
use canasta_proto::convert::rules_to_wire;
use canasta_proto::reason::{Reason, reason_of};
use canasta_proto::v1;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::cli::TournamentArgs;
use crate::lobby::{end_name, time_control};
use crate::matches::{mean_95, rotate_sides, wilson};
use crate::players::{self, Key, Lobby, rating_json, table};
use crate::remote::{RemoteError, limited};

/// The most games one tournament schedules.
const MAX_GAMES: usize = 10_000;

/// One game of the schedule: the entrants (by index) in seat order.
type Seating = Vec<usize>;

/// The schedule: for every group of `players` entrants (in the order given), every way of
/// forming its sides, once a round; each round turns the seats one place on, so that each
/// player sits (and deals) in turn.
pub fn schedule(entrants: usize, table: &Table, rounds: u32) -> Vec<Seating> {
    let players = table.players() as usize;
    let sides = table.sides() as usize;
    let mut tables = Vec::new();
    for group in combinations(entrants, players) {
        let mut seen = HashSet::new();
        for order in permutations(&group) {
            // Seat i sits on side i mod sides: the sides, each a set, as a set, name the
            // partnership.
            let mut key: Vec<Vec<usize>> = (0..sides)
                .map(|side| {
                    let mut members: Vec<usize> =
                        order.iter().copied().skip(side).step_by(sides).collect();
                    members.sort_unstable();
                    members
                })
                .collect();
            key.sort();
            if seen.insert(key) {
                tables.push(order);
            }
        }
    }
    let mut games = Vec::new();
    for round in 0..rounds as usize {
        for t in &tables {
            // Seat i + 1 sits on the side after seat i's: turning the seats one place moves
            // each side on as a whole, and keeps every partnership.
            let mut seats = t.clone();
            seats.rotate_left(round % players.max(1));
            games.push(seats);
        }
    }
    games
}

/// The `k`-element subsets of `0..n`, in lexicographic order.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current = Vec::with_capacity(k);
    fn go(start: usize, n: usize, k: usize, current: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if current.len() == k {
            out.push(current.clone());
            return;
        }
        for i in start..n {
            if n - i < k - current.len() {
                break;
            }
            current.push(i);
            go(i + 1, n, k, current, out);
            current.pop();
            if out.len() > MAX_GAMES {
                return;
            }
        }
    }
    go(0, n, k, &mut current, &mut out);
    out
}

/// Every order of `items` (at most 6! = 720 of a table's players), the given order first.
fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

/// A duplicate game's place in its set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The set: the round robin's game it plays.
    pub set: usize,
    /// The seed of every game of the set.
    pub seed: u64,
    /// How far the sides were moved round the seats (0 to the number of sides - 1).
    pub rotation: u32,
}

/// A game to play: the entrants in seat order and, in duplicate mode, its place in its set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planned {
    /// The entrants (by index) in seat order.
    pub seats: Seating,
    /// The duplicate set, seed and rotation; none outside duplicate mode.
    pub slot: Option<Slot>,
}

/// The games of an event: the round robin's games as they are, or, with a first seed (duplicate
/// mode), each once per side on seed `first_seed + i` (its set `i`), the sides moved round the
/// seats one place more each time.
pub fn plan(schedule: &[Seating], table: &Table, first_seed: Option<u64>) -> Vec<Planned> {
    let Some(first) = first_seed else {
        return schedule
            .iter()
            .map(|seats| Planned {
                seats: seats.clone(),
                slot: None,
            })
            .collect();
    };
    let sides = u32::from(table.sides());
    schedule
        .iter()
        .enumerate()
        .flat_map(|(set, seats)| {
            (0..sides).map(move |rotation| Planned {
                seats: rotate_sides(table, seats, rotation),
                slot: Some(Slot {
                    set,
                    seed: first.wrapping_add(set as u64),
                    rotation,
                }),
            })
        })
        .collect()
}

/// One game's line (`--jsonl`); its fields are documented in docs/cli.md.
#[derive(Debug, Serialize)]
pub struct GameLine {
    /// The game's number in the schedule.
    pub index: usize,
    /// The challenge that made it.
    pub challenge_id: String,
    /// The game, if it started.
    pub game_id: Option<String>,
    /// The players in seat order.
    pub seats: Vec<String>,
    /// Each side's players.
    pub sides: Vec<Vec<String>>,
    /// The winning side, if any.
    pub winner_side: Option<u32>,
    /// The winning side's players.
    pub winners: Vec<String>,
    /// Final scores by side.
    pub totals: Vec<i32>,
    /// How the match ended (target, forfeit, …).
    pub end: Option<String>,
    /// Seconds from the challenge to the end.
    pub seconds: f64,
    /// Why the game was not played, if it was not.
    pub error: Option<String>,
    /// Duplicate mode: the game's set (the round robin's game it plays).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub set: Option<usize>,
    /// Duplicate mode: the seed of the game (and of every game of its set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Duplicate mode: how far the sides were moved round the seats (0 to sides - 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation: Option<u32>,
}

/// A player's line of the standings.
#[derive(Debug, Default, Serialize)]
pub struct Standing {
    /// The player.
    pub name: String,
    /// Games played to the end.
    pub played: u64,
    /// Of them, won by the player's side.
    pub wins: u64,
    /// Wins over played.
    pub win_rate: f64,
    /// Its 95% confidence interval (Wilson).
    pub win_rate_95: (f64, f64),
    /// The player's side's score minus the best other side's, on average (in duplicate mode,
    /// the mean over the complete sets of the player's mean margin in each set).
    pub average_margin: f64,
    /// Its 95% confidence interval (normal approximation over the games; in duplicate mode
    /// over the complete sets).
    pub average_margin_95: (f64, f64),
    /// Duplicate mode: the complete sets (every game of the set played) the margin is taken
    /// over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sets: Option<u64>,
    /// The rating in the family before the tournament (none before a first rated game).
    pub rating_before: Option<Value>,
    /// And after it.
    pub rating_after: Option<Value>,
}

/// The tournament's summary (`--json`).
#[derive(Debug, Serialize)]
pub struct Summary {
    /// Games scheduled.
    pub games: usize,
    /// Games played to the end.
    pub finished: usize,
    /// Games that did not start or end (declined, expired …).
    pub failed: usize,
    /// Wall time.
    pub seconds: f64,
    /// Whether the games were rated.
    pub rated: bool,
    /// Duplicate mode: the sets and their seeds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicate: Option<Duplicate>,
    /// The players, best first (win rate, then margin; in duplicate mode margin, then win
    /// rate).
    pub standings: Vec<Standing>,
}

/// A duplicate event's sets.
#[derive(Debug, Serialize)]
pub struct Duplicate {
    /// The seed of the first set (set i is dealt with first_seed + i).
    pub first_seed: u64,
    /// Sets scheduled.
    pub sets: usize,
    /// Games in a set (one per side).
    pub games_per_set: usize,
    /// Sets whose every game was played to the end.
    pub complete_sets: usize,
}

/// A game in flight.
struct Job {
    index: usize,
    seats: Seating,
    slot: Option<Slot>,
    game_id: Option<String>,
    started: Instant,
    /// When to give up waiting for the players' answers.
    deadline: Instant,
    /// The entrant (held) who made the challenge.
    challenger: usize,
    /// The players who have not answered the challenge yet, as its last state said.
    unanswered: Vec<String>,
    /// The game's last event seq when last looked at, to tell a game that stands still.
    seen_seq: Option<u64>,
    /// Whether the hint of a challenge left unanswered was given (once a challenge).
    hinted_challenge: bool,
    /// Whether the hint of a game that stands still was given (once a game).
    hinted_game: bool,
}

/// An entrant: a name, and its key if this command holds it.
struct Entrant {
    name: String,
    key: Option<Key>,
}

/// `canasta tournament`.
pub async fn tournament(args: TournamentArgs) -> anyhow::Result<()> {
    let spec = args.rules.spec().map_err(anyhow::Error::msg)?;
    let rules = Rules::new(&spec)?;
    let seats_table = Table::new(&rules);
    let mut entrants: Vec<Entrant> = Vec::new();
    for path in &args.key_files {
        let key = players::read_key_file(path)?;
        let name = key.name.clone().ok_or_else(|| {
            anyhow!(
                "{} gives no player's name: add a line `player NAME` (as `canasta register --key-file` writes it)",
                path.display()
            )
        })?;
        entrants.push(Entrant {
            name,
            key: Some(key),
        });
    }
    for name in &args.others {
        entrants.push(Entrant {
            name: name.clone(),
            key: None,
        });
    }
    let mut names = HashSet::new();
    for e in &entrants {
        if !names.insert(e.name.to_lowercase()) {
            return Err(anyhow!("{} is named twice: give each player once", e.name));
        }
    }
    let round_robin = schedule(entrants.len(), &seats_table, args.rounds);
    // A seed picked here is printed, so that the event can be played again on the same deals.
    let first_seed = args.duplicate.then(|| {
        args.seed
            .unwrap_or_else(|| u64::from(rand::random::<u32>()))
    });
    let schedule = plan(&round_robin, &seats_table, first_seed);
    if round_robin.len() > MAX_GAMES || schedule.len() > MAX_GAMES {
        return Err(anyhow!(
            "the round robin would schedule more than {MAX_GAMES} games: give fewer players or rounds"
        ));
    }
    // Whoever knows a seed knows every card: a duplicate event's games are never rated.
    let rated = !args.unrated && !args.duplicate;
    if let Some(t) = schedule
        .iter()
        .map(|p| &p.seats)
        .find(|t| t.iter().all(|&i| entrants[i].key.is_none()))
    {
        return Err(anyhow!(
            "the game of {} has no player whose key this command holds, so nobody can make its challenge: give one of their key files",
            names_of(&entrants, t).join(", ")
        ));
    }
    let addr = args.server.server.clone();
    let mut lobby = players::connect(&addr).await?;
    let family = v1::RatingFamily {
        preset: rules_to_wire(&spec).preset,
        player_count: u32::from(args.rules.players),
    };
    // Every entrant exists (a wrong name fails now, not in the middle), with its rating.
    let mut before = Vec::new();
    for e in &entrants {
        before.push(rating_of(&mut lobby, &e.name, &family, &addr).await?);
    }
    let (tx, mut rx) = mpsc::channel(256);
    for (i, e) in entrants.iter().enumerate() {
        if let Some(key) = &e.key {
            tokio::spawn(crate::seek::follow_player(
                lobby.clone(),
                key.clone(),
                addr.clone(),
                crate::remote::DEFAULT_RECONNECT,
                tx.clone(),
                move |event| (i, event),
            ));
        }
    }
    drop(tx);
    let lines_to_stdout = args.jsonl.as_ref().is_some_and(|p| p.as_os_str() == "-");
    let mut lines: Option<Box<dyn Write + Send>> = match &args.jsonl {
        None => None,
        Some(_) if lines_to_stdout => Some(Box::new(std::io::stdout())),
        Some(p) => Some(Box::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
    };
    let progress = !args.quiet;
    if progress {
        eprintln!(
            "{} games among {} players ({}, {} players{}){}",
            schedule.len(),
            entrants.len(),
            args.rules.preset,
            args.rules.players,
            if rated { ", rated" } else { ", unrated" },
            match first_seed {
                Some(first) => format!(
                    "; duplicate: {} sets of {} games on seeds {first} to {} (replay with --seed {first}), unrated since a seeded game never is",
                    round_robin.len(),
                    seats_table.sides(),
                    first.wrapping_add(round_robin.len().saturating_sub(1) as u64)
                ),
                None => String::new(),
            }
        );
    }
    let started = Instant::now();
    let request_of = |game: &Planned| v1::CreateChallengeRequest {
        rules: Some(rules_to_wire(&spec)),
        time_control: time_control(args.move_budget, args.timeout_policy),
        seats: names_of(&entrants, &game.seats),
        rated: Some(rated),
        seed: game.slot.map(|s| s.seed),
    };
    let accept_within = Duration::from_millis(args.accept_within);
    // Games that stand still are looked for at this pace: a game is hinted at once it has not
    // moved between two looks (so after one to two periods).
    let stalled_after = args.stalled_after();
    let mut look = tokio::time::interval_at(Instant::now() + stalled_after, stalled_after);
    look.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut games = crate::remote::connect(&addr).await?;
    let looks = Looks {
        entrants: &entrants,
        key_files: &args.key_files,
        stalled_after,
    };
    let mut jobs: HashMap<String, Job> = HashMap::new();
    let mut by_game: HashMap<String, String> = HashMap::new();
    let mut done: Vec<GameLine> = Vec::new();
    let mut next = 0;
    loop {
        while jobs.len() < args.parallel && next < schedule.len() {
            let seats = schedule[next].seats.clone();
            let challenger = *seats
                .iter()
                .find(|&&i| entrants[i].key.is_some())
                .expect("checked: every game has a held player");
            let key = entrants[challenger].key.as_ref().expect("held");
            let request = request_of(&schedule[next]);
            let made = limited!(lobby.create_challenge(key.authed(request.clone())).await)
                .map_err(|s| key.refused(&s).context("the server refused a challenge"))?
                .into_inner()
                .challenge
                .context("the server answered no challenge")?;
            let mut job = Job {
                index: next,
                seats: seats.clone(),
                slot: schedule[next].slot,
                game_id: None,
                started: Instant::now(),
                deadline: Instant::now() + accept_within,
                challenger,
                unanswered: unanswered(&made),
                seen_seq: None,
                hinted_challenge: false,
                hinted_game: false,
            };
            // A challenge of its challenger and the server's house players (which accept at
            // once) has started already.
            if made.status == v1::ChallengeStatus::Started as i32 {
                job.game_id = Some(made.game_id.clone());
                by_game.insert(made.game_id.clone(), made.challenge_id.clone());
            }
            for &i in &seats {
                let Some(key) = entrants[i].key.as_ref().filter(|_| i != challenger) else {
                    continue;
                };
                let request = v1::AnswerChallengeRequest {
                    challenge_id: made.challenge_id.clone(),
                    accept: true,
                };
                let answer =
                    match limited!(lobby.answer_challenge(key.authed(request.clone())).await) {
                        Ok(r) => r.into_inner().challenge.unwrap_or_default(),
                        // The player's own bot answered first, and the challenge has ended since
                        // (started, most often): the players' streams say how.
                        Err(s) if reason_of(&s) == Some(Reason::ChallengeClosed) => continue,
                        Err(s) => {
                            return Err(key.refused(&s).context("cannot accept a challenge"));
                        }
                    };
                job.unanswered = unanswered(&answer);
                if answer.status == v1::ChallengeStatus::Started as i32 {
                    job.game_id = Some(answer.game_id.clone());
                    by_game.insert(answer.game_id, made.challenge_id.clone());
                }
            }
            jobs.insert(made.challenge_id.clone(), job);
            next += 1;
        }
        if jobs.is_empty() {
            break;
        }
        let deadline = jobs
            .values()
            .filter(|j| j.game_id.is_none())
            .map(|j| j.deadline)
            .min();
        let msg = tokio::select! {
            m = rx.recv() => m,
            _ = look.tick(), if progress => {
                for job in jobs.values_mut() {
                    if let Some(hint) = looks.hint(&mut games, job).await {
                        eprintln!("{hint}");
                    }
                }
                continue;
            }
            () = sleep_until(deadline) => {
                let now = Instant::now();
                let late: Vec<String> = jobs
                    .iter()
                    .filter(|(_, j)| j.game_id.is_none() && j.deadline <= now)
                    .map(|(id, _)| id.clone())
                    .collect();
                for id in late {
                    let job = jobs.remove(&id).expect("listed");
                    let key = entrants[job.challenger].key.as_ref().expect("held");
                    let request = v1::CancelChallengeRequest { challenge_id: id.clone() };
                    // Already ended (started meanwhile, or expired): the answer says, and
                    // the game, if any, is left to the bots.
                    let _ = lobby.cancel_challenge(key.authed(request)).await;
                    let line = failed(&entrants, &id, &job, format!(
                        "not every player accepted within {} s: are their bots running (`canasta bot --accept-challenges`)?",
                        accept_within.as_secs()
                    ));
                    record(line, &mut done, &mut lines, progress, schedule.len())?;
                }
                continue;
            }
        };
        let Some((held, e)) = msg else {
            return Err(anyhow!("lost every player's event stream"));
        };
        let e = match e {
            Ok(e) => e,
            Err(why) => {
                return Err(why.context(format!(
                    "cannot follow the events of {}",
                    entrants[held].name
                )));
            }
        };
        use v1::player_event::Kind;
        match e.kind {
            Some(Kind::Challenge(c)) => {
                let Some(job) = jobs.get_mut(&c.challenge_id) else {
                    continue;
                };
                let status = v1::ChallengeStatus::try_from(c.status)
                    .unwrap_or(v1::ChallengeStatus::Unspecified);
                let why = match status {
                    v1::ChallengeStatus::Started => {
                        if job.game_id.is_none() {
                            job.game_id = Some(c.game_id.clone());
                            by_game.insert(c.game_id.clone(), c.challenge_id.clone());
                        }
                        continue;
                    }
                    v1::ChallengeStatus::Pending => {
                        job.unanswered = unanswered(&c);
                        continue;
                    }
                    v1::ChallengeStatus::Declined => {
                        let who: Vec<&str> = c
                            .seats
                            .iter()
                            .filter(|s| s.answer == v1::ChallengeAnswer::Declined as i32)
                            .map(|s| s.player.as_str())
                            .collect();
                        format!("declined by {}", who.join(", "))
                    }
                    v1::ChallengeStatus::Expired => "not every player answered within the server's time for challenges: are their bots running (`canasta bot --accept-challenges`)?".to_string(),
                    v1::ChallengeStatus::Cancelled => format!("cancelled by the server: {}", c.note),
                    _ => continue,
                };
                let job = jobs.remove(&c.challenge_id).expect("found");
                let line = failed(&entrants, &c.challenge_id, &job, why);
                record(line, &mut done, &mut lines, progress, schedule.len())?;
            }
            Some(Kind::GameFinished(f)) => {
                let Some(challenge_id) = by_game.remove(&f.game_id) else {
                    continue;
                };
                let job = jobs.remove(&challenge_id).expect("a game of a job");
                let result = f.result.unwrap_or_default();
                let sides = sides_of(&entrants, &job.seats, seats_table.sides() as usize);
                let line = GameLine {
                    index: job.index,
                    challenge_id,
                    game_id: Some(f.game_id.clone()),
                    seats: names_of(&entrants, &job.seats),
                    winners: result
                        .winner_side
                        .and_then(|w| sides.get(w as usize).cloned())
                        .unwrap_or_default(),
                    sides,
                    winner_side: result.winner_side,
                    totals: result.totals.clone(),
                    end: end_name(result.end),
                    seconds: job.started.elapsed().as_secs_f64(),
                    error: None,
                    set: job.slot.map(|s| s.set),
                    seed: job.slot.map(|s| s.seed),
                    rotation: job.slot.map(|s| s.rotation),
                };
                record(line, &mut done, &mut lines, progress, schedule.len())?;
            }
            _ => {}
        }
    }
    let mut after = Vec::new();
    for e in &entrants {
        after.push(rating_of(&mut lobby, &e.name, &family, &addr).await?);
    }
    let duplicate = first_seed.map(|first_seed| Duplicate {
        first_seed,
        sets: round_robin.len(),
        games_per_set: usize::from(seats_table.sides()),
        complete_sets: 0,
    });
    let summary = summarize(
        &entrants,
        &done,
        &before,
        &after,
        started.elapsed().as_secs_f64(),
        rated,
        duplicate,
    );
    match (args.json, lines_to_stdout) {
        (true, true) => println!("{}", serde_json::to_string(&summary)?),
        (true, false) => println!("{}", serde_json::to_string_pretty(&summary)?),
        (false, true) => eprint!("{}", standings_text(&summary)),
        (false, false) => print!("{}", standings_text(&summary)),
    }
    if summary.finished == 0 {
        return Err(anyhow!("no game of the tournament was played"));
    }
    Ok(())
}

/// What a look at the games in flight needs: the entrants (and the key files of those this
/// command holds, the first entrants in their order), and how long is too long.
struct Looks<'a> {
    entrants: &'a [Entrant],
    key_files: &'a [std::path::PathBuf],
    stalled_after: Duration,
}

impl Looks<'_> {
    /// Looks at a job in flight: a hint (once a challenge, once a game) when its challenge
    /// has waited for answers `stalled_after` or more, naming who has not answered, or when
    /// its game has not moved since the last look (its last event's seq the same), naming
    /// the player whose move it waits for. A game the server cannot show now is looked at
    /// again next time.
    async fn hint(&self, games: &mut crate::remote::Client, job: &mut Job) -> Option<String> {
        let Some(game_id) = job.game_id.clone() else {
            if job.hinted_challenge || job.started.elapsed() < self.stalled_after {
                return None;
            }
            job.hinted_challenge = true;
            let bots: Vec<String> = job
                .unanswered
                .iter()
                .filter_map(|name| self.entrant(name))
                .map(|i| self.bot_of(i))
                .collect();
            return Some(format!(
                "the challenge for the game of {} has waited {:?} for {} to accept. {}",
                names_of(self.entrants, &job.seats).join(", "),
                self.stalled_after,
                job.unanswered.join(", "),
                bots.join(" ")
            ));
        };
        if job.hinted_game {
            return None;
        }
        let request = v1::GetGameRequest {
            game_id: game_id.clone(),
        };
        let seq = games.get_game(request).await.ok()?.into_inner().game?.seq;
        if job.seen_seq.replace(seq) != Some(seq) {
            return None;
        }
        job.hinted_game = true;
        let request = v1::GetViewRequest {
            game_id: game_id.clone(),
            include_actions: false,
        };
        // A spectator's view says whose move it is; without it the hint names every player.
        let to_act = match games.get_view(request).await {
            Ok(r) => r.into_inner().view.and_then(|v| v.to_act),
            Err(_) => None,
        };
        let waits_for = match to_act.and_then(|seat| job.seats.get(seat as usize)) {
            Some(&i) => format!(
                "it waits for {} to move. {}",
                self.entrants[i].name,
                self.bot_of(i)
            ),
            None => format!(
                "it waits for one of its players. {}",
                job.seats
                    .iter()
                    .map(|&i| self.bot_of(i))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        };
        Some(format!(
            "game {game_id} has not moved for {:?}: {waits_for} `canasta watch {game_id}` shows the game.",
            self.stalled_after
        ))
    }

    /// The entrant of this name (the server answers names as registered, any case).
    fn entrant(&self, name: &str) -> Option<usize> {
        self.entrants
            .iter()
            .position(|e| e.name.eq_ignore_ascii_case(name))
    }

    /// The question to ask of a player's bot, with the key file when this command holds it.
    fn bot_of(&self, i: usize) -> String {
        match self.key_files.get(i) {
            Some(file) => format!(
                "Is {}'s bot running (`canasta bot --accept-challenges --key-file {}`)?",
                self.entrants[i].name,
                file.display()
            ),
            None => format!(
                "Is {}'s bot running (`canasta bot --accept-challenges` with its key)?",
                self.entrants[i].name
            ),
        }
    }
}

/// The players who have not answered a challenge yet.
fn unanswered(c: &v1::Challenge) -> Vec<String> {
    c.seats
        .iter()
        .filter(|s| s.answer == v1::ChallengeAnswer::Pending as i32)
        .map(|s| s.player.clone())
        .collect()
}

/// Sleeps until `deadline`, or for ever without one.
async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// The entrants' names of a seating.
fn names_of(entrants: &[Entrant], seats: &Seating) -> Vec<String> {
    seats.iter().map(|&i| entrants[i].name.clone()).collect()
}

/// Each side's players: seat i sits on side i mod sides.
fn sides_of(entrants: &[Entrant], seats: &Seating, sides: usize) -> Vec<Vec<String>> {
    (0..sides)
        .map(|side| {
            seats
                .iter()
                .skip(side)
                .step_by(sides)
                .map(|&i| entrants[i].name.clone())
                .collect()
        })
        .collect()
}

/// The line of a game that was not played.
fn failed(entrants: &[Entrant], challenge_id: &str, job: &Job, why: String) -> GameLine {
    GameLine {
        index: job.index,
        challenge_id: challenge_id.to_string(),
        game_id: job.game_id.clone(),
        seats: names_of(entrants, &job.seats),
        sides: Vec::new(),
        winner_side: None,
        winners: Vec::new(),
        totals: Vec::new(),
        end: None,
        seconds: job.started.elapsed().as_secs_f64(),
        error: Some(why),
        set: job.slot.map(|s| s.set),
        seed: job.slot.map(|s| s.seed),
        rotation: job.slot.map(|s| s.rotation),
    }
}

/// Writes a game's line and says how it went.
fn record(
    line: GameLine,
    done: &mut Vec<GameLine>,
    lines: &mut Option<Box<dyn Write + Send>>,
    progress: bool,
    total: usize,
) -> anyhow::Result<()> {
    if let Some(w) = lines {
        serde_json::to_writer(&mut *w, &line)
            .map_err(std::io::Error::from)
            .and_then(|()| w.write_all(b"\n"))
            .and_then(|()| w.flush())
            .context("cannot write the JSON lines")?;
    }
    if progress {
        let what = match (&line.error, line.winner_side) {
            (Some(e), _) => format!("not played: {e}"),
            (None, Some(w)) => format!(
                "side {w} ({}) wins, scores {}",
                line.winners.join(" + "),
                line.totals
                    .iter()
                    .map(i32::to_string)
                    .collect::<Vec<_>>()
                    .join(" / ")
            ),
            (None, None) => format!(
                "ended without a winner ({})",
                line.end.clone().unwrap_or_default()
            ),
        };
        let seed = match (line.seed, line.rotation) {
            (Some(seed), Some(rotation)) => format!("; seed {seed}, rotation {rotation}"),
            _ => String::new(),
        };
        eprintln!(
            "game {}/{total} ({}{seed}): {what}",
            done.len() + 1,
            line.seats.join(", ")
        );
    }
    done.push(line);
    Ok(())
}

/// A player's rating in the family, or `None` before its first rated game of it.
async fn rating_of(
    lobby: &mut Lobby,
    name: &str,
    family: &v1::RatingFamily,
    addr: &str,
) -> anyhow::Result<Option<v1::Rating>> {
    let request = v1::GetPlayerRequest {
        name: name.to_string(),
        recent_games: 1,
    };
    match limited!(lobby.get_player(request.clone()).await) {
        Ok(r) => Ok(r
            .into_inner()
            .ratings
            .into_iter()
            .find(|r| r.family.as_ref() == Some(family))),
        Err(s) if reason_of(&s) == Some(Reason::PlayerNotFound) => Err(anyhow!(
            "no player is named {name:?} on {addr}: register it (`canasta register {name}`), or check the name"
        )),
        Err(s) => Err(RemoteError::from(s).into()),
    }
}

/// The standings: each player's games, wins and margins, with their confidence intervals.
fn summarize(
    entrants: &[Entrant],
    games: &[GameLine],
    before: &[Option<v1::Rating>],
    after: &[Option<v1::Rating>],
    seconds: f64,
    rated: bool,
    mut duplicate: Option<Duplicate>,
) -> Summary {
    let mut margins: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut wins: BTreeMap<&str, u64> = BTreeMap::new();
    // Duplicate mode: per set, the games played to the end, and each player's margins in them.
    let mut sets: BTreeMap<usize, (usize, BTreeMap<&str, Vec<f64>>)> = BTreeMap::new();
    for g in games.iter().filter(|g| g.error.is_none()) {
        if let Some(set) = g.set {
            sets.entry(set).or_default().0 += 1;
        }
        for (side, members) in g.sides.iter().enumerate() {
            let own = g.totals.get(side).copied().unwrap_or(0);
            let best_other = g
                .totals
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != side)
                .map(|(_, t)| *t)
                .max()
                .unwrap_or(own);
            for m in members {
                margins
                    .entry(m)
                    .or_default()
                    .push(f64::from(own - best_other));
                if let Some(set) = g.set {
                    sets.entry(set)
                        .or_default()
                        .1
                        .entry(m)
                        .or_default()
                        .push(f64::from(own - best_other));
                }
                if g.winner_side == Some(side as u32) {
                    *wins.entry(m).or_default() += 1;
                }
            }
        }
    }
    // Only a set whose every game was played cancels the luck of its cards.
    let complete: Vec<&BTreeMap<&str, Vec<f64>>> = match &duplicate {
        Some(d) => sets
            .values()
            .filter(|(played, _)| *played == d.games_per_set)
            .map(|(_, m)| m)
            .collect(),
        None => Vec::new(),
    };
    if let Some(d) = &mut duplicate {
        d.complete_sets = complete.len();
    }
    let mut standings: Vec<Standing> = entrants
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let m = margins.get(e.name.as_str()).cloned().unwrap_or_default();
            let played = m.len() as u64;
            let w = wins.get(e.name.as_str()).copied().unwrap_or(0);
            let (per_set, sets) = if duplicate.is_some() {
                let per_set: Vec<f64> = complete
                    .iter()
                    .filter_map(|set| set.get(e.name.as_str()))
                    .map(|m| m.iter().sum::<f64>() / m.len() as f64)
                    .collect();
                let n = per_set.len() as u64;
                (per_set, Some(n))
            } else {
                (m, None)
            };
            let (average_margin, average_margin_95) = mean_95(&per_set);
            Standing {
                name: e.name.clone(),
                played,
                wins: w,
                win_rate: w as f64 / played.max(1) as f64,
                win_rate_95: wilson(w, played),
                average_margin,
                average_margin_95,
                sets,
                rating_before: before[i].as_ref().map(rating_json),
                rating_after: after[i].as_ref().map(rating_json),
            }
        })
        .collect();
    // A duplicate event ranks by the margin, whose luck of the cards it cancels.
    if duplicate.is_some() {
        standings.sort_by(|a, b| {
            b.average_margin
                .total_cmp(&a.average_margin)
                .then(b.win_rate.total_cmp(&a.win_rate))
        });
    } else {
        standings.sort_by(|a, b| {
            b.win_rate
                .total_cmp(&a.win_rate)
                .then(b.average_margin.total_cmp(&a.average_margin))
        });
    }
    let finished = games.iter().filter(|g| g.error.is_none()).count();
    Summary {
        games: games.len(),
        finished,
        failed: games.len() - finished,
        seconds,
        rated,
        duplicate,
        standings,
    }
}

/// The standings as a table.
fn standings_text(s: &Summary) -> String {
    let mut out = format!(
        "{} games played{} in {:.1} s\n",
        s.finished,
        if s.failed > 0 {
            format!(" ({} not played)", s.failed)
        } else {
            String::new()
        },
        s.seconds
    );
    if let Some(d) = &s.duplicate {
        out += &format!(
            "duplicate: {} of {} sets complete, {} games each on one seed (seeds {} to {}), the \
             sides moved round the seats; margins are per set\n",
            d.complete_sets,
            d.sets,
            d.games_per_set,
            d.first_seed,
            d.first_seed.wrapping_add(d.sets.saturating_sub(1) as u64)
        );
    }
    if !s.rated {
        out += if s.duplicate.is_some() {
            "unrated: a seeded game is never rated, so no rating changed\n"
        } else {
            "unrated: no rating changed\n"
        };
    }
    let rating = |r: &Option<Value>| match r {
        Some(v) => format!("{:.2}", v["display"].as_f64().unwrap_or(0.0)),
        None => "new".into(),
    };
    let rows: Vec<Vec<String>> = s
        .standings
        .iter()
        .enumerate()
        .map(|(i, p)| {
            vec![
                (i + 1).to_string(),
                p.name.clone(),
                p.played.to_string(),
                p.wins.to_string(),
                format!("{:.0}%", p.win_rate * 100.0),
                format!(
                    "{:.0}% to {:.0}%",
                    p.win_rate_95.0 * 100.0,
                    p.win_rate_95.1 * 100.0
                ),
                format!("{:+.0}", p.average_margin),
                format!(
                    "{:+.0} to {:+.0}",
                    p.average_margin_95.0, p.average_margin_95.1
                ),
                if s.rated {
                    format!(
                        "{} -> {}",
                        rating(&p.rating_before),
                        rating(&p.rating_after)
                    )
                } else {
                    "unrated".into()
                },
            ]
        })
        .collect();
    out += &table(
        &[
            "place", "player", "games", "wins", "won", "95% CI", "margin", "95% CI", "rating",
        ],
        &rows,
        &[true, false, true, true, true, true, true, true, false],
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use canasta_engine::{Preset, RuleSpec};

    fn table_of(players: u8) -> Table {
        Table::new(&Rules::new(&RuleSpec::new(Preset::Official, players)).unwrap())
    }

    /// The partnerships of a seating: each side's members, sorted.
    fn sides(t: &Table, seats: &Seating) -> Vec<Vec<usize>> {
        let n = t.sides() as usize;
        let mut sides: Vec<Vec<usize>> = (0..n)
            .map(|s| {
                let mut m: Vec<usize> = seats.iter().copied().skip(s).step_by(n).collect();
                m.sort_unstable();
                m
            })
            .collect();
        sides.sort();
        sides
    }

    /// The tournament's arguments as the command line gives them.
    fn tournament_args(flags: &[&str]) -> crate::cli::TournamentArgs {
        use clap::Parser;
        let line = ["canasta", "tournament", "--key-file", "a.key"];
        let line = line.iter().chain(&["--player", "bob"]);
        let cli = crate::cli::Cli::try_parse_from(line.chain(flags)).unwrap();
        match cli.command {
            crate::cli::Command::Tournament(a) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_game_is_called_stalled_after_a_minute_or_twice_its_move_budget() {
        let after = |flags: &[&str]| tournament_args(flags).stalled_after();
        assert_eq!(after(&[]), Duration::from_secs(60));
        // A bot may think for its whole budget: a game is not stalled before two of them.
        assert_eq!(after(&["--move-budget", "20s"]), Duration::from_secs(60));
        assert_eq!(after(&["--move-budget", "45s"]), Duration::from_secs(90));
        // Given, it is what it says, even below the budget.
        let given = ["--move-budget", "45s", "--stalled-after", "10s"];
        assert_eq!(after(&given), Duration::from_secs(10));
    }

    #[test]
    fn four_players_in_partnerships_play_each_partnership_once_a_round() {
        let t = table_of(4);
        let games = schedule(4, &t, 1);
        let mut seen: Vec<_> = games.iter().map(|g| sides(&t, g)).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(games.len(), 3);
        assert_eq!(seen.len(), 3, "three different partnerships: {games:?}");
        // A second round plays the same partnerships, the seats turned one place.
        let two = schedule(4, &t, 2);
        assert_eq!(two.len(), 6);
        for (a, b) in two[..3].iter().zip(&two[3..]) {
            assert_eq!(sides(&t, a), sides(&t, b));
            let mut turned = a.clone();
            turned.rotate_left(1);
            assert_eq!(&turned, b);
        }
    }

    #[test]
    fn every_group_of_the_table_s_size_plays() {
        // Five players, two-player games: every pair once.
        let games = schedule(5, &table_of(2), 1);
        assert_eq!(games.len(), 10);
        let mut pairs: Vec<Vec<usize>> = games
            .iter()
            .map(|g| {
                let mut p = g.clone();
                p.sort_unstable();
                p
            })
            .collect();
        pairs.dedup();
        assert_eq!(pairs.len(), 10);
        // Six players at a table of six: each way of forming its sides once.
        let t = table_of(6);
        let games = schedule(6, &t, 1);
        let expected = if t.sides() == 2 { 10 } else { 15 };
        assert_eq!(games.len(), expected, "{} sides", t.sides());
    }

    // Duplicate mode: every game of the round robin becomes a set of one game per side on one
    // seed (consecutive seeds from the first), each seat's cards going to each side in turn:
    // the sides swap with two of them, and go round with three.
    #[test]
    fn a_duplicate_plan_plays_each_game_once_per_side_on_one_seed() {
        let t = table_of(4);
        let games = schedule(4, &t, 1);
        let planned = plan(&games, &t, Some(41));
        assert_eq!(planned.len(), 6);
        for (set, pair) in planned.chunks(2).enumerate() {
            let seeds: Vec<u64> = pair.iter().map(|p| p.slot.unwrap().seed).collect();
            assert_eq!(seeds, vec![41 + set as u64; 2]);
            assert_eq!(
                pair[0].seats, games[set],
                "rotation 0 is the game as scheduled"
            );
            // Seats 0 and 2 (side 0) now hold side 1's players, member by member.
            let s = &games[set];
            assert_eq!(pair[1].seats, vec![s[1], s[0], s[3], s[2]]);
            assert_eq!(sides(&t, &pair[0].seats), sides(&t, &pair[1].seats));
        }
        let t3 = table_of(3);
        let three = plan(&schedule(3, &t3, 1), &t3, Some(7));
        let seatings: Vec<&Seating> = three.iter().map(|p| &p.seats).collect();
        assert_eq!(seatings, [&vec![0, 1, 2], &vec![1, 2, 0], &vec![2, 0, 1]]);
        assert!(three.iter().all(|p| p.slot.unwrap().seed == 7));
        // Without a seed: the round robin as it is, unseeded.
        let plain = plan(&games, &t, None);
        assert!(plain.iter().all(|p| p.slot.is_none()));
        assert_eq!(plain.len(), 3);
    }

    fn line(set: usize, rotation: u32, sides: [[&str; 1]; 2], totals: [i32; 2]) -> GameLine {
        let sides: Vec<Vec<String>> = sides
            .iter()
            .map(|s| s.iter().map(|n| n.to_string()).collect())
            .collect();
        let winner_side = if totals[0] > totals[1] { 0 } else { 1 };
        GameLine {
            index: set * 2 + rotation as usize,
            challenge_id: String::new(),
            game_id: Some(String::new()),
            seats: sides.iter().flatten().cloned().collect(),
            winners: sides[winner_side].clone(),
            sides,
            winner_side: Some(winner_side as u32),
            totals: totals.to_vec(),
            end: Some("target".into()),
            seconds: 1.0,
            error: None,
            set: Some(set),
            seed: Some(9 + set as u64),
            rotation: Some(rotation),
        }
    }

    // The duplicate standings take each player's margin per complete set (its mean over the
    // set's games), so the luck of the cards cancels: a set with a game not played counts in
    // the games and wins, not in the margin. The text says the event was unrated and why.
    #[test]
    fn duplicate_standings_take_margins_over_complete_sets() {
        let entrants: Vec<Entrant> = ["ann", "bob"]
            .iter()
            .map(|n| Entrant {
                name: n.to_string(),
                key: None,
            })
            .collect();
        let mut unplayed = line(2, 1, [["bob"], ["ann"]], [0, 0]);
        unplayed.error = Some("declined by bob".into());
        let games = vec![
            // Set 0: ann wins by 300 with the good cards, loses by 100 with the bad: +100.
            line(0, 0, [["ann"], ["bob"]], [500, 200]),
            line(0, 1, [["bob"], ["ann"]], [400, 300]),
            // Set 1: +200 and +0 for ann: +100.
            line(1, 0, [["ann"], ["bob"]], [600, 400]),
            line(1, 1, [["bob"], ["ann"]], [350, 350]),
            // Set 2: one game only, a huge margin that must not count.
            line(2, 0, [["ann"], ["bob"]], [5000, 0]),
            unplayed,
        ];
        let duplicate = Duplicate {
            first_seed: 9,
            sets: 3,
            games_per_set: 2,
            complete_sets: 0,
        };
        let s = summarize(
            &entrants,
            &games,
            &[None, None],
            &[None, None],
            1.0,
            false,
            Some(duplicate),
        );
        let d = s.duplicate.as_ref().unwrap();
        assert_eq!((d.sets, d.complete_sets), (3, 2));
        assert_eq!((s.finished, s.failed), (5, 1));
        let ann = &s.standings[0];
        assert_eq!(ann.name, "ann");
        assert_eq!((ann.played, ann.sets), (5, Some(2)));
        assert_eq!(ann.average_margin, 100.0);
        assert_eq!(ann.average_margin_95, (100.0, 100.0), "the two sets agree");
        assert_eq!(s.standings[1].average_margin, -100.0);
        let text = standings_text(&s);
        assert!(text.contains("duplicate: 2 of 3 sets complete"), "{text}");
        assert!(text.contains("seeds 9 to 11"), "{text}");
        assert!(
            text.contains("unrated: a seeded game is never rated"),
            "{text}"
        );
    }

    #[test]
    fn combinations_are_the_subsets_in_order() {
        assert_eq!(
            combinations(4, 2),
            [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
        );
        assert_eq!(permutations(&[1, 2, 3]).len(), 6);
    }
}
