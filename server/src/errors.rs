//! Errors as the wire sees them: a canonical gRPC code, a message that says what to do, and a
//! `google.rpc.ErrorInfo` detail whose `reason` is a stable code (domain `canasta.v1`). The
//! reasons are listed in docs/protocol.md; bots branch on them.

use std::collections::HashMap;
use std::time::Duration;

use canasta_engine::quote::quoted;
use canasta_engine::{RuleError, RulesError, SetupError};
use canasta_proto::convert::WireError;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// The error domain of every reason.
pub const DOMAIN: &str = "canasta.v1";

/// An error of the service, before it becomes a [`Status`].
#[derive(Clone, Debug, PartialEq)]
pub struct ApiError {
    /// The gRPC code.
    pub code: Code,
    /// The stable reason.
    pub reason: &'static str,
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
    pub fn new(code: Code, reason: &'static str, message: impl Into<String>) -> ApiError {
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
    pub fn invalid(reason: &'static str, field: &str, message: impl Into<String>) -> ApiError {
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
            "GAME_NOT_FOUND",
            format!(
                "there is no game {}: list the games with ListGames",
                quoted(id)
            ),
        )
    }

    /// RESOURCE_EXHAUSTED for a limit, with when to retry.
    pub fn exhausted(
        reason: &'static str,
        message: impl Into<String>,
        retry: Duration,
    ) -> ApiError {
        ApiError {
            retry_after: Some(retry),
            ..ApiError::new(Code::ResourceExhausted, reason, message)
        }
    }

    /// Adds a metadata entry.
    pub fn with(mut self, key: &'static str, value: impl ToString) -> ApiError {
        self.metadata.push((key, value.to_string()));
        self
    }
}

impl From<RuleError> for ApiError {
    /// A rule violation: FAILED_PRECONDITION with the engine's code and message.
    fn from(e: RuleError) -> ApiError {
        ApiError::new(Code::FailedPrecondition, e.code(), e.to_string())
    }
}

impl From<WireError> for ApiError {
    fn from(e: WireError) -> ApiError {
        ApiError::invalid(e.reason, &e.field, e.to_string())
    }
}

impl From<RulesError> for ApiError {
    fn from(e: RulesError) -> ApiError {
        ApiError::invalid(e.code(), "rules", e.to_string())
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
        ApiError::invalid(e.code(), field, e.to_string())
    }
}

impl From<ApiError> for Status {
    fn from(e: ApiError) -> Status {
        let metadata: HashMap<String, String> = e
            .metadata
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let mut details = ErrorDetails::with_error_info(e.reason, DOMAIN, metadata);
        if let Some(field) = &e.field {
            details.add_bad_request_violation(field.clone(), e.message.clone());
        }
        if let Some(retry) = e.retry_after {
            details.set_retry_info(Some(retry));
        }
        Status::with_error_details(e.code, e.message, details)
    }
}

/// The reason of a status made by this service, for tests and clients.
pub fn reason_of(status: &Status) -> Option<String> {
    status.get_details_error_info().map(|i| i.reason)
}
