//! Command-line interface: one module per strand, each owning its subcommands.

pub mod cards;
pub mod cards_search;
pub mod children;
pub mod compare;
pub mod dealer;
pub mod merge;
pub mod net;
pub mod poker;
pub mod report;

use clap::{Parser, Subcommand};

/// facedown: research toolkit for protocols with face-down cards.
///
/// With no subcommand, prints the headline report (every built-in card protocol analyzed).
#[derive(Debug, Parser)]
#[command(name = "facedown", version, about, long_about = None)]
pub struct Cli {
    /// What to run; the headline report when omitted.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Print the headline report as JSON.
    #[arg(long, global = false)]
    pub json: bool,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Card-based protocols: list, analyze, check, fmt, simulate, trace, tree, search.
    Cards(cards::Args),
    /// The permutation-sharing dealer: deal, audit.
    Dealer(dealer::Args),
    /// Elliptic-curve mental poker: deal, bench.
    Poker(poker::Args),
    /// Every workload on every face-down table (ideal, dealer, encrypted), side by side.
    Compare(compare::Args),
    /// Generate a static X25519 key pair for a networked player.
    Keygen(net::KeygenArgs),
    /// Run one networked player (TCP with Noise_KK) from a roster.
    Party(net::PartyArgs),
    /// Run N networked players as processes on 127.0.0.1 and show every view and the cost.
    PlayLocal(net::PlayLocalArgs),
    /// Combine the JSON outputs of the shards of one run (`--shard I/K`) into its result.
    Merge(merge::MergeArgs),
}

/// A command that ran and printed what it knows but could not decide its question (a search
/// stopped by its memory budget): the process exits with status 3.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Inconclusive(pub String);

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        None => report::run(cli.json),
        Some(Command::Cards(args)) => cards::run(args),
        Some(Command::Dealer(args)) => dealer::run(args),
        Some(Command::Poker(args)) => poker::run(args),
        Some(Command::Compare(args)) => compare::run(args),
        Some(Command::Keygen(args)) => net::keygen(args),
        Some(Command::Party(args)) => {
            children::exit_with_parent_if_asked();
            net::party(args)
        }
        Some(Command::PlayLocal(args)) => net::play_local(args),
        Some(Command::Merge(args)) => merge::run(args),
    }
}

/// A check that ran and did not hold (`cards check`, `cards analyze --expect`, `cards fmt
/// --check`): exit status 3, so that a CI can tell it from an error (1) and a usage error (2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CheckFailed(pub String);

/// An error already rendered with its context (a parse error under its source line): printed
/// as it is, exit status 1.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Diagnostic(pub String);

/// The exit status for an error: 3 for a failed check, 1 otherwise (clap's usage errors exit
/// 2 before any command runs).
pub fn exit_status(err: &anyhow::Error) -> u8 {
    if err.downcast_ref::<CheckFailed>().is_some() {
        3
    } else {
        1
    }
}

/// Card numbers separated by spaces, or `(none)`.
pub(crate) fn cards_text(cards: &[u16]) -> String {
    if cards.is_empty() {
        return "(none)".into();
    }
    cards
        .iter()
        .map(u16::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}
