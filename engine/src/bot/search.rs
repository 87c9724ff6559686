//! The `search` bot: determinized Monte Carlo search with greedy rollouts.
//!
//! At each decision it lists a few candidate actions (the greedy bot's choice first, every
//! discard, the pile takes, a going out, single melds, the question to the partner, both
//! answers), then spends its budget on iterations. Each iteration deals the cards it cannot
//! see at random, consistently with its view (its own hand, the melds, the pile, the red
//! threes, every hand's size and the cards known to be in it, the stock's size), plays one
//! candidate, and lets greedy players finish the deal from there; the deal's score difference
//! is the candidate's reward. Candidates are picked for iterations by UCB1, so the promising
//! ones get most of them, and the one played most is chosen. See `docs/bots.md` for why this
//! method and its references.
//!
//! It reads only its [`View`]: the hidden cards it plays with are its own guesses. It is
//! deterministic for a seed and an iteration budget (the random stream of a decision is drawn
//! from the seed and the view), with one thread or several: threads run their own share of
//! the iterations and their counts are summed in thread order.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Bot, GreedyBot};
use crate::action::Action;
use crate::card::{Card, CardCounts, Rank, pack};
use crate::game::{Game, Phase};
use crate::hash::StableHasher;
use crate::legal::LegalChoices;
use crate::rng::Xoshiro256;
use crate::score::DealEnd;
use crate::table::{MAX_SEATS, Seat};
use crate::view::{View, ViewBuffer, Viewer};

/// Iterations per decision when the name gives no budget.
pub const DEFAULT_ITERATIONS: u32 = 400;
/// The largest iteration budget a name may ask for.
pub const MAX_ITERATIONS: u32 = 10_000_000;
/// The largest time budget a name may ask for.
pub const MAX_TIME: Duration = Duration::from_secs(600);
/// The most threads a name may ask for.
pub const MAX_THREADS: usize = 64;
/// Most candidate actions weighed at one decision.
const MAX_CANDIDATES: usize = 24;
/// Most pile takes, and most melds, among the candidates.
const MAX_TAKES: usize = 6;
const MAX_MELDS: usize = 8;
/// Most actions of a rollout: far more than a deal has; a rollout that gets there is scored
/// as the deal stands.
const MAX_ROLLOUT_ACTIONS: u32 = 5_000;
/// The exploration constant of UCB1, for rewards in 0..1.
const EXPLORATION: f64 = 0.35;
/// Points of deal score difference that make a reward of about 0.88 (tanh 1).
const REWARD_SCALE: f64 = 800.0;
/// The likelihood, relative to a hand without, of a guessed hand holding a natural pair of a
/// rank its player passed on top of the pile ([`crate::Game::passed`]), and of one it
/// discarded ([`crate::Game::discarded`]): the ratios measured in greedy self-play (`cargo
/// test -p canasta-engine --lib calibrate -- --ignored --nocapture`), rounded.
pub const PASSED_PAIR_LIKELIHOOD: f64 = 0.55;
/// See [`PASSED_PAIR_LIKELIHOOD`].
pub const DISCARDED_PAIR_LIKELIHOOD: f64 = 0.73;
/// Most guesses dealt for one iteration before the last is kept, likely or not.
const MAX_TRIES: u32 = 16;

/// The least margin a bot at the other end of a network keeps from its seat's time left
/// ([`usable_time`]): what [`Bot::set_time_left`] keeps, for the action's way to the server.
/// A host that runs its bots beside the game keeps less (the server's house bots: 20 ms).
pub const MIN_TIME_MARGIN: Duration = Duration::from_millis(50);

/// The time a decision may take when its seat has `time_left` under a time control: all of it
/// but a margin of a tenth, and at least `min_margin`, for what the search does not count (the
/// overrun of its last rollout, starting its threads, a busy machine, and the action's way to
/// the game: [`MIN_TIME_MARGIN`] over a network). Zero when the time left is within the
/// margin: the search bot then plays the greedy choice at once. The one rule for every host of
/// a bot, so that they all leave the same share.
pub fn usable_time(time_left: Duration, min_margin: Duration) -> Duration {
    time_left.saturating_sub((time_left / 10).max(min_margin))
}

/// How much a decision may spend.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Budget {
    /// This many iterations (over all threads): deterministic.
    Iterations(u32),
    /// Iterations until this much time has passed on the bot's clock (each thread checks it
    /// before every iteration, so a decision overruns by at most one rollout).
    Time(Duration),
}

/// Where the bot reads the time of a [`Budget::Time`]: the monotonic clock, or one a test
/// drives.
pub trait Clock: Send + Sync {
    /// The time now, from any fixed origin.
    fn now(&self) -> Duration;
}

/// The monotonic clock of the machine.
#[derive(Clone, Copy, Debug)]
pub struct MonotonicClock(Instant);

