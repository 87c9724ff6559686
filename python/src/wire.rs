//! The protocol's messages (`canasta.v1`, as serialized protobuf bytes) to and from the
//! package's objects, for the network client (`canasta.client`): every conversion is
//! `canasta_proto::convert`'s, the same code the server and the `canasta` client use, so a
//! view read from the wire is the engine's own view and an action the engine's own action.

use canasta_engine::Rules;
use canasta_proto::convert::{
    WireError, action_from_wire, action_to_wire, record_from_wire, rules_from_wire, rules_to_wire,
    view_from_wire,
};
use canasta_proto::reason::Reason;
use canasta_proto::v1;
use prost::Message;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::objects::View;
use crate::{Game, PyAction, error, setup_error, spec_from};

/// A message that does not convert, raised as `canasta.errors.WireError` with its reason.
fn wire_error(py: Python<'_>, e: &WireError) -> PyErr {
    error(py, "WireError", (e.reason.as_str(), e.to_string()))
}

/// Bytes that are not the message they should be.
fn decode<M: Message + Default>(py: Python<'_>, bytes: &[u8], what: &str) -> PyResult<M> {
    M::decode(bytes).map_err(|e| {
        error(
            py,
            "WireError",
            (
                Reason::MalformedMessage.as_str(),
                format!("{what}: not a serialized canasta.v1 message of its type ({e})"),
            ),
        )
    })
}

/// The engine's rules of a serialized `canasta.v1.RuleSet`.
fn rules_of(py: Python<'_>, rules: &[u8]) -> PyResult<Rules> {
    let rules: v1::RuleSet = decode(py, rules, "rules")?;
    let spec = rules_from_wire(&rules).map_err(|e| wire_error(py, &e))?;
    Rules::new(&spec).map_err(|e| setup_error(py, &canasta_engine::SetupError::Rules(e)))
}

/// A serialized `canasta.v1.GameView` as the package's `View`, for a game of the rules of the
/// serialized `canasta.v1.RuleSet` `rules` (its `GameSummary.rules`).
#[pyfunction]
pub fn view_from_wire_bytes(py: Python<'_>, view: &[u8], rules: &[u8]) -> PyResult<View> {
    let rules = rules_of(py, rules)?;
    let wire: v1::GameView = decode(py, view, "view")?;
    view_from_wire(&wire, rules)
        .map(View::from)
        .map_err(|e| wire_error(py, &e))
}

/// An action (an `Action` or its notation) as a serialized `canasta.v1.Action`.
#[pyfunction]
pub fn action_to_wire_bytes<'py>(
    py: Python<'py>,
    action: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let action = PyAction::from_any(py, action)?;
    Ok(PyBytes::new(py, &action_to_wire(&action).encode_to_vec()))
}

/// A serialized `canasta.v1.Action` as an `Action`.
#[pyfunction]
pub fn action_from_wire_bytes(py: Python<'_>, action: &[u8]) -> PyResult<PyAction> {
    let wire: v1::Action = decode(py, action, "action")?;
    action_from_wire(&wire)
        .map(|action| PyAction { action })
        .map_err(|e| wire_error(py, &e))
}

/// A rule set (a preset's name, the players and option overrides) as a serialized
/// `canasta.v1.RuleSet`, checked by the engine first (a refusal is `SetupRefused`).
#[pyfunction]
#[pyo3(signature = (preset, players, options = None))]
pub fn rules_to_wire_bytes<'py>(
    py: Python<'py>,
    preset: &str,
    players: u8,
    options: Option<std::collections::BTreeMap<String, String>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let spec = spec_from(py, preset, players, options)?;
    Rules::new(&spec).map_err(|e| setup_error(py, &canasta_engine::SetupError::Rules(e)))?;
    Ok(PyBytes::new(py, &rules_to_wire(&spec).encode_to_vec()))
}

/// A serialized `canasta.v1.GameRecord` (ExportGame's) replayed: the game as it stands after
/// the record's actions, as `Game.replay` gives it from the record's JSON form.
#[pyfunction]
pub fn game_from_wire_record(py: Python<'_>, record: &[u8]) -> PyResult<Game> {
    let wire: v1::GameRecord = decode(py, record, "record")?;
    let (setup, actions) = record_from_wire(&wire).map_err(|e| wire_error(py, &e))?;
    Game::replay_setup(py, setup, &actions)
}

/// Every reason the service may give, as the wire spells it, in the order of
/// `docs/protocol.md`: the source of `canasta.Reason`.
#[pyfunction]
pub fn reasons() -> Vec<&'static str> {
    Reason::ALL.iter().map(|r| r.as_str()).collect()
}

/// Adds the functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(view_from_wire_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(action_to_wire_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(action_from_wire_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(rules_to_wire_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(game_from_wire_record, m)?)?;
    m.add_function(wrap_pyfunction!(reasons, m)?)?;
    m.add("REASON_KEY", canasta_proto::reason::REASON_KEY)?;
    m.add(
        "RETRY_AFTER_MS_KEY",
        canasta_proto::reason::RETRY_AFTER_MS_KEY,
    )?;
    Ok(())
}
