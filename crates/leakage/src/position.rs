//! The messages of a deal, one by one: where a deviation can happen, and what the deviating
//! player knows when he sends each message.
//!
//! A player's value messages are numbered in sending order (the `nth` of
//! [`facedown_dealer::Deviation`]); each belongs to one opening (its `op`), one hop of that
//! opening's path and one phase of the schedule. The driver runs a phase as one batch in rounds:
//! every message of hop `h` is delivered before any of hop `h + 1`. So before sending a message
//! of hop `h` in phase `f`, a player knows the cards he learned in the phases before `f`, and in
//! phase `f` the cards whose last message reached him at a hop below `h` — the last player, for
//! one, computes every public card of a batch before he announces the first of them.
//!
//! [`sweep`] runs a strategy of [`crate::strategy`] at every message of every player: at which
//! messages each deviation reaches its goal, is visible during play, and who is named.
//!
//! The scheme played is the permutation-sharing dealer \[perm-sharing-dealer\].

use facedown_cards::search::{MergeError, Shard, Trials};
use facedown_core::rng::trial_rng;
use facedown_core::PartyId;
use facedown_dealer::{Body, Learned, Recipient};
use serde::{Deserialize, Serialize};

use crate::dealer::{play_schedule, Played, Schedule};
use crate::error::LeakageError;
use crate::strategy::{merge_rows, Strategy, StrategyRow};

/// One value message of one player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// The sender.
    pub player: u16,
    /// Its index among his value messages (the deviation's `@K`).
    pub nth: usize,
    /// The opening it belongs to.
    pub op: u32,
    /// The hop of the opening's path.
    pub hop: u16,
    /// The position the opening opens.
    pub position: u16,
    /// The schedule's phase.
    pub phase: String,
    /// Its recipient: `everyone` or `player P`.
    pub to: String,
}

/// The phase of each operation: operations are numbered in phase order, as the driver runs
/// them.
fn phase_of_ops(schedule: &Schedule) -> Vec<usize> {
    schedule
        .phases
        .iter()
        .enumerate()
        .flat_map(|(f, (_, ops))| std::iter::repeat_n(f, ops.len()))
        .collect()
}

/// Every value message `p` sends in the game `g`, in sending order.
pub fn messages_of(schedule: &Schedule, g: &Played, p: PartyId) -> Vec<Message> {
    let phases = phase_of_ops(schedule);
    let positions = operation_positions(g);
    g.finished.views[p.index()]
        .sent
        .iter()
        .filter_map(|e| match e.body {
            Body::Value { op, hop, .. } => Some((e.to, op, hop)),
            _ => None,
        })
        .enumerate()
        .map(|(nth, (to, op, hop))| {
            let phase = phases.get(op as usize).copied().unwrap_or(0);
            Message {
                player: p.0,
                nth,
                op,
                hop,
                position: positions.get(op as usize).copied().unwrap_or(0),
                phase: schedule
                    .phases
                    .get(phase)
                    .map_or_else(String::new, |(name, _)| name.clone()),
                to: match to {
                    Recipient::All => "everyone".into(),
                    Recipient::Party(q) => format!("player {}", q.0),
                },
            }
        })
        .collect()
}

/// The position of each operation, from the transcript.
fn operation_positions(g: &Played) -> Vec<u16> {
    let ops = &g.finished.transcript.operations;
    let mut out = vec![0; ops.len()];
    for o in ops {
        if let Some(slot) = out.get_mut(o.id as usize) {
            *slot = o.position;
        }
    }
    out
}

/// Every value message of every player in `g`.
pub fn all_messages(schedule: &Schedule, g: &Played) -> Vec<Message> {
    PartyId::all(schedule.scheme.players)
        .flat_map(|p| messages_of(schedule, g, p))
        .collect()
}

/// The cards `p` knows before he sends `m` in the game `g`: those he learned in an earlier
/// phase, or in `m`'s phase from a message that reached him at a hop below `m`'s.
pub fn known_before(schedule: &Schedule, g: &Played, p: PartyId, m: &Message) -> Vec<Learned> {
    let phases = phase_of_ops(schedule);
    let phase = |op: u32| phases.get(op as usize).copied().unwrap_or(usize::MAX);
    let view = &g.finished.views[p.index()];
    let reached_at = |op: u32| {
        view.received
            .iter()
            .filter_map(|e| match e.body {
                Body::Value { op: o, hop, .. } if o == op => Some(hop),
                _ => None,
            })
            .max()
    };
    let mine = phase(m.op);
    view.learned
        .iter()
        .filter(|l| {
            let f = phase(l.op);
            f < mine || (f == mine && reached_at(l.op).is_some_and(|h| h < m.hop))
        })
        .copied()
        .collect()
}

/// A strategy run at one message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PositionRow {
    /// Where the deviation happens.
    pub message: Message,
    /// What it achieves there.
    pub result: StrategyRow,
}

/// Runs `strategy` at every value message of every player (as sent in the honest game of
/// trial 0), `trials` seeded trials each (a count, or one shard's [`Trials`]: trial `t` is the
/// unsplit run's trial `t` at every message); `tick` is called once per trial.
pub fn sweep(
    schedule: &Schedule,
    strategy: &Strategy,
    trials: impl Into<Trials>,
    seed: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<PositionRow>, LeakageError> {
    let share: Trials = trials.into();
    let reference = play_schedule(schedule, None, &mut trial_rng(seed, 0))?;
    all_messages(schedule, &reference)
        .into_iter()
        .map(|m| {
            let at = (PartyId(m.player), m.nth);
            let result = strategy.run(schedule, Some(at), share, seed, tick)?;
            Ok(PositionRow { message: m, result })
        })
        .collect()
}

/// Adds up the sweeps of the shards `1/K … K/K` of one run of `trials` trials per message
/// into the unsplit sweep: the same messages in the same order in every shard, each row's
/// counts summed ([`merge_rows`]).
pub fn merge_sweeps(
    parts: Vec<(Shard, Vec<PositionRow>)>,
    trials: u64,
) -> Result<Vec<PositionRow>, MergeError> {
    let messages: Vec<Message> = parts
        .first()
        .map(|(_, rows)| rows.iter().map(|r| r.message.clone()).collect())
        .unwrap_or_default();
    for (shard, rows) in &parts {
        if !rows.iter().map(|r| &r.message).eq(messages.iter()) {
            return Err(MergeError::Inconsistent {
                shard: *shard,
                what: "its messages are not the first shard's".into(),
            });
        }
    }
    let results = parts
        .into_iter()
        .map(|(s, rows)| (s, rows.into_iter().map(|r| r.result).collect()))
        .collect();
    Ok(messages
        .into_iter()
        .zip(merge_rows(results, trials)?)
        .map(|(message, result)| PositionRow { message, result })
        .collect())
}