impl Default for MonotonicClock {
    fn default() -> Self {
        MonotonicClock(Instant::now())
    }
}

impl Clock for MonotonicClock {
    fn now(&self) -> Duration {
        self.0.elapsed()
    }
}

/// What the last decision did: the candidates, their iterations and mean rewards.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchStats {
    /// Iterations run, over all threads.
    pub iterations: u64,
    /// The candidates, the greedy bot's choice first: (action, iterations, mean reward in
    /// 0..1, 0 where it had none).
    pub candidates: Vec<(Action, u64, f64)>,
    /// The index of the candidate chosen.
    pub chosen: usize,
}

/// The search bot (see the module documentation).
pub struct SearchBot {
    name: String,
    seed: u64,
    budget: Budget,
    threads: usize,
    /// A limit of time on every decision besides the budget (see [`SearchBot::set_time_limit`]).
    time_limit: Option<Duration>,
    /// Whether guesses weigh the public hints (passes and discards).
    infer: bool,
    clock: Arc<dyn Clock>,
    greedy: GreedyBot,
    stats: SearchStats,
}

impl std::fmt::Debug for SearchBot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchBot")
            .field("name", &self.name)
            .field("seed", &self.seed)
            .field("budget", &self.budget)
            .field("threads", &self.threads)
            .field("time_limit", &self.time_limit)
            .field("infer", &self.infer)
            .finish_non_exhaustive()
    }
}

impl SearchBot {
    /// A search bot with this seed and budget, on one thread and the monotonic clock.
    pub fn new(seed: u64, budget: Budget) -> SearchBot {
        SearchBot {
            name: name_of(budget, 1, true),
            seed,
            budget,
            threads: 1,
            time_limit: None,
            infer: true,
            clock: Arc::new(MonotonicClock::default()),
            greedy: GreedyBot::new(),
            stats: SearchStats::default(),
        }
    }

    /// The same bot on `threads` threads (at least 1, at most [`MAX_THREADS`]).
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> SearchBot {
        self.threads = threads.clamp(1, MAX_THREADS);
        self.name = name_of(self.budget, self.threads, self.infer);
        self
    }

    /// The same bot guessing hidden hands with (`true`, the default) or without the public
    /// hints of passes and discards (the known cards are always held): without is the
    /// baseline that measures what the hints are worth (`search:…:noinfer`).
    #[must_use]
    pub fn with_inference(mut self, infer: bool) -> SearchBot {
        self.infer = infer;
        self.name = name_of(self.budget, self.threads, self.infer);
        self
    }

    /// The same bot reading time from `clock`.
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> SearchBot {
        self.clock = clock;
        self
    }

    /// Caps the time of each decision from now on, whatever the budget: a decision stops at
    /// its budget or at the limit, whichever comes first (overrunning it by at most one
    /// rollout, as a time budget does). A host that must answer within a deadline (a server's
    /// time control) sets it before each decision; an iteration budget cut short by it is no
    /// longer deterministic. `None`: the budget alone.
    pub fn set_time_limit(&mut self, limit: Option<Duration>) {
        self.time_limit = limit;
    }

    /// The bot's budget.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// The bot's threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// What the last decision did.
    pub fn stats(&self) -> &SearchStats {
        &self.stats
    }

    /// A search bot by its name: `search`, then optionally `:` and a budget (`400` iterations,
    /// `50ms`, `2s`), `:` and threads (`t2`) and `:noinfer` (no hints from passes and
    /// discards, [`SearchBot::with_inference`]), e.g. `search:50ms:t2`. `None` if the name is
    /// not the search bot's; an error saying what is wrong if a part is.
    pub fn parse(name: &str, seed: u64) -> Option<Result<SearchBot, String>> {
        let rest = name.strip_prefix("search")?;
        if !rest.is_empty() && !rest.starts_with(':') {
            return None;
        }
        let mut budget = Budget::Iterations(DEFAULT_ITERATIONS);
        let mut threads = 1;
        let mut infer = true;
        for part in rest.split(':').skip(1) {
            match parse_part(part) {
                Ok(Part::Budget(b)) => budget = b,
                Ok(Part::Threads(t)) => threads = t,
                Ok(Part::NoInference) => infer = false,
                Err(e) => return Some(Err(format!("bot {name:?}: {e}"))),
            }
        }
        Some(Ok(SearchBot::new(seed, budget)
            .with_threads(threads)
            .with_inference(infer)))
    }
}

enum Part {
    Budget(Budget),
    Threads(usize),
    NoInference,
}

