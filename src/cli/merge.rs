//! `facedown merge FILES…`: combines the JSON outputs of the shards of one run into the result
//! of the unsplit run.
//!
//! Every sharded command prints the same **shard envelope** with `--json`:
//!
//! ```json
//! { "tool": "facedown", "version": "0.1.0", "command": "cards search",
//!   "query": { … every option that changes the answer … },
//!   "shard": { "index": 2, "count": 3 }, "seed": null, "result": { … } }
//! ```
//!
//! `merge` checks that the files are the shards `1/K … K/K` of one run — the same tool version,
//! command, query and seed, each shard once — and hands the results to the command's own exact
//! merge (for `cards search`: `facedown_cards::search::merge`; for `cards simulate`:
//! `cards::merge_simulations`; for `dealer collusion`, `dealer cheat` and `dealer session`:
//! `dealer::merge_collusion`, `dealer::merge_cheat` and `dealer::merge_session`; for
//! `games census`:
//! `games::merge_census`). Any other command that prints envelopes is added by one arm of
//! [`run`]'s dispatch, reading its results with [`shard_results`].

use std::path::{Path, PathBuf};

use facedown::cards::search::{
    merge as merge_search, MergeError, SearchOutcome, SearchStatus, Shard,
};
use facedown_core::input::{read_text, InputError};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::cards_search::{self, QuerySpec};
use super::{cards, dealer, games, Inconclusive, UsageError};

/// The largest shard file read (a search's JSON with many protocols stays far below).
const MAX_SHARD_BYTES: u64 = 256 << 20;

/// The tool name every envelope carries.
const TOOL: &str = "facedown";

/// One shard's output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// Always `facedown`.
    pub tool: String,
    /// The version of the tool that ran the shard (shards of different versions do not merge).
    pub version: String,
    /// The command (`cards search`).
    pub command: String,
    /// Every option that changes the answer; equal in all shards of one run.
    pub query: serde_json::Value,
    /// Which shard.
    pub shard: Shard,
    /// The seed, for randomised commands.
    pub seed: Option<u64>,
    /// The command's result for this shard.
    pub result: serde_json::Value,
}

impl Envelope {
    /// The envelope of a shard's result.
    pub fn new(
        command: &str,
        query: serde_json::Value,
        shard: Shard,
        seed: Option<u64>,
        result: serde_json::Value,
    ) -> Envelope {
        Envelope {
            tool: TOOL.to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            command: command.to_owned(),
            query,
            shard,
            seed,
            result,
        }
    }
}

/// Why shard files were refused.
#[derive(Debug, thiserror::Error)]
pub enum ShardFileError {
    /// A file could not be read.
    #[error(transparent)]
    Read(#[from] InputError),
    /// The shards do not merge (see `facedown_cards::search::MergeError`).
    #[error(transparent)]
    Merge(#[from] MergeError),
    /// A file is not a shard envelope.
    #[error("{}: not a facedown shard output ({reason})", .file.display())]
    NotAnEnvelope {
        /// The file.
        file: PathBuf,
        /// What the JSON parser said.
        reason: String,
    },
    /// A file of another tool.
    #[error("{}: written by `{tool}`, not facedown", .file.display())]
    OtherTool {
        /// The file.
        file: PathBuf,
        /// Its tool.
        tool: String,
    },
    /// A file of another run: a different version, command, query, seed or number of shards.
    #[error("{}: its {field} is {got}, the first file's is {expected}: not a shard of the same run", .file.display())]
    OtherRun {
        /// The file.
        file: PathBuf,
        /// Which field differs.
        field: &'static str,
        /// The first file's value.
        expected: String,
        /// This file's.
        got: String,
    },
    /// The same shard twice.
    #[error("{}: shard {shard} was already given", .file.display())]
    Duplicate {
        /// The file.
        file: PathBuf,
        /// The shard.
        shard: Shard,
    },
    /// A shard is missing.
    #[error("shard {0} is missing")]
    Missing(Shard),
    /// A command whose shards this version cannot merge.
    #[error(
        "`{0}` outputs cannot be merged (only shards of `cards search`, `cards simulate`, \
         `dealer collusion --samples`, `dealer cheat`, `dealer session --samples`, `games census` and `games devyatka` can)"
    )]
    UnknownCommand(String),
    /// A shard's result is not what its command writes.
    #[error("{}: its result is not a {command} result ({reason})", .file.display())]
    BadResult {
        /// The file.
        file: PathBuf,
        /// The command.
        command: String,
        /// What the JSON parser said.
        reason: String,
    },
}

/// Arguments of `facedown merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The shard outputs (`--json` of each shard), in any order.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print JSON, as the unsplit command would.
    #[arg(long)]
    pub json: bool,
    /// Print work per depth (searches) as a table.
    #[arg(long)]
    pub stats: bool,
    /// Print only the `--stats` table, as CSV.
    #[arg(long, requires = "stats", conflicts_with_all = ["json", "markdown"])]
    pub csv: bool,
    /// Print the `--stats` table as Markdown.
    #[arg(long, requires = "stats", conflicts_with = "json")]
    pub markdown: bool,
}

