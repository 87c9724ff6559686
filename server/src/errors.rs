//! Errors as the wire sees them: a canonical gRPC code, a message that says what to do, and a
//! stable [`Reason`] (canasta-proto's, listed in docs/protocol.md; bots branch on it), sent both
//! as a `google.rpc.ErrorInfo` detail (domain `canasta.v1`) and as plain response metadata
//! (`canasta-reason`), which any gRPC library reads without knowing google.rpc.

use std::collections::HashMap;
use std::time::Duration;

use canasta_engine::quote::quoted;
use canasta_engine::{RuleError, RulesError, SetupError};
use canasta_proto::convert::WireError;
use canasta_proto::reason::{DOMAIN, METADATA_PREFIX, REASON_KEY, RETRY_AFTER_MS_KEY, Reason};
use tonic::metadata::{MetadataKey, MetadataMap, MetadataValue};
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// An error of the service, before it becomes a [`Status`].
#[derive(Clone, Debug, PartialEq)]
pub struct ApiError {
    /// The gRPC code.
    pub code: Code,
    /// The stable reason.
    pub reason: Reason,
    /// What went wrong and what to do instead.
    pub message: String,
    /// The request field at fault, if one is.
    pub field: Option<String>,
    /// When to retry, for limits.
    pub retry_after: Option<Duration>,
    /// Extra facts for the client (`seq` for a stale request).
    pub metadata: Vec<(&'static str, String)>,
}

impl ApiError {
    /// An error with a code, reason and message.
    pub fn new(code: Code, reason: Reason, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            reason,
            message: message.into(),
            field: None,
            retry_after: None,
            metadata: Vec::new(),
        }
    }

    /// INVALID_ARGUMENT for a field.
    pub fn invalid(reason: Reason, field: &str, message: impl Into<String>) -> ApiError {
        ApiError {
            field: Some(field.to_string()),
            ..ApiError::new(Code::InvalidArgument, reason, message)
        }
    }

    /// NOT_FOUND for a game id.
    pub fn game_not_found(id: &str) -> ApiError {
        // The id is echoed cut short: a huge one would not fit the status trailer, and the
        // client would get a transport error instead of this one.
        ApiError::new(
            Code::NotFound,
            Reason::GameNotFound,
            format!(
                "there is no game {}: list the games with ListGames",
                quoted(id)
            ),
        )
    }

    /// DATA_LOSS `BAD_LOG`: a game's stored log does not read back or does not replay, found
    /// on a restore or on a rebuild of a finished game alike (the one code of the reason).
    pub fn bad_log(message: impl Into<String>) -> ApiError {
        ApiError::new(Code::DataLoss, Reason::BadLog, message)
    }

    /// RESOURCE_EXHAUSTED for a limit, with when to retry.
    pub fn exhausted(reason: Reason, message: impl Into<String>, retry: Duration) -> ApiError {
        ApiError {
            retry_after: Some(retry),
            ..ApiError::new(Code::ResourceExhausted, reason, message)
        }
    }

    /// Adds a metadata entry (an `ErrorInfo.metadata` entry, and the response metadata
    /// `canasta-KEY`): `key` is a lowercase name such as `seq`.
    pub fn with(mut self, key: &'static str, value: impl ToString) -> ApiError {
        self.metadata.push((key, value.to_string()));
        self
    }
}

impl From<RuleError> for ApiError {
    /// A rule violation: FAILED_PRECONDITION with the engine's code and message.
    fn from(e: RuleError) -> ApiError {
        ApiError::new(Code::FailedPrecondition, Reason::from(&e), e.to_string())
    }
}

impl From<WireError> for ApiError {
    fn from(e: WireError) -> ApiError {
        ApiError::invalid(e.reason, &e.field, e.to_string())
    }
}

impl From<RulesError> for ApiError {
    fn from(e: RulesError) -> ApiError {
        ApiError::invalid(Reason::from(&e), "rules", e.to_string())
    }
}