fn parse_part(part: &str) -> Result<Part, String> {
    let usage = "give a budget (400 for iterations, 50ms or 2s for time), threads (t2) or \
                 noinfer, e.g. search:50ms:t2";
    if part == "noinfer" {
        return Ok(Part::NoInference);
    }
    if let Some(t) = part.strip_prefix('t') {
        return match t.parse::<usize>() {
            Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(Part::Threads(n)),
            _ => Err(format!(
                "{part:?} is not a number of threads from 1 to {MAX_THREADS}: {usage}"
            )),
        };
    }
    let time = |digits: &str, unit: u64| -> Result<Part, String> {
        match digits.parse::<u64>() {
            Ok(n) if n >= 1 && Duration::from_millis(n.saturating_mul(unit)) <= MAX_TIME => {
                Ok(Part::Budget(Budget::Time(Duration::from_millis(n * unit))))
            }
            _ => Err(format!(
                "{part:?} is not a time from 1ms to {}s: {usage}",
                MAX_TIME.as_secs()
            )),
        }
    };
    if let Some(ms) = part.strip_suffix("ms") {
        return time(ms, 1);
    }
    if let Some(s) = part.strip_suffix('s') {
        return time(s, 1000);
    }
    match part.parse::<u32>() {
        Ok(n) if (1..=MAX_ITERATIONS).contains(&n) => Ok(Part::Budget(Budget::Iterations(n))),
        _ => Err(format!(
            "{part:?} is not a budget of 1 to {MAX_ITERATIONS} iterations: {usage}"
        )),
    }
}

/// The name that makes this bot again.
fn name_of(budget: Budget, threads: usize, infer: bool) -> String {
    let mut name = match budget {
        Budget::Iterations(n) => format!("search:{n}"),
        Budget::Time(t) => format!("search:{}ms", t.as_millis()),
    };
    if threads > 1 {
        name.push_str(&format!(":t{threads}"));
    }
    if !infer {
        name.push_str(":noinfer");
    }
    name
}

/// What the bot cannot see, and how to deal it: the cards no view shows, and how many of them
/// each other hand holds beyond its known cards.
struct Unseen {
    me: Seat,
    mine: CardCounts,
    /// The cards not in sight, in card order.
    cards: Vec<Card>,
    /// Per seat: its known cards, and how many hidden cards it holds besides.
    known: [CardCounts; MAX_SEATS],
    hidden: [usize; MAX_SEATS],
    /// Per seat, the natural ranks it passed on top of the pile, and those it discarded and
    /// did not pass, a bit each (bit `Rank as usize`): the hints a guess is weighed by. Empty
    /// without inference.
    passed: [u16; MAX_SEATS],
    discarded: [u16; MAX_SEATS],
}

impl Unseen {
    /// `None` if the view is not a seat's, or its counts do not add up to the pack (a view
    /// edited or sent by a server that is wrong): the bot then plays greedy's choice.
    fn new(view: &View, infer: bool) -> Option<Unseen> {
        let Viewer::Seat(me) = view.viewer else {
            return None;
        };
        let mine = *view.my_hand()?;
        let mut pool = CardCounts::from_cards(pack(view.rules.decks, view.rules.jokers));
        let mut take = |cards: &CardCounts| -> Option<()> {
            pool.contains(cards).then(|| pool.remove_all(cards))
        };
        take(&mine)?;
        take(&CardCounts::from_cards(view.pile.iter().copied()))?;
        for side in &view.sides {
            for meld in &side.melds {
                take(&meld.cards)?;
            }
        }
        let mut known = [CardCounts::new(); MAX_SEATS];
        let mut hidden = [0; MAX_SEATS];
        let mut passed = [0; MAX_SEATS];
        let mut discarded = [0; MAX_SEATS];
        let mut needed = view.stock_len as usize;
        for seat in &view.seats {
            let s = seat.seat.index();
            if s >= MAX_SEATS {
                return None;
            }
            take(&seat.red_threes)?;
            if seat.seat != me {
                take(&seat.known)?;
                known[s] = seat.known;
                hidden[s] = (seat.hand_len as usize).checked_sub(seat.known.len())?;
                needed += hidden[s];
                if infer {
                    passed[s] = seat.passed.ranks_held() & NATURAL_RANKS;
                    discarded[s] = seat.discarded.ranks_held() & NATURAL_RANKS & !passed[s];
                }
            }
        }
        (needed == pool.len()).then(|| Unseen {
            me,
            mine,
            cards: pool.to_vec(),
            known,
            hidden,
            passed,
            discarded,
        })
    }

    /// How likely the public hints make a guess, relative to a guess they say nothing
    /// against: each natural pair a hand holds of a rank its player passed, or discarded,
    /// makes it less likely (the pile taken with it, the card kept).
    fn likelihood(&self, hands: &[CardCounts; MAX_SEATS]) -> f64 {
        let mut w = 1.0;
        for (s, hand) in hands.iter().enumerate() {
            let (passed, discarded) = (self.passed[s], self.discarded[s]);
            if passed | discarded == 0 {
                continue;
            }
            let counts = hand.rank_counts();
            let pairs = (0..14)
                .filter(|&r| counts[r] >= 2)
                .fold(0u16, |m, r| m | 1 << r);
            w *= PASSED_PAIR_LIKELIHOOD.powi((pairs & passed).count_ones() as i32);
            w *= DISCARDED_PAIR_LIKELIHOOD.powi((pairs & discarded).count_ones() as i32);
        }
        w
    }

