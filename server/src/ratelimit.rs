//! Request rate per seat token: a token bucket for each, refilled at the configured rate, with
//! bursts of twice the rate. A request over the limit is refused with RESOURCE_EXHAUSTED and the
//! time after which one more would pass.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::auth::Token;
use crate::errors::ApiError;

/// Buckets kept before idle ones are dropped.
const MAX_BUCKETS: usize = 100_000;

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The limiter.
#[derive(Debug)]
pub struct RateLimiter {
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<Token, Bucket>>,
}

impl RateLimiter {
    /// A limiter allowing `rate` requests per second per token.
    pub fn new(rate: f64) -> RateLimiter {
        let rate = rate.max(0.001);
        RateLimiter {
            rate,
            burst: (rate * 2.0).max(1.0),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from the token's bucket, or says when to retry.
    pub fn check(&self, token: &Token) -> Result<(), ApiError> {
        let now = Instant::now();
        let mut buckets = self.buckets.lock().expect("not poisoned");
        if buckets.len() > MAX_BUCKETS {
            let (rate, burst) = (self.rate, self.burst);
            buckets.retain(|_, b| b.tokens + now.duration_since(b.at).as_secs_f64() * rate < burst);
        }
        let bucket = buckets.entry(token.clone()).or_insert(Bucket {
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
        let wait = Duration::from_secs_f64((1.0 - bucket.tokens) / self.rate);
        Err(ApiError::exhausted(
            "RATE_LIMITED",
            format!(
                "this seat sends more than {} requests per second: wait {} ms and retry",
                self.rate,
                wait.as_millis().max(1)
            ),
            wait,
        ))
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
        // Another token has its own bucket.
        limiter.check(&Token::generate()).unwrap();
        std::thread::sleep(Duration::from_millis(120));
        limiter.check(&t).unwrap();
    }
}
