//! Abuse limits: request rates and open watch streams per client.
//!
//! A call is paid for by its seat token when the token holds a seat of the game the call names
//! (the service tells, see [`crate::auth::SeatIds`]); every other call (one naming no game,
//! creating, joining, listing; a spectator's; one whose token holds no seat of the game it
//! names, made-up tokens included) is paid for by the peer's IP address. Each payer has a
//! budget refilled at the configured rate, with bursts of twice the rate (GCRA, by the
//! `governor` crate: keyed, lock-free per key); a request over it is refused with
//! RESOURCE_EXHAUSTED (`RATE_LIMITED`) and the time after which one more would pass, rounded up
//! to a whole millisecond. Budgets left full are dropped by [`RequestLimits::sweep`], which
//! [`keep_swept`] runs every [`SWEEP_PERIOD`]. Watch streams are counted per client as well
//! (`TOO_MANY_WATCHERS`), and a stream's place is freed when it ends.
//!
//! Budgets refill on tokio's clock ([`TokioClock`]), as every other time of the server (the
//! games' time controls, heartbeats, deadlines) does: a test that pauses the runtime's clock
//! sees a budget come back only when it moves the clock on.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use governor::Quota;
use governor::clock::Clock;
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::DashMapStateStore;
use tokio::sync::watch;

use crate::auth::TokenId;
use crate::errors::ApiError;
use canasta_proto::Reason;

/// How often budgets left full are dropped. A budget is full again `2 / rate` seconds after
/// its last request (2 s for the default ones); until a sweep it costs a map entry.
pub const SWEEP_PERIOD: Duration = Duration::from_secs(5);

/// Who a limit applies to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    /// A call carrying a seat token, known by its fingerprint.
    Seat(TokenId),
    /// A call paid for by the peer's IP address.
    Address(IpAddr),
}

impl Client {
    /// How a message names this client (never the token itself).
    fn describe(&self) -> String {
        match self {
            Client::Seat(_) => "this seat token".to_string(),
            Client::Address(ip) => format!(
                "address {ip} (calls without a seat token of the game they name: creating, \
                 joining, listing, spectating, made-up tokens)"
            ),
        }
    }
}

/// The quota of `rate` requests per second in bursts of twice as many (at least one): one
/// request's place comes back every `1 / rate` seconds. Rates are kept within what the quota
/// can say: at least one request in 1000 seconds, at most one a nanosecond.
fn quota(rate: f64) -> Quota {
    let rate = rate.max(0.001);
    let period = Duration::try_from_secs_f64(1.0 / rate)
        .unwrap_or(Duration::ZERO)
        .max(Duration::from_nanos(1));
    // A float-to-int `as` saturates: a huge burst becomes u32::MAX.
    let burst = NonZeroU32::new(((rate * 2.0).round() as u32).max(1)).expect("at least 1");
    Quota::with_period(period)
        .expect("a positive period")
        .allow_burst(burst)
}

/// A wait as a refusal gives it: rounded up to a whole millisecond, and at least one (a wait
/// that rounds down to nothing would tell the client to retry at once, and be refused again).
pub fn round_up_to_ms(wait: Duration) -> Duration {
    let ms = wait.as_nanos().div_ceil(1_000_000).max(1);
    Duration::from_millis(u64::try_from(ms).unwrap_or(u64::MAX))
}

/// The clock of the limiters: tokio's, which a runtime whose time is paused (tests) stops and
/// moves on at will; outside such a runtime it is the monotonic clock of the system.
#[derive(Clone, Copy, Debug, Default)]
pub struct TokioClock;

impl Clock for TokioClock {
    type Instant = std::time::Instant;

    fn now(&self) -> std::time::Instant {
        tokio::time::Instant::now().into_std()
    }
}

type Keyed<K, C> =
    governor::RateLimiter<K, DashMapStateStore<K>, C, NoOpMiddleware<<C as Clock>::Instant>>;

/// A request-rate limiter: one budget per key.
pub struct RateLimiter<K: Hash + Eq + Clone, C: Clock = TokioClock> {
    rate: f64,
    keyed: Keyed<K, C>,
}