    /// One guess at the hidden cards, drawn as likely as the hints make it: guesses are dealt
    /// and each kept with its likelihood (rejection sampling), the last of [`MAX_TRIES`] kept
    /// whatever its likelihood. The known cards are held in every guess.
    fn deal_likely(
        &self,
        rng: &mut Xoshiro256,
        cards: &mut Vec<Card>,
        hands: &mut [CardCounts; MAX_SEATS],
    ) -> Vec<Card> {
        let mut tries = 1;
        loop {
            let stock = self.deal(rng, cards, hands);
            if tries >= MAX_TRIES || self.passed.iter().chain(&self.discarded).all(|&m| m == 0) {
                return stock;
            }
            let w = self.likelihood(hands);
            // A uniform draw in 0..1 from the top 53 bits.
            if w >= 1.0 || ((rng.next_u64() >> 11) as f64) * (1.0 / (1u64 << 53) as f64) < w {
                return stock;
            }
            // Its buffer is the next guess's.
            *cards = stock;
            tries += 1;
        }
    }

    /// One guess at the hidden cards: every hand and the stock (top card last).
    fn deal(
        &self,
        rng: &mut Xoshiro256,
        cards: &mut Vec<Card>,
        hands: &mut [CardCounts; MAX_SEATS],
    ) -> Vec<Card> {
        cards.clone_from(&self.cards);
        rng.shuffle(cards);
        for (s, hand) in hands.iter_mut().enumerate() {
            if s == self.me.index() {
                *hand = self.mine;
                continue;
            }
            *hand = self.known[s];
            for _ in 0..self.hidden[s] {
                hand.add(
                    cards
                        .pop()
                        .expect("counted: the pool holds every hidden card"),
                );
            }
        }
        std::mem::take(cards)
    }
}

/// The natural ranks (four to ace), a bit each (bit `Rank as usize`).
const NATURAL_RANKS: u16 = (1 << (Rank::Ace as u16 + 1)) - (1 << Rank::Four as u16);

/// The candidates of a decision: the greedy choice first, then the others, each once.
fn candidates(legal: &LegalChoices<'_>, greedy: Action) -> Vec<Action> {
    let mut out = vec![greedy];
    let push = |out: &mut Vec<Action>, a: Action| {
        if out.len() < MAX_CANDIDATES && !out.contains(&a) && legal.check(&a).is_ok() {
            out.push(a);
        }
    };
    match legal.phase() {
        Phase::Answer => {
            push(&mut out, Action::AnswerPartner { yes: true });
            push(&mut out, Action::AnswerPartner { yes: false });
        }
        Phase::Draw => {
            push(&mut out, Action::DrawStock);
            push(&mut out, Action::DeclinePile);
            let mut listed = Vec::new();
            legal.actions_up_to(&mut listed, 64);
            for a in listed
                .into_iter()
                .filter(|a| matches!(a, Action::TakePile { .. }))
                .take(MAX_TAKES)
            {
                push(&mut out, a);
            }
        }
        Phase::Play => {
            if let Some(a) = legal.first_go_out() {
                push(&mut out, a);
            }
            push(&mut out, Action::AskPartner);
            for card in legal.hand().iter_kinds().map(|(c, _)| c) {
                push(&mut out, Action::Discard { card });
            }
            let mut listed = Vec::new();
            legal.actions_up_to(&mut listed, 256);
            for a in listed
                .into_iter()
                .filter(|a| matches!(a, Action::Meld { melds } if melds.len() == 1))
                .take(MAX_MELDS)
            {
                push(&mut out, a);
            }
        }
        Phase::Over => {}
    }
    out
}

/// The random stream of a decision: from the seed and what the view shows, so that a
/// decision depends on nothing else (not on the decisions before it).
fn decision_seed(seed: u64, view: &View) -> u64 {
    let mut h = StableHasher::new();
    h.u64(seed);
    h.u32(view.deal);
    h.u32(view.stock_len);
    h.u8(view.phase as u8);
    h.u8(view.to_act.map_or(255, |s| s.0));
    h.u32(view.pile.len() as u32);
    for c in &view.pile {
        h.u8(c.index() as u8);
    }
    if let Some(hand) = view.my_hand() {
        h.bytes(&hand.to_array());
    }
    for side in &view.sides {
        h.u32(side.melds.len() as u32);
        for m in &side.melds {
            h.bytes(&m.cards.to_array());
        }
    }
    h.finish()
}

/// One worker's tallies: iterations and summed rewards per candidate.
#[derive(Clone, Default)]
struct Tally {
    visits: Vec<u64>,
    rewards: Vec<f64>,
}