impl From<SetupError> for ApiError {
    fn from(e: SetupError) -> ApiError {
        let field = match e {
            SetupError::Rules(_) => "rules",
            SetupError::CardOrder { .. } => "card_orders",
            SetupError::FirstDealer { .. } => "first_dealer",
            SetupError::StartScores { .. } | SetupError::StartScoreRange { .. } => "start_scores",
        };
        ApiError::invalid(Reason::from(&e), field, e.to_string())
    }
}

impl From<ApiError> for Status {
    fn from(e: ApiError) -> Status {
        let info: HashMap<String, String> = e
            .metadata
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let mut details = ErrorDetails::with_error_info(e.reason.as_str(), DOMAIN, info);
        if let Some(field) = &e.field {
            details.add_bad_request_violation(field.clone(), e.message.clone());
        }
        if let Some(retry) = e.retry_after {
            details.set_retry_info(Some(retry));
        }
        let metadata = plain_metadata(&e);
        Status::with_error_details_and_metadata(e.code, e.message, details, metadata)
    }
}

/// What a status says besides its details, as plain ASCII metadata, for the clients whose
/// library hands the details over as raw bytes: the reason, the retry delay, and each
/// `ErrorInfo.metadata` entry under `canasta-` (docs/protocol.md, "Errors").
fn plain_metadata(e: &ApiError) -> MetadataMap {
    let mut m = MetadataMap::new();
    m.insert(REASON_KEY, MetadataValue::from_static(e.reason.as_str()));
    if let Some(retry) = e.retry_after {
        m.insert(
            RETRY_AFTER_MS_KEY,
            MetadataValue::from(retry_after_ms(retry)),
        );
    }
    for (key, value) in &e.metadata {
        // Keys are the server's own names and values its numbers: both always valid, but a
        // bad one would be left out of the metadata (the ErrorInfo still has it), never panic.
        let key = MetadataKey::from_bytes(format!("{METADATA_PREFIX}{key}").as_bytes());
        if let (Ok(key), Ok(value)) = (key, MetadataValue::try_from(value.as_str())) {
            m.insert(key, value);
        }
    }
    m
}

/// A retry delay as the wire gives it outside RetryInfo: whole milliseconds, rounded up, at
/// least 1 (a wait under a millisecond is still a wait: 0 would say none was given).
pub fn retry_after_ms(retry: Duration) -> u64 {
    u64::try_from(retry.as_nanos().div_ceil(1_000_000))
        .unwrap_or(u64::MAX)
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use canasta_proto::reason::reason_of;

    #[test]
    fn a_status_carries_its_reason_as_a_detail_and_as_plain_metadata() {
        let stale = ApiError::new(Code::Aborted, Reason::StaleSeq, "moved on").with("seq", 42);
        let status = Status::from(stale);
        assert_eq!(status.code(), Code::Aborted);
        assert_eq!(reason_of(&status), Some(Reason::StaleSeq));
        let info = status.get_details_error_info().expect("an ErrorInfo");
        assert_eq!(
            (info.reason.as_str(), info.domain.as_str()),
            ("STALE_SEQ", DOMAIN)
        );
        assert_eq!(info.metadata["seq"], "42");
        let m = status.metadata();
        assert_eq!(m.get("canasta-reason").unwrap(), "STALE_SEQ");
        assert_eq!(m.get("canasta-seq").unwrap(), "42");
        assert!(m.get("canasta-retry-after-ms").is_none());

        let limited = ApiError::exhausted(
            Reason::RateLimited,
            "slow down",
            Duration::from_micros(1500),
        );
        let status = Status::from(limited);
        assert_eq!(
            status.metadata().get("canasta-retry-after-ms").unwrap(),
            "2",
            "rounded up"
        );
        assert_eq!(
            status.get_details_retry_info().unwrap().retry_delay,
            Some(Duration::from_micros(1500))
        );
    }

    #[test]
    fn retry_delays_round_up_to_whole_milliseconds() {
        assert_eq!(retry_after_ms(Duration::ZERO), 1, "a delay is given");
        assert_eq!(retry_after_ms(Duration::from_nanos(1)), 1);
        assert_eq!(retry_after_ms(Duration::from_millis(250)), 250);
        assert_eq!(retry_after_ms(Duration::MAX), u64::MAX);
    }
}
