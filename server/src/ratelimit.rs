//! Abuse limits: request rates and open watch streams per client.
//!
//! A client is a seat token, or, for calls without a token (creating, joining, listing and
//! watching as a spectator), the peer's IP address. Each client has a token bucket refilled at
//! the configured rate, with bursts of twice the rate; a request over the limit is refused with
//! RESOURCE_EXHAUSTED (`RATE_LIMITED`) and the time after which one more would pass. Watch
//! streams are counted per client as well (`TOO_MANY_WATCHERS`), and a stream's place is freed
//! when it ends.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::auth::{Token, TokenId};
use crate::errors::ApiError;

/// Buckets kept before idle ones are dropped.
const MAX_BUCKETS: usize = 100_000;

/// Who a limit applies to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    /// A call carrying a seat token, known by its fingerprint.
    Seat(TokenId),
    /// A call without a token, by the peer's IP address.
    Address(IpAddr),
}

impl Client {
    /// How a message names this client (never the token itself).
    fn describe(&self) -> String {
        match self {
            Client::Seat(_) => "this seat token".to_string(),
            Client::Address(ip) => format!("address {ip} (calls without a seat token)"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// A request-rate limiter: one token bucket per key.
#[derive(Debug)]
pub struct RateLimiter<K = TokenId> {
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<K, Bucket>>,
}

impl<K: Clone + Eq + Hash> RateLimiter<K> {
    /// A limiter allowing `rate` requests per second per key, in bursts of up to twice as many.
    pub fn new(rate: f64) -> RateLimiter<K> {
        let rate = rate.max(0.001);
        RateLimiter {
            rate,
            burst: (rate * 2.0).max(1.0),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from the key's bucket, or says how long to wait for the next one.
    pub fn take(&self, key: &K) -> Result<(), Duration> {
        let now = Instant::now();
        let mut buckets = self.buckets.lock().expect("not poisoned");
        if buckets.len() > MAX_BUCKETS {
            // Full buckets hold no state worth keeping: a new one starts full too.
            let (rate, burst) = (self.rate, self.burst);
            buckets.retain(|_, b| b.tokens + now.duration_since(b.at).as_secs_f64() * rate < burst);
        }
        let bucket = buckets.entry(key.clone()).or_insert(Bucket {
            tokens: self.burst,
            at: now,
        });
        let refilled = bucket.tokens + now.duration_since(bucket.at).as_secs_f64() * self.rate;
        bucket.tokens = refilled.min(self.burst);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        Err(Duration::from_secs_f64((1.0 - bucket.tokens) / self.rate))
    }

    /// Whether the key has a bucket: it made a request lately.
    pub fn knows(&self, key: &K) -> bool {
        self.buckets.lock().expect("not poisoned").contains_key(key)
    }

    /// The requests per second allowed.
    pub fn rate(&self) -> f64 {
        self.rate
    }
}

impl RateLimiter<TokenId> {
    /// Takes one request from the token's bucket, or refuses it with `RATE_LIMITED`.
    pub fn check(&self, token: &Token) -> Result<(), ApiError> {
        self.take(&token.id())
            .map_err(|wait| rate_limited(&Client::Seat(token.id()), self.rate, wait))
    }
}

/// RESOURCE_EXHAUSTED `RATE_LIMITED` for a client over its rate, retrying after `wait`.
pub fn rate_limited(client: &Client, rate: f64, wait: Duration) -> ApiError {
    ApiError::exhausted(
        "RATE_LIMITED",
        format!(
            "{} sends more than {rate} requests per second: wait {} ms and retry",
            client.describe(),
            wait.as_millis().max(1)
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
                "TOO_MANY_WATCHERS",
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

    #[test]
    fn bursts_then_limits_then_refills() {
        let limiter = RateLimiter::new(10.0);
        let t = Token::generate();
        for _ in 0..20 {
            limiter.check(&t).unwrap();
        }
        let err = limiter.check(&t).unwrap_err();
        assert_eq!(err.reason, "RATE_LIMITED");
        assert!(err.retry_after.unwrap() <= Duration::from_millis(100));
        assert!(!err.message.contains(t.as_str()), "the token never shows");
        // Another token has its own bucket.
        limiter.check(&Token::generate()).unwrap();
        std::thread::sleep(Duration::from_millis(120));
        limiter.check(&t).unwrap();
    }

    #[test]
    fn addresses_have_their_own_buckets() {
        let limiter: RateLimiter<IpAddr> = RateLimiter::new(1.0);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        assert_eq!(limiter.take(&a), Ok(()));
        assert_eq!(limiter.take(&a), Ok(()));
        let wait = limiter.take(&a).unwrap_err();
        assert!(wait > Duration::from_millis(900) && wait <= Duration::from_secs(1));
        assert_eq!(limiter.take(&b), Ok(()));
        let err = rate_limited(&Client::Address(a), limiter.rate(), wait);
        assert_eq!(err.reason, "RATE_LIMITED");
        assert!(err.message.contains("192.0.2.1"), "{}", err.message);
    }

    #[test]
    fn streams_are_counted_per_client_and_freed_when_dropped() {
        let limiter = StreamLimiter::new(2, 1);
        let seat = Client::Seat(Token::generate().id());
        let other = Client::Seat(Token::generate().id());
        let addr = Client::Address("192.0.2.1".parse().unwrap());
        let first = limiter.open(&seat).unwrap();
        let _second = limiter.open(&seat).unwrap();
        assert_eq!(limiter.open(&seat).unwrap_err().reason, "TOO_MANY_WATCHERS");
        let _o = limiter.open(&other).unwrap();
        let _a = limiter.open(&addr).unwrap();
        assert_eq!(limiter.open(&addr).unwrap_err().reason, "TOO_MANY_WATCHERS");
        drop(first);
        assert_eq!(limiter.count(&seat), 1);
        let _third = limiter.open(&seat).unwrap();
        assert_eq!(limiter.count(&seat), 2);
    }
}