impl Tally {
    fn new(n: usize) -> Tally {
        Tally {
            visits: vec![0; n],
            rewards: vec![0.0; n],
        }
    }

    /// UCB1: every candidate once, then the best mean plus exploration (ties to the first).
    fn select(&self, total: u64) -> usize {
        if let Some(i) = self.visits.iter().position(|&v| v == 0) {
            return i;
        }
        let ln = (total.max(1) as f64).ln();
        let mut best = (0, f64::NEG_INFINITY);
        for (i, (&v, &r)) in self.visits.iter().zip(&self.rewards).enumerate() {
            let score = r / v as f64 + EXPLORATION * (ln / v as f64).sqrt();
            if score > best.1 {
                best = (i, score);
            }
        }
        best.0
    }
}

/// The reward of a finished (or cut) rollout for `me`: the deal's score difference between
/// its side and the best other side, squashed into 0..1.
fn reward(game: &Game, me: Seat) -> f64 {
    let mine = game.table().side_of(me).index();
    let report = match game.history().first() {
        Some(r) => r.clone(),
        None => match game.score_as_if(DealEnd::StockExhausted { seat: me }) {
            Ok(r) => r,
            Err(_) => return 0.5,
        },
    };
    let own = report.sides.get(mine).map_or(0, |s| s.total);
    let best_other = report
        .sides
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != mine)
        .map(|(_, s)| s.total)
        .max()
        .unwrap_or(0);
    0.5 + 0.5 * (f64::from(own - best_other) / REWARD_SCALE).tanh()
}

/// Greedy players finish the deal of `game`.
fn rollout(game: &mut Game, buffer: &mut ViewBuffer, events: &mut Vec<crate::Event>) {
    let mut bots: [GreedyBot; MAX_SEATS] = Default::default();
    for _ in 0..MAX_ROLLOUT_ACTIONS {
        if !game.history().is_empty() {
            return;
        }
        let Some(seat) = game.to_act() else { return };
        let view = game.view_into(Viewer::Seat(seat), buffer);
        let Some(legal) = game.legal() else { return };
        let choice = bots[seat.index()].choose_checked(view, &legal);
        events.clear();
        if game.apply_choice(seat, &choice, events).is_err() {
            return;
        }
    }
}

/// What one worker searches with.
struct Search<'a> {
    view: &'a View,
    unseen: &'a Unseen,
    candidates: &'a [Action],
    budget: Budget,
    time_limit: Option<Duration>,
    clock: &'a dyn Clock,
    start: Duration,
}

impl Search<'_> {
    /// The time spent since the decision started, on the bot's clock.
    fn spent(&self) -> Duration {
        self.clock.now().saturating_sub(self.start)
    }

    /// Runs `iterations` iterations (or until the time budget is spent) from this stream.
    fn run(&self, seed: u64, iterations: u64) -> Tally {
        let mut rng = Xoshiro256::seed_from_u64(seed);
        let mut tally = Tally::new(self.candidates.len());
        let mut cards = Vec::with_capacity(self.unseen.cards.len());
        let mut hands = [CardCounts::new(); MAX_SEATS];
        let mut buffer = ViewBuffer::from(self.view.clone());
        let mut events = Vec::new();
        let me = self.unseen.me;
        let mut done = 0;
        loop {
            // The clock is read once an iteration, and only where time counts.
            let (time, iterations_left) = match self.budget {
                Budget::Iterations(_) => (None, done < iterations),
                Budget::Time(t) => (Some(t), true),
            };
            if !iterations_left {
                break;
            }
            if time.is_some() || self.time_limit.is_some() {
                let spent = self.spent();
                if time.into_iter().chain(self.time_limit).any(|l| spent >= l) {
                    break;
                }
            }
            let i = tally.select(done);
            let stock = self.unseen.deal_likely(&mut rng, &mut cards, &mut hands);
            let mut game = Game::determinized(self.view, &hands, stock, rng.next_u64());
            events.clear();
            let r = match game.apply_into(me, &self.candidates[i], &mut events) {
                Ok(()) => {
                    rollout(&mut game, &mut buffer, &mut events);
                    reward(&game, me)
                }
                // Legal in the view, so in every guess at it: not reached.
                Err(_) => 0.0,
            };
            tally.visits[i] += 1;
            tally.rewards[i] += r;
            done += 1;
        }
        tally
    }
}

impl Bot for SearchBot {
    fn name(&self) -> &str {
        &self.name
    }

    /// Every decision from now on stops at [`usable_time`] of `time_left` with the margin of a
    /// bot behind a network, [`MIN_TIME_MARGIN`] (or when its budget is spent, if that comes
    /// first): an iteration budget cut short so is no longer deterministic, which is the price
    /// of not losing on time.
    fn set_time_left(&mut self, time_left: Option<Duration>) {
        self.set_time_limit(time_left.map(|left| usable_time(left, MIN_TIME_MARGIN)));
    }

