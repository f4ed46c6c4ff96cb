//! The game rows of the comparison over TCP on loopback: each run is `facedown play-local
//! --game …` started from this executable, one process per player (and the table process on
//! the ideal table), so the wall time, the CPU of every process, and the messages, bytes and
//! rounds are those of real processes over TCP with Noise.
//!
//! The CPU is read from the kernel's account of this process's finished children (Linux:
//! `/proc/self/stat`, the children's user and system time, in clock ticks of 10 ms), which
//! covers `play-local` and every process it waited for.

use std::process::Command;
use std::time::{Duration, Instant};

use facedown_core::Cost;
use serde::Serialize;
use serde_json::Value;

use super::games::{Game, GameEntry, GameRun};
use super::Backend;
use crate::table_golf_devyatka::CardGame;

/// Where the comparison's games are played (`facedown compare --network`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Network {
    /// Every player on its own thread over the in-memory network (the default).
    #[default]
    Memory,
    /// Every player in its own process over TCP on loopback (`play-local`).
    Tcp,
}

/// Why a TCP row cannot be measured where the kernel does not give the children's CPU: a row
/// with a CPU of zero would be a number nobody should trust.
const NO_CHILD_CPU: &str =
    "the CPU of the player processes is read from /proc/self/stat, which this system does not \
     have (Linux only): use --network memory";

/// The CPU time of this process's waited-for children so far (user + system), where the
/// kernel says it.
fn children_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (which is in parentheses and may hold spaces).
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 16 and 17 of proc(5) (cutime, cstime) are the 14th and 15th after the name.
    let ticks: u64 = [13, 14]
        .iter()
        .map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum::<Option<u64>>()?;
    Some(Duration::from_millis(ticks * 10))
}

fn backend_name(backend: Backend) -> &'static str {
    match backend {
        Backend::Ideal => "ideal",
        Backend::Dealer => "dealer",
        Backend::Encrypted => "poker",
    }
}

/// The arguments of `play-local` that play `entry` once on `backend` from `seed`.
fn play_local_args(entry: &GameEntry, backend: Backend, seed: u64) -> Vec<String> {
    let mut args: Vec<String> = [
        "play-local",
        "--backend",
        backend_name(backend),
        "--players",
        &entry.players.to_string(),
        "--seed",
        &seed.to_string(),
        "--timeout-ms",
        "600000",
        "--json",
        "--game",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut push = |words: &[&str]| args.extend(words.iter().map(|w| w.to_string()));
    match entry.game {
        Game::NinetyNine { variant, length } => {
            push(&["ninety-nine", "--variant", variant.name()]);
            if let facedown_games::ninety_nine::Length::Deals(d) = length {
                push(&["--deals", &d.to_string()]);
            }
        }
        // The comparison's Golf is the nine-card game (`play-local`'s default layout).
        Game::Card(CardGame::Golf(rules)) => push(&["golf", "--deals", &rules.rounds.to_string()]),
        Game::Card(CardGame::Devyatka) => push(&["devyatka"]),
    }
    args
}

/// Deals, tricks (or moves said) and the hidden cards the audit turned, from one player's
/// view in `play-local`'s JSON.
fn shape(game: Game, view: &Value) -> (u64, u64, u64) {
    let g = &view["game"];
    let len = |v: &Value| v.as_array().map_or(0, Vec::len) as u64;
    match game {
        Game::NinetyNine { .. } => {
            let hands = g["hands"].as_array().cloned().unwrap_or_default();
            let tricks = hands.iter().filter_map(|h| h["tricks"].as_u64()).sum();
            let silent: u64 = hands
                .iter()
                .filter_map(|h| h["outcome"]["shown_bids"].as_array())
                .map(|b| b.iter().filter(|x| x.is_null()).count() as u64)
                .sum();
            (hands.len() as u64, tricks, 3 * silent)
        }
        Game::Card(CardGame::Golf(_)) => {
            let rounds = g["rounds"].as_array().cloned().unwrap_or_default();
            let said = rounds.iter().map(|r| len(&r["said"])).sum();
            (rounds.len() as u64, said, 0)
        }
        Game::Card(CardGame::Devyatka) => {
            let holds = g["outcome"]["holds"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            (
                1,
                len(&g["said"]),
                holds.iter().filter_map(Value::as_u64).sum(),
            )
        }
    }
}

/// One run over TCP: what it cost, its wall time and the CPU of every process.
pub struct TcpRun {
    /// The game's size and cost (messages and bytes of every process, the table's included).
    pub run: GameRun,
    /// Wall time of the whole `play-local`.
    pub wall: Duration,
    /// CPU of `play-local` and every process it started.
    pub cpu: Duration,
}

/// Plays `entry` once on `backend` from `seed` as processes over TCP; a run that fails, that
/// blames anyone or whose players disagree is an error saying so.
pub fn play_once(entry: &GameEntry, backend: Backend, seed: u64) -> Result<TcpRun, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find facedown: {e}"))?;
    let (start, before) = (Instant::now(), children_cpu().ok_or(NO_CHILD_CPU)?);
    let out = Command::new(exe)
        .args(play_local_args(entry, backend, seed))
        .output()
        .map_err(|e| format!("cannot start play-local: {e}"))?;
    let wall = start.elapsed();
    let cpu = children_cpu().ok_or(NO_CHILD_CPU)?.saturating_sub(before);
    let doc: Value = serde_json::from_slice(&out.stdout).map_err(|_| {
        let err = String::from_utf8_lossy(&out.stderr);
        format!(
            "play-local failed: {}",
            err.trim().lines().last().unwrap_or("")
        )
    })?;
    if !out.status.success() || doc["agreed"] != true || !doc["offender"].is_null() {
        return Err(format!(
            "an honest game over TCP ended with exit {:?}, offender {}, errors {}",
            out.status.code(),
            doc["offender"],
            doc["errors"]
        ));
    }
    let view = doc["views"].get(0).ok_or("play-local reported no player")?;
    let (deals, tricks, hidden_opened) = shape(entry.game, view);
    let get = |k: &str| doc["cost"][k].as_u64().unwrap_or(0);
    let run = GameRun {
        cost: Cost {
            messages: get("messages"),
            bytes: get("bytes"),
            rounds: get("rounds"),
        },
        deals,
        tricks,
        hidden_opened,
        busiest: None,
    };
    Ok(TcpRun { run, wall, cpu })
}