impl<K: Hash + Eq + Clone, C: Clock> std::fmt::Debug for RateLimiter<K, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter")
            .field("rate", &self.rate)
            .field("keys", &self.keyed.len())
            .finish()
    }
}

impl<K: Hash + Eq + Clone> RateLimiter<K> {
    /// A limiter allowing `rate` requests per second per key, in bursts of up to twice as many.
    pub fn new(rate: f64) -> RateLimiter<K> {
        RateLimiter::with_clock(rate, TokioClock)
    }
}

impl<K: Hash + Eq + Clone, C: Clock> RateLimiter<K, C> {
    /// The same, on `clock` (tests drive a fake one).
    pub fn with_clock(rate: f64, clock: C) -> RateLimiter<K, C> {
        RateLimiter {
            rate,
            keyed: governor::RateLimiter::dashmap_with_clock(quota(rate), clock),
        }
    }

    /// Takes one request from the key's budget, or says how long to wait for the next one
    /// (a whole number of milliseconds, never zero).
    pub fn take(&self, key: &K) -> Result<(), Duration> {
        self.keyed
            .check_key(key)
            .map_err(|not_until| round_up_to_ms(not_until.wait_time_from(self.keyed.clock().now())))
    }

    /// Drops the budgets that are full again (as a new one would be) and gives back the room.
    pub fn sweep(&self) {
        self.keyed.retain_recent();
        self.keyed.shrink_to_fit();
    }

    /// The keys with a budget of their own (made a request lately).
    pub fn len(&self) -> usize {
        self.keyed.len()
    }

    /// True if no key has a budget of its own.
    pub fn is_empty(&self) -> bool {
        self.keyed.is_empty()
    }

    /// The requests per second allowed.
    pub fn rate(&self) -> f64 {
        self.rate
    }
}

/// The request rates of the service: one budget per seat token (`--requests-per-second`), one
/// per address (`--address-requests-per-second`).
#[derive(Debug)]
pub struct RequestLimits<C: Clock = TokioClock> {
    tokens: RateLimiter<TokenId, C>,
    addresses: RateLimiter<IpAddr, C>,
}

impl RequestLimits {
    /// Budgets of `per_token` and `per_address` requests per second.
    pub fn new(per_token: f64, per_address: f64) -> RequestLimits {
        RequestLimits::with_clock(per_token, per_address, TokioClock)
    }
}

impl<C: Clock> RequestLimits<C> {
    /// The same, on `clock`.
    pub fn with_clock(per_token: f64, per_address: f64, clock: C) -> RequestLimits<C>
    where
        C: Clone,
    {
        RequestLimits {
            tokens: RateLimiter::with_clock(per_token, clock.clone()),
            addresses: RateLimiter::with_clock(per_address, clock),
        }
    }

    /// Charges one request to a seat token, or refuses it with `RATE_LIMITED`.
    pub fn charge_token(&self, id: TokenId) -> Result<(), ApiError> {
        self.tokens
            .take(&id)
            .map_err(|wait| rate_limited(&Client::Seat(id), self.tokens.rate(), wait))
    }

    /// Charges one request to an address, or refuses it with `RATE_LIMITED`.
    pub fn charge_address(&self, ip: IpAddr) -> Result<(), ApiError> {
        self.addresses
            .take(&ip)
            .map_err(|wait| rate_limited(&Client::Address(ip), self.addresses.rate(), wait))
    }

    /// Drops the budgets that are full again.
    pub fn sweep(&self) {
        self.tokens.sweep();
        self.addresses.sweep();
    }

    /// The tokens and the addresses with a budget of their own.
    pub fn keys(&self) -> (usize, usize) {
        (self.tokens.len(), self.addresses.len())
    }
}

/// Sweeps `limits` every [`SWEEP_PERIOD`] until the server stops or drops them: a sweep walks
/// the budgets a shard of the map at a time, off the requests' path.
pub async fn keep_swept<C: Clock>(
    limits: Weak<RequestLimits<C>>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut every = tokio::time::interval(SWEEP_PERIOD);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    every.tick().await;
    loop {
        tokio::select! {
            _ = every.tick() => match limits.upgrade() {
                Some(limits) => limits.sweep(),
                None => return,
            },
            _ = shutdown.wait_for(|stopped| *stopped) => return,
        }
    }
}