    fn choose(&mut self, view: &View, legal: &LegalChoices<'_>) -> Action {
        // Asked at every decision, as in its own play, so that its memory stays true.
        let greedy = self.greedy.choose(view, legal);
        let candidates = candidates(legal, greedy);
        let unseen = Unseen::new(view, self.infer).filter(|_| view.to_act.is_some());
        self.stats = SearchStats {
            iterations: 0,
            candidates: candidates.iter().map(|a| (a.clone(), 0, 0.0)).collect(),
            chosen: 0,
        };
        let Some(unseen) = unseen.filter(|_| candidates.len() > 1) else {
            return candidates.into_iter().next().expect("greedy's choice");
        };
        let search = Search {
            view,
            unseen: &unseen,
            candidates: &candidates,
            budget: self.budget,
            time_limit: self.time_limit,
            clock: &*self.clock,
            start: self.clock.now(),
        };
        let seed = decision_seed(self.seed, view);
        let stream = |t: usize| seed ^ (t as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let total = match self.budget {
            Budget::Iterations(n) => u64::from(n),
            Budget::Time(_) => u64::MAX,
        };
        let threads = self.threads as u64;
        let share = |t: u64| total / threads + u64::from(t < total % threads);
        let tallies: Vec<Tally> = if self.threads == 1 {
            vec![search.run(stream(0), total)]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..self.threads)
                    .map(|t| {
                        let search = &search;
                        scope.spawn(move || search.run(stream(t), share(t as u64)))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a search thread does not panic"))
                    .collect()
            })
        };
        let mut sum = Tally::new(candidates.len());
        for t in &tallies {
            for i in 0..candidates.len() {
                sum.visits[i] += t.visits[i];
                sum.rewards[i] += t.rewards[i];
            }
        }
        // The candidate played most; a tie to the better mean, then to the first (greedy's).
        let mean = |i: usize| sum.rewards[i] / sum.visits[i].max(1) as f64;
        let mut chosen = 0;
        for i in 1..candidates.len() {
            if (sum.visits[i], mean(i)) > (sum.visits[chosen], mean(chosen)) {
                chosen = i;
            }
        }
        self.stats = SearchStats {
            iterations: sum.visits.iter().sum(),
            candidates: candidates
                .iter()
                .enumerate()
                .map(|(i, a)| (a.clone(), sum.visits[i], mean(i)))
                .collect(),
            chosen,
        };
        candidates.into_iter().nth(chosen).expect("a candidate")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::RandomBot;
    use crate::card::Suit;
    use crate::game::Setup;
    use crate::rules::{Preset, RuleSpec, Rules};

    /// Every preset and player count its rules accept.
    fn rule_sets() -> Vec<RuleSpec> {
        let mut out = Vec::new();
        for preset in Preset::ALL {
            for players in 2..=6 {
                let spec = RuleSpec::new(preset, players);
                if Rules::new(&spec).is_ok() {
                    out.push(spec);
                }
            }
        }
        out
    }

    /// Plays a seeded game with greedy players (a random one every `random_every` actions),
    /// calling `at` with the game before every action.
    fn play(spec: RuleSpec, seed: u64, actions: usize, mut at: impl FnMut(&Game)) {
        let mut game = Game::new(&Setup::seeded(spec, seed)).unwrap();
        let mut greedy: Vec<GreedyBot> = (0..MAX_SEATS).map(|_| GreedyBot::new()).collect();
        let mut random = RandomBot::new(seed);
        for i in 0..actions {
            let Some(seat) = game.to_act() else { break };
            at(&game);
            let view = game.view(Viewer::Seat(seat));
            let legal = game.legal().unwrap();
            let action = if i % 7 == 3 {
                random.pick(&legal)
            } else {
                greedy[seat.index()].choose(&view, &legal)
            };
            game.apply(seat, &action).unwrap();
        }
    }

    // The known cards are certain: every guess, with the hints weighed or not, deals each
    // other hand its known cards and its count, the viewer its own hand, and the stock its
    // count, from the cards out of sight and nothing else, in every preset and player count.
    #[test]
    fn guesses_never_contradict_what_is_certain() {
        let mut hinted = 0;
        for (n, spec) in rule_sets().into_iter().enumerate() {
            play(spec, n as u64, 900, |game| {
                let seat = game.to_act().unwrap();
                let view = game.view(Viewer::Seat(seat));
                for infer in [true, false] {
                    let unseen = Unseen::new(&view, infer).expect("a seat's view adds up");
                    if infer
                        && unseen
                            .passed
                            .iter()
                            .chain(&unseen.discarded)
                            .any(|&m| m != 0)
                    {
                        hinted += 1;
                    }
                    let mut rng = Xoshiro256::seed_from_u64(view.stock_len.into());
                    let mut cards = Vec::new();
                    let mut hands = [CardCounts::new(); MAX_SEATS];
                    for _ in 0..4 {
                        let stock = unseen.deal_likely(&mut rng, &mut cards, &mut hands);
                        assert_eq!(stock.len(), view.stock_len as usize);
                        let mut dealt = CardCounts::from_cards(stock.iter().copied());
                        for sv in &view.seats {
                            let hand = &hands[sv.seat.index()];
                            assert_eq!(hand.len(), sv.hand_len as usize);
                            assert!(hand.contains(&sv.known), "{:?}", sv.seat);
                            if sv.seat == seat {
                                assert_eq!(Some(hand), sv.hand.as_ref());
                            } else {
                                let mut hidden = *hand;
                                hidden.remove_all(&sv.known);
                                dealt.add_all(&hidden);
                            }
                        }
                        assert_eq!(dealt, CardCounts::from_cards(unseen.cards.iter().copied()));
                    }
                }
            });
        }
        assert!(hinted > 1000, "hints seen at {hinted} decisions only");
    }

    /// A view of official 4-player rules at seat 0's draw in which seat 1 passed a natural
    /// top card and discarded another of another rank.
    fn hinted_view() -> (View, Rank, Rank) {
        for seed in 0.. {
            let mut found = None;
            play(RuleSpec::new(Preset::Official, 4), seed, 60, |game| {
                let view = game.view(Viewer::Seat(Seat(0)));
                let s1 = &view.seats[1];
                let passed = s1.passed.ranks_held() & NATURAL_RANKS;
                let discarded = s1.discarded.ranks_held() & NATURAL_RANKS & !passed;
                let rank = |m: u16| Rank::ALL[m.trailing_zeros() as usize];
                // Out of sight, cards enough of the passed rank for a guess to pair them.
                let out_of_sight = |r: Rank| {
                    Unseen::new(&view, false)
                        .map_or(0, |u| u.cards.iter().filter(|c| c.rank() == r).count())
                };
                if found.is_none()
                    && view.to_act == Some(Seat(0))
                    && view.phase == Phase::Draw
                    && passed != 0
                    && discarded != 0
                    && s1.hand_len >= 8
                    && out_of_sight(rank(passed)) >= 4
                {
                    found = Some((view.clone(), rank(passed), rank(discarded)));
                }
            });
            if let Some(f) = found {
                return f;
            }
        }
        unreachable!()
    }

    // A likelihood case: a guess that gives seat 1 a natural pair of the rank it passed is
    // PASSED_PAIR_LIKELIHOOD as likely as the same guess without; a pair of the rank it
    // discarded, DISCARDED_PAIR_LIKELIHOOD; both, the product. Without inference, all alike.
    #[test]
    fn a_pair_of_a_passed_or_discarded_rank_is_less_likely() {
        let (view, passed, discarded) = hinted_view();
        let unseen = Unseen::new(&view, true).unwrap();
        let plain = Unseen::new(&view, false).unwrap();
        let mut rng = Xoshiro256::seed_from_u64(7);
        let mut cards = Vec::new();
        let mut hands = [CardCounts::new(); MAX_SEATS];
        let _ = unseen.deal(&mut rng, &mut cards, &mut hands);
        // Seat 1 holds no card of either rank, then a pair of one, then of both.
        let pair = |r: Rank| CardCounts::from_cards([Card::new(r, Suit::Clubs); 2]);
        let mut none = hands;
        for r in [passed, discarded] {
            while let Some(c) = none[1].any_of_rank(r) {
                let _ = none[1].remove(c);
            }
        }
        let base = unseen.likelihood(&none);
        let with = |ranks: &[Rank]| {
            let mut h = none;
            for &r in ranks {
                h[1].add_all(&pair(r));
            }
            (unseen.likelihood(&h) / base, plain.likelihood(&h))
        };
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        let (p, q) = with(&[passed]);
        assert!(close(p, PASSED_PAIR_LIKELIHOOD) && close(q, 1.0), "{p} {q}");
        let (p, q) = with(&[discarded]);
        assert!(
            close(p, DISCARDED_PAIR_LIKELIHOOD) && close(q, 1.0),
            "{p} {q}"
        );
        let (p, _) = with(&[passed, discarded]);
        assert!(
            close(p, PASSED_PAIR_LIKELIHOOD * DISCARDED_PAIR_LIKELIHOOD),
            "{p}"
        );
        // Drawn with the hints, guesses give seat 1 a pair of the passed rank less often.
        let mut share = |u: &Unseen| {
            let mut rng = Xoshiro256::seed_from_u64(11);
            let hits = (0..4000)
                .filter(|_| {
                    let _ = u.deal_likely(&mut rng, &mut cards, &mut hands);
                    hands[1].rank_count(passed) >= 2
                })
                .count();
            hits as f64 / 4000.0
        };
        let (hinted, prior) = (share(&unseen), share(&plain));
        assert!(
            prior > 0.0 && hinted < prior * 0.8,
            "{hinted} against {prior}: {passed:?} {:?} {:?}",
            unseen.hidden,
            hands
        );
    }

    // Measures the likelihoods the sampler uses: in greedy self-play (a random move now and
    // then), at every decision, for each other seat and each natural rank it passed (or
    // discarded and did not pass), how often its hand truly holds a natural pair of that rank
    // (q), against how often a guess without the hints does (p). The likelihood ratio that
    // turns p into q is q(1-p) / (p(1-q)).
    #[test]
    #[ignore = "a measurement: prints the likelihoods (cargo test -p canasta-engine --lib \
                calibrate -- --ignored --nocapture)"]
    fn calibrate() {
        // (truth, prior) sums and counts, for passed then discarded ranks.
        let mut sums = [(0.0f64, 0.0f64, 0u64); 2];
        for seed in 0..300 {
            play(RuleSpec::new(Preset::Official, 4), seed, 3000, |game| {
                let seat = game.to_act().unwrap();
                let view = game.view(Viewer::Seat(seat));
                let unseen = Unseen::new(&view, true).unwrap();
                let plain = Unseen::new(&view, false).unwrap();
                let mut rng = Xoshiro256::seed_from_u64(seed);
                let mut cards = Vec::new();
                let mut hands = [CardCounts::new(); MAX_SEATS];
                let guesses: Vec<[CardCounts; MAX_SEATS]> = (0..40)
                    .map(|_| {
                        let _ = plain.deal(&mut rng, &mut cards, &mut hands);
                        hands
                    })
                    .collect();
                for sv in view.seats.iter().filter(|s| s.seat != seat) {
                    let s = sv.seat.index();
                    for (k, mask) in [unseen.passed[s], unseen.discarded[s]]
                        .into_iter()
                        .enumerate()
                    {
                        for r in (0..14).filter(|r| mask >> r & 1 != 0) {
                            let rank = Rank::ALL[r];
                            let truth = game.hand(sv.seat).rank_count(rank) >= 2;
                            let prior = guesses
                                .iter()
                                .filter(|h| h[s].rank_count(rank) >= 2)
                                .count() as f64
                                / guesses.len() as f64;
                            sums[k].0 += f64::from(u8::from(truth));
                            sums[k].1 += prior;
                            sums[k].2 += 1;
                        }
                    }
                }
            });
        }
        for (name, (truth, prior, n)) in ["passed", "discarded"].into_iter().zip(sums) {
            let (q, p) = (truth / n as f64, prior / n as f64);
            println!(
                "{name}: {n} cases, a pair held {q:.4}, guessed {p:.4}, likelihood ratio {:.3}",
                q * (1.0 - p) / (p * (1.0 - q))
            );
        }
    }

