//! A saved game log (`games play --save`), read for the rule audit.
//!
//! An audit that passes a log vouches for everything the log says. So a log is read strictly:
//! a field the format does not have ([`LogError::UnknownField`]), a field the game's variant
//! gives no meaning to ([`LogError::Inapplicable`]: a trump stack outside Eighteen
//! Ninety-Nine, a trump the deal turns up itself, …) and a series without deals
//! ([`LogError::NoDeals`]) are refused, never ignored.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::chopsticks::Chopsticks;
use crate::devyatka::Devyatka;
use crate::game::Log;
use crate::golf::{self, Golf};
use crate::ninety_nine::{NinetyNine, SeriesLog};

/// A saved log, tagged with what it records.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Record {
    /// One deal of Ninety-Nine.
    NinetyNine(Log<NinetyNine>),
    /// Deals of Ninety-Nine in series.
    NinetyNineSeries(SeriesLog),
    /// One game of Девятка.
    Devyatka(Log<Devyatka>),
    /// One round of Golf.
    Golf(Log<Golf>),
    /// A game of Golf: its rounds.
    GolfMatch(golf::MatchLog),
    /// One game of Chopsticks.
    Chopsticks(Log<Chopsticks>),
}

/// A field that the game's variant gives no meaning to, set to something other than its
/// neutral value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize)]
#[error("`{field}` has no meaning in {variant}: {why}")]
pub struct InapplicableField {
    /// The field, as the log names it.
    pub field: &'static str,
    /// The variant (or rules) of the game.
    pub variant: String,
    /// Why the variant ignores it.
    pub why: &'static str,
}

/// Why a saved log cannot be audited.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The text is not a log of any kind this crate writes.
    #[error("not a saved game log: {0}")]
    NotALog(#[from] serde_json::Error),
    /// A field the log format does not have (`path` is where: `deals[0].setup.trumps`).
    #[error("the log has a field `{path}` that its format does not have")]
    UnknownField {
        /// Where the field is, from the log's top.
        path: String,
    },
    /// A field the variant gives no meaning to (`path` is where it is, its name last).
    #[error("`{path}` has no meaning in {}: {}", field.variant, field.why)]
    Inapplicable {
        /// Where the field is, from the log's top: `deals[0].setup.trump`.
        path: String,
        /// The field and why it does not apply.
        field: InapplicableField,
    },
    /// A series with no deals: nothing to audit, and nothing played.
    #[error("the series has no deals")]
    NoDeals,
}

impl Record {
    /// Reads a saved log strictly (see the [module docs](self)).
    pub fn from_json(text: &str) -> Result<Record, LogError> {
        let given: Value = serde_json::from_str(text)?;
        let record: Record = serde_json::from_value(given.clone())?;
        if let Some(path) = unknown_field(&given, &serde_json::to_value(&record)?, "") {
            return Err(LogError::UnknownField { path });
        }
        record.check_fields()?;
        Ok(record)
    }

    /// Refuses a field the game's variant ignores, and a series without deals.
    pub fn check_fields(&self) -> Result<(), LogError> {
        match self {
            Record::NinetyNine(log) => refuse("setup", log.setup.inapplicable_field()),
            Record::NinetyNineSeries(log) => log.check_fields(),
            Record::Golf(log) => refuse("setup.rules", log.setup.rules.inapplicable_field()),
            Record::GolfMatch(log) => refuse("rules", log.rules.inapplicable_field()),
            Record::Devyatka(_) | Record::Chopsticks(_) => Ok(()),
        }
    }
}

/// [`LogError::Inapplicable`] for `field`, found in the object at `at`, if there is one.
pub(crate) fn refuse(at: &str, field: Option<InapplicableField>) -> Result<(), LogError> {
    match field {
        None => Ok(()),
        Some(field) => Err(LogError::Inapplicable {
            path: format!("{at}.{}", field.field),
            field,
        }),
    }
}

/// The first key of `given` that `kept` (the same log read and written again) does not have:
/// a field the reader ignored.
fn unknown_field(given: &Value, kept: &Value, path: &str) -> Option<String> {
    match (given, kept) {
        (Value::Object(given), Value::Object(kept)) => given.iter().find_map(|(key, value)| {
            let here = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            match kept.get(key) {
                None => Some(here),
                Some(k) => unknown_field(value, k, &here),
            }
        }),
        (Value::Array(given), Value::Array(kept)) => given
            .iter()
            .zip(kept)
            .enumerate()
            .find_map(|(i, (g, k))| unknown_field(g, k, &format!("{path}[{i}]"))),
        _ => None,
    }
}
