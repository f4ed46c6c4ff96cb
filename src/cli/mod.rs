//! Command-line interface: one module per strand, each owning its subcommands.

pub mod card_game;
pub mod cards;
mod cards_input;
pub mod cards_private;
pub mod cards_search;
pub mod children;
pub mod compare;
pub mod dealer;
pub mod game_session;
pub mod games;
pub mod merge;
pub mod net;
pub mod output;
pub mod party_table;
pub mod poker;
pub mod report;
pub mod serve;
pub mod table;

use clap::{Parser, Subcommand};

/// facedown: research toolkit for protocols with face-down cards.
///
/// With no subcommand, prints the headline report (every built-in card protocol analyzed, then
/// every workload on every face-down table compared).
#[derive(Debug, Parser)]
#[command(
    name = "facedown",
    version,
    about,
    long_about = None,
    after_help = "Examples:\n  facedown                      the headline report\n  facedown --json > report.json the same report as one JSON document\n  facedown cards analyze five-card-trick\n  facedown completions bash > /etc/bash_completion.d/facedown\n\nConventions (seeds, JSON fields, exit statuses 0 ok, 1 error, 2 usage, 3 a failed check): docs/cli.md"
)]
pub struct Cli {
    /// What to run; the headline report when omitted.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The headline report's output format.
    #[command(flatten)]
    pub output: table::OutputArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Card-based protocols: list, analyze, check, fmt, simulate, trace, tree, search.
    Cards(cards::Args),
    /// The permutation-sharing dealer: deal, audit, and the leakage, collusion and cheat
    /// harnesses.
    Dealer(dealer::Args),
    /// Elliptic-curve mental poker: deal, bench.
    Poker(poker::Args),
    /// Every workload on every face-down table (ideal, dealer, encrypted), side by side.
    Compare(compare::Args),
    /// Generate a static X25519 key pair for a networked player.
    #[command(after_help = "Example: facedown keygen --out player1.key")]
    Keygen(net::KeygenArgs),
    /// Run one networked player (TCP with Noise_KK) from a roster.
    #[command(
        after_help = "Example: facedown party --roster parties.toml --id 1 --key player1.key --backend dealer --workload ninety-nine\n\nA whole game (every player gives the same flags): facedown party --roster parties.toml --id 1 --key player1.key --backend poker --game ninety-nine --seed 7"
    )]
    Party(net::PartyArgs),
    /// Run N networked players as processes on 127.0.0.1 and show every view and the cost.
    #[command(
        after_help = "Example: facedown play-local --players 3 --backend dealer --workload five-card-trick --input 1,1 --seed 7\n\nA whole game of Ninety-Nine, player 2 revoking once: facedown play-local --players 3 --backend poker --game ninety-nine --cheat 2:revoke --seed 7\n\nYou at seat 1, two bots: facedown play-local --players 3 --backend dealer --game ninety-nine --interactive 1 --timeout-ms 600000"
    )]
    PlayLocal(net::PlayLocalArgs),
    /// The games of the seeds: rules, bots, exact solvers, the seeds' claims recomputed.
    Games(games::Args),
    /// Combine the JSON outputs of the shards of one run (`--shard I/K`) into its result.
    #[command(
        after_help = "Example: for i in 1 2 3; do facedown cards search --deck ♣♣♥♥ --function xor --committed --max-steps 2 --shard $i/3 --json > s$i.json; done; facedown merge s1.json s2.json s3.json"
    )]
    Merge(merge::MergeArgs),
    /// The classroom in the browser: the protocol room, served on loopback by default.
    #[command(
        after_help = "Example: facedown serve --port 8080   (then open http://127.0.0.1:8080/)\n         facedown serve --bind 0.0.0.0 --port 8080   (every student on the room's network)"
    )]
    Serve(serve::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = "Example: facedown completions zsh > ~/.zfunc/_facedown")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// A command that ran and printed what it knows but could not decide its question (a search
/// stopped by its memory budget): the process exits with status 3.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Inconclusive(pub String);

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        None => report::run(cli.output),
        Some(Command::Cards(args)) => cards::run(args),
        Some(Command::Dealer(args)) => dealer::run(args),
        Some(Command::Poker(args)) => poker::run(args),
        Some(Command::Compare(args)) => compare::run(args),
        Some(Command::Keygen(args)) => net::keygen(args),
        Some(Command::Party(args)) => {
            // A person's seat reads his moves from standard input, so it cannot watch it.
            if args.game.session.interactive != Some(args.id) {
                children::exit_with_parent_if_asked();
            }
            net::party(args)
        }
        Some(Command::PlayLocal(args)) => net::play_local(args),
        Some(Command::Games(args)) => games::run(args),
        Some(Command::Merge(args)) => merge::run(args),
        Some(Command::Serve(args)) => serve::run(args),
        Some(Command::Completions { shell }) => {
            use clap::CommandFactory;
            let mut cmd = Cli::command();
            clap_complete::generate(shell, &mut cmd, "facedown", &mut std::io::stdout());
            Ok(())
        }
    }
}

pub use output::{exit_status, CheckFailed, Diagnostic, UsageError};

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