    // Measures what a time budget buys in iterations on this machine, so that iteration
    // budgets (deterministic, and unaffected by other work on the machine) can stand for time
    // budgets in the duplicate matches docs/bots.md reports: two search seats with a time
    // budget against two greedy ones, whole matches of official rules for four, every decision
    // with more than one candidate counted. Run it on an idle machine, in release.
    #[test]
    #[ignore = "a measurement: prints iterations per decision (cargo test --release -p \
                canasta-engine --lib iterations_in_a_time_budget -- --ignored --nocapture)"]
    fn iterations_in_a_time_budget() {
        for (ms, matches) in [(10, 3), (50, 2), (200, 1)] {
            let mut counts = Vec::new();
            for seed in 1..=matches {
                let setup = Setup::seeded(RuleSpec::new(Preset::Official, 4), seed);
                let mut game = Game::new(&setup).unwrap();
                let budget = Budget::Time(Duration::from_millis(ms));
                let mut search = [
                    SearchBot::new(seed, budget),
                    SearchBot::new(seed + 1, budget),
                ];
                let mut greedy = GreedyBot::new();
                let mut events = Vec::new();
                while let Some(seat) = game.to_act() {
                    let view = game.view(Viewer::Seat(seat));
                    let legal = view.legal().unwrap();
                    let action = if seat.index() % 2 == 0 {
                        let bot = &mut search[seat.index() / 2];
                        let action = bot.choose(&view, &legal);
                        if bot.stats().iterations > 0 {
                            counts.push(bot.stats().iterations);
                        }
                        action
                    } else {
                        greedy.choose(&view, &legal)
                    };
                    events.clear();
                    game.apply_into(seat, &action, &mut events).unwrap();
                }
            }
            counts.sort_unstable();
            let n = counts.len();
            let mean = counts.iter().sum::<u64>() as f64 / n as f64;
            println!(
                "{ms} ms: {n} decisions, iterations: median {}, mean {mean:.0}, 10% {}, 90% {}",
                counts[n / 2],
                counts[n / 10],
                counts[n * 9 / 10]
            );
        }
    }
}