/// Reads and checks the envelopes: one run, every shard once. Returned in shard order.
pub fn read_shards(files: &[PathBuf]) -> Result<Vec<(PathBuf, Envelope)>, ShardFileError> {
    let mut out: Vec<(PathBuf, Envelope)> = Vec::new();
    for file in files {
        let text = read_text(file, MAX_SHARD_BYTES, "a shard output")?;
        let env: Envelope =
            serde_json::from_str(&text).map_err(|e| ShardFileError::NotAnEnvelope {
                file: file.clone(),
                reason: e.to_string(),
            })?;
        if env.tool != TOOL {
            return Err(ShardFileError::OtherTool {
                file: file.clone(),
                tool: env.tool,
            });
        }
        if let Some((_, first)) = out.first() {
            same_run(file, first, &env)?;
        }
        if out.iter().any(|(_, e)| e.shard == env.shard) {
            return Err(ShardFileError::Duplicate {
                file: file.clone(),
                shard: env.shard,
            });
        }
        out.push((file.clone(), env));
    }
    out.sort_by_key(|(_, e)| e.shard.index());
    let count = out.first().map_or(0, |(_, e)| e.shard.count());
    // Distinct indices in 1..=count, sorted: the first one out of place is missing (no loop
    // over a forged count).
    let missing = (1..=out.len())
        .zip(&out)
        .find(|(i, (_, e))| e.shard.index() != *i)
        .map(|(i, _)| i)
        .or((out.len() < count).then_some(out.len() + 1));
    if let Some(index) = missing {
        return Err(ShardFileError::Missing(Shard::new(index, count)?));
    }
    Ok(out)
}

fn same_run(file: &Path, first: &Envelope, env: &Envelope) -> Result<(), ShardFileError> {
    let differs = |field: &'static str, expected: String, got: String| {
        Err(ShardFileError::OtherRun {
            file: file.to_owned(),
            field,
            expected,
            got,
        })
    };
    if env.version != first.version {
        return differs("version", first.version.clone(), env.version.clone());
    }
    if env.command != first.command {
        return differs("command", first.command.clone(), env.command.clone());
    }
    if env.query != first.query {
        return differs("query", first.query.to_string(), env.query.to_string());
    }
    if env.seed != first.seed {
        return differs(
            "seed",
            format!("{:?}", first.seed),
            format!("{:?}", env.seed),
        );
    }
    if env.shard.count() != first.shard.count() {
        let count = |s: Shard| format!("a split into {}", s.count());
        return differs("shard count", count(first.shard), count(env.shard));
    }
    Ok(())
}

/// Prints the envelope of one shard's result: what a sharded command prints with `--json`.
pub fn print_envelope(
    command: &str,
    query: serde_json::Value,
    shard: Shard,
    seed: Option<u64>,
    result: &impl Serialize,
) -> anyhow::Result<()> {
    let envelope = Envelope::new(command, query, shard, seed, serde_json::to_value(result)?);
    println!("{}", serde_json::to_string_pretty(&envelope)?);
    Ok(())
}

/// Each shard's result read as its command's result `T`, checked to be the result of the shard
/// its envelope names (`shard_of` reads the shard a result says it is).
pub fn shard_results<T: DeserializeOwned>(
    shards: &[(PathBuf, Envelope)],
    command: &str,
    shard_of: impl Fn(&T) -> Option<Shard>,
) -> Result<Vec<T>, ShardFileError> {
    let bad = |file: &Path, reason: String| ShardFileError::BadResult {
        file: file.to_owned(),
        command: command.to_owned(),
        reason,
    };
    shards
        .iter()
        .map(|(file, env)| {
            let result: T =
                serde_json::from_value(env.result.clone()).map_err(|e| bad(file, e.to_string()))?;
            if shard_of(&result) != Some(env.shard) {
                return Err(bad(
                    file,
                    format!("its result is not that of shard {}", env.shard),
                ));
            }
            Ok(result)
        })
        .collect()
}

/// Runs `facedown merge`.
pub fn run(args: MergeArgs) -> anyhow::Result<()> {
    let shards = read_shards(&args.files)?;
    let command = shards
        .first()
        .map(|(_, e)| e.command.clone())
        .unwrap_or_default();
    if command == cards_search::COMMAND {
        return merge_searches(&shards, &args);
    }
    let merge: fn(&[(PathBuf, Envelope)]) -> anyhow::Result<()> = match command.as_str() {
        cards::SIMULATE => cards::merge_simulations,
        dealer::COLLUSION => dealer::merge_collusion,
        dealer::CHEAT => dealer::merge_cheat,
        dealer::SESSION => dealer::merge_session,
        games::CENSUS => games::merge_census,
        games::DEVYATKA => games::merge_devyatka,
        _ => return Err(ShardFileError::UnknownCommand(command).into()),
    };
    if !args.json || args.stats {
        return Err(UsageError(format!(
            "`{command}` shards merge into the JSON document of the unsplit run: give --json \
             (and no --stats)"
        ))
        .into());
    }
    merge(&shards)
}

fn merge_searches(shards: &[(PathBuf, Envelope)], args: &MergeArgs) -> anyhow::Result<()> {
    let bad = |file: &Path, reason: String| ShardFileError::BadResult {
        file: file.to_owned(),
        command: cards_search::COMMAND.to_owned(),
        reason,
    };
    let (first_file, first) = &shards[0];
    let spec: QuerySpec = serde_json::from_value(first.query.clone())
        .map_err(|e| bad(first_file, format!("its query: {e}")))?;
    let outcomes = shard_results(shards, cards_search::COMMAND, |o: &SearchOutcome| o.shard)?;
    let merged = merge_search(&spec.to_query()?, outcomes)?;
    let stats = cards_search::stats_format(args.stats, args.csv, args.markdown);
    cards_search::print_outcome(&spec, &merged, args.json, stats)?;
    if merged.status == SearchStatus::Stopped {
        return Err(Inconclusive(
            "a shard stopped at its memory budget before deciding the bound".into(),
        )
        .into());
    }
    Ok(())
}