/// RESOURCE_EXHAUSTED `RATE_LIMITED` for a client over its rate, retrying after `wait`
/// (rounded up to a whole millisecond).
pub fn rate_limited(client: &Client, rate: f64, wait: Duration) -> ApiError {
    let wait = round_up_to_ms(wait);
    ApiError::exhausted(
        Reason::RateLimited,
        format!(
            "{} sends more than {rate} requests per second: wait {} ms and retry",
            client.describe(),
            wait.as_millis()
        ),
        wait,
    )
}

/// Open watch streams per client, each client up to its limit.
#[derive(Debug)]
pub struct StreamLimiter {
    per_token: usize,
    per_address: usize,
    open: Arc<Mutex<HashMap<Client, usize>>>,
}

/// A place taken by one open watch stream; dropping it frees the place.
#[derive(Debug)]
pub struct StreamSlot {
    client: Client,
    open: Arc<Mutex<HashMap<Client, usize>>>,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self.open.lock().expect("not poisoned");
        if let Some(n) = open.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.client);
            }
        }
    }
}

impl StreamLimiter {
    /// At most `per_token` streams per seat token and `per_address` spectator streams per
    /// address.
    pub fn new(per_token: usize, per_address: usize) -> StreamLimiter {
        StreamLimiter {
            per_token,
            per_address,
            open: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// Takes a place for one more stream of `client`, or refuses with `TOO_MANY_WATCHERS`.
    pub fn open(&self, client: &Client) -> Result<StreamSlot, ApiError> {
        let limit = match client {
            Client::Seat(_) => self.per_token,
            Client::Address(_) => self.per_address,
        };
        let mut open = self.open.lock().expect("not poisoned");
        let n = open.entry(client.clone()).or_insert(0);
        if *n >= limit {
            return Err(ApiError::exhausted(
                Reason::TooManyWatchers,
                format!(
                    "{} has {limit} watch streams open, the most allowed: close one, then retry",
                    client.describe()
                ),
                Duration::from_secs(5),
            ));
        }
        *n += 1;
        Ok(StreamSlot {
            client: client.clone(),
            open: self.open.clone(),
        })
    }

    /// The streams `client` has open.
    pub fn count(&self, client: &Client) -> usize {
        let open = self.open.lock().expect("not poisoned");
        open.get(client).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::Token;
    use governor::clock::FakeRelativeClock;

    fn fake_limiter<K: Hash + Eq + Clone>(
        rate: f64,
    ) -> (RateLimiter<K, FakeRelativeClock>, FakeRelativeClock) {
        let clock = FakeRelativeClock::default();
        (RateLimiter::with_clock(rate, clock.clone()), clock)
    }

    #[test]
    fn bursts_then_limits_then_refills() {
        let clock = FakeRelativeClock::default();
        let limits = RequestLimits::with_clock(10.0, 1.0, clock.clone());
        let t = Token::generate();
        for _ in 0..20 {
            limits.charge_token(t.id()).unwrap();
        }
        let err = limits.charge_token(t.id()).unwrap_err();
        assert_eq!(err.reason, Reason::RateLimited);
        assert_eq!(err.retry_after, Some(Duration::from_millis(100)));
        assert!(!err.message.contains(t.as_str()), "the token never shows");
        assert!(err.message.contains("wait 100 ms"), "{}", err.message);
        // Another token has its own budget.
        limits.charge_token(Token::generate().id()).unwrap();
        // One place comes back every 100 ms, not before.
        clock.advance(Duration::from_millis(99));
        assert_eq!(
            limits.charge_token(t.id()).unwrap_err().retry_after,
            Some(Duration::from_millis(1))
        );
        clock.advance(Duration::from_millis(1));
        limits.charge_token(t.id()).unwrap();
        assert!(limits.charge_token(t.id()).is_err());
        // A full burst comes back in 2 s.
        clock.advance(Duration::from_secs(2));
        for _ in 0..20 {
            limits.charge_token(t.id()).unwrap();
        }
        assert!(limits.charge_token(t.id()).is_err());
    }

    #[test]
    fn addresses_have_their_own_budgets() {
        let clock = FakeRelativeClock::default();
        let limits = RequestLimits::with_clock(1000.0, 1.0, clock.clone());
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "2001:db8::1".parse().unwrap();
        limits.charge_address(a).unwrap();
        limits.charge_address(a).unwrap();
        let err = limits.charge_address(a).unwrap_err();
        assert_eq!(err.reason, Reason::RateLimited);
        assert_eq!(err.retry_after, Some(Duration::from_secs(1)));
        assert!(err.message.contains("192.0.2.1"), "{}", err.message);
        limits.charge_address(b).unwrap();
        clock.advance(Duration::from_secs(1));
        limits.charge_address(a).unwrap();
        assert!(limits.charge_address(a).is_err());
    }

    // The hand-rolled buckets said "retry after 0 ns" when the wait left was below what their
    // float arithmetic kept. A wait is now rounded up to a whole millisecond and never zero,
    // however little of it is left.
    #[test]
    fn a_wait_is_rounded_up_to_a_millisecond_and_never_zero() {
        // 3 a second: a place every 333.333333 ms, which no whole number of ms is.
        let (limiter, clock) = fake_limiter::<u32>(3.0);
        for _ in 0..6 {
            limiter.take(&7).unwrap();
        }
        assert_eq!(limiter.take(&7), Err(Duration::from_millis(334)));
        for left in [333_333_000u64, 333_333_332] {
            let (limiter, clock) = fake_limiter::<u32>(3.0);
            for _ in 0..6 {
                limiter.take(&7).unwrap();
            }
            clock.advance(Duration::from_nanos(left));
            assert_eq!(
                limiter.take(&7),
                Err(Duration::from_millis(1)),
                "{left} ns gone"
            );
        }
        clock.advance(Duration::from_nanos(333_333_334));
        limiter.take(&7).unwrap();
        assert_eq!(round_up_to_ms(Duration::ZERO), Duration::from_millis(1));
        assert_eq!(
            round_up_to_ms(Duration::from_nanos(1)),
            Duration::from_millis(1)
        );
        assert_eq!(
            round_up_to_ms(Duration::from_micros(5_001)),
            Duration::from_millis(6)
        );
        assert_eq!(
            round_up_to_ms(Duration::from_millis(5)),
            Duration::from_millis(5)
        );
        let err = rate_limited(&Client::Address([192, 0, 2, 1].into()), 3.0, Duration::ZERO);
        assert_eq!(err.retry_after, Some(Duration::from_millis(1)));
        assert!(err.message.contains("wait 1 ms"), "{}", err.message);
    }

    #[test]
    fn rates_below_one_and_far_above_still_make_a_quota() {
        // Half a request a second: a burst of one, then one every 2 s.
        let (limiter, clock) = fake_limiter::<u32>(0.5);
        limiter.take(&1).unwrap();
        assert_eq!(limiter.take(&1), Err(Duration::from_secs(2)));
        clock.advance(Duration::from_secs(2));
        limiter.take(&1).unwrap();
        // The tests' per-address rate: a million a second, bursts of two million.
        let q = quota(1e6);
        assert_eq!(q.replenish_interval(), Duration::from_micros(1));
        assert_eq!(q.burst_size().get(), 2_000_000);
        // Nothing panics at the ends.
        for rate in [0.0, -1.0, f64::NAN, 1e-9, 1e12, f64::INFINITY] {
            let q = quota(rate);
            assert!(q.replenish_interval() >= Duration::from_nanos(1), "{rate}");
            assert!(
                q.replenish_interval() <= Duration::from_secs(1000),
                "{rate}"
            );
        }
    }

    // Budgets are dropped once they are full again (a new one would be the same), so the maps
    // hold the keys of the last seconds only; a budget still spent is kept.
    #[test]
    fn a_sweep_drops_the_budgets_that_are_full_again() {
        let clock = FakeRelativeClock::default();
        let limits = RequestLimits::with_clock(10.0, 1.0, clock.clone());
        for i in 0..1000u32 {
            limits
                .charge_address(IpAddr::from(i.to_be_bytes()))
                .unwrap();
            limits.charge_token(Token::generate().id()).unwrap();
        }
        assert_eq!(limits.keys(), (1000, 1000));
        limits.sweep();
        assert_eq!(limits.keys(), (1000, 1000), "all spent a moment ago");
        clock.advance(Duration::from_secs(3));
        let busy: IpAddr = "192.0.2.9".parse().unwrap();
        limits.charge_address(busy).unwrap();
        limits.charge_address(busy).unwrap();
        limits.sweep();
        assert_eq!(limits.keys(), (0, 1));
        // The kept budget still holds what it spent.
        assert!(limits.charge_address(busy).is_err());
    }

    // The service's budgets refill on tokio's clock: on a paused one, a spent budget comes
    // back when the clock is moved on, to the nanosecond, and never while it stands still.
    #[tokio::test(start_paused = true)]
    async fn budgets_refill_on_tokios_clock() {
        let limits = RequestLimits::new(10.0, 1.0);
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        limits.charge_address(ip).unwrap();
        limits.charge_address(ip).unwrap();
        let wait = limits.charge_address(ip).unwrap_err().retry_after;
        assert_eq!(wait, Some(Duration::from_secs(1)));
        // A nanosecond short of the refill, the wait left is what the paused clock says (on
        // the system's clock it would be about the whole second still).
        tokio::time::advance(Duration::from_nanos(999_999_999)).await;
        assert_eq!(
            limits.charge_address(ip).unwrap_err().retry_after,
            Some(Duration::from_millis(1))
        );
        tokio::time::advance(Duration::from_nanos(1)).await;
        limits.charge_address(ip).unwrap();
        assert!(limits.charge_address(ip).is_err());
    }

    // The sweeper ends with the server, and when the limits are dropped. On a paused clock, a
    // `sleep` moves it on, every timer due on the way firing in order (the sweeper's first).
    #[tokio::test(start_paused = true)]
    async fn the_sweeper_runs_until_the_limits_go() {
        let limits = Arc::new(RequestLimits::new(10.0, 1.0));
        let (_stop, stopped) = watch::channel(false);
        let sweeper = tokio::spawn(keep_swept(Arc::downgrade(&limits), stopped));
        limits.charge_address("192.0.2.1".parse().unwrap()).unwrap();
        // Full again 2 s later, swept at the first sweep, 5 s after the start.
        tokio::time::sleep(SWEEP_PERIOD - Duration::from_millis(1)).await;
        assert_eq!(limits.keys(), (0, 1), "no sweep before its period");
        // Past the sweep (a timer due at the same instant as the test's could run after it).
        tokio::time::sleep(Duration::from_millis(2)).await;
        assert_eq!(limits.keys(), (0, 0));
        drop(limits);
        tokio::time::sleep(SWEEP_PERIOD).await;
        assert!(sweeper.is_finished());
        let (stop, stopped) = watch::channel(false);
        let limits = Arc::new(RequestLimits::new(1.0, 1.0));
        let sweeper = tokio::spawn(keep_swept(Arc::downgrade(&limits), stopped));
        stop.send(true).unwrap();
        sweeper.await.unwrap();
    }

    #[test]
    fn streams_are_counted_per_client_and_freed_when_dropped() {
        let limiter = StreamLimiter::new(2, 1);
        let seat = Client::Seat(Token::generate().id());
        let other = Client::Seat(Token::generate().id());
        let addr = Client::Address("192.0.2.1".parse().unwrap());
        let first = limiter.open(&seat).unwrap();
        let _second = limiter.open(&seat).unwrap();
        assert_eq!(
            limiter.open(&seat).unwrap_err().reason,
            Reason::TooManyWatchers
        );
        let _o = limiter.open(&other).unwrap();
        let _a = limiter.open(&addr).unwrap();
        assert_eq!(
            limiter.open(&addr).unwrap_err().reason,
            Reason::TooManyWatchers
        );
        drop(first);
        assert_eq!(limiter.count(&seat), 1);
        let _third = limiter.open(&seat).unwrap();
        assert_eq!(limiter.count(&seat), 2);
    }
}
