//! Errors of the harnesses.

use thiserror::Error;

/// What can go wrong while measuring.
#[derive(Debug, Error)]
pub enum LeakageError {
    /// The dealer rejected the parameters or a run failed.
    #[error("dealer: {0}")]
    Dealer(#[from] facedown_dealer::DealerError),
    /// Exhaustive enumeration would take too many runs.
    #[error("exact enumeration needs {runs} runs, more than the limit {limit}: use fewer cards or Monte Carlo")]
    TooManyRuns {
        /// Runs that enumeration would need (saturating).
        runs: u128,
        /// The limit.
        limit: u128,
    },
    /// The schedule does not fit the deck or the scheme.
    #[error("schedule: {0}")]
    Schedule(String),
    /// A protocol's run probabilities do not sum to one (a bug in the protocol adapter).
    #[error("run probabilities sum to {0}, not 1")]
    NotADistribution(String),
    /// The card-protocol analyzer failed.
    #[error("card protocol: {0}")]
    Cards(String),
    /// A view handed to an attack is inconsistent (wrong deck size, unknown operation …).
    #[error("view of {party}: {what}")]
    BadView {
        /// Whose view.
        party: facedown_core::PartyId,
        /// What is wrong.
        what: String,
    },
}
