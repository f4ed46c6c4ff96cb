//! The nine-round game: rounds in turn, the first player moving on each round, the lowest
//! total winning.

use facedown_core::PartyId;
use rand::RngCore;
use serde::{Deserialize, Serialize};

use super::round::{Golf, Illegal, Rules, Setup};
use crate::game::{audit, play_out, Bot, Game, Log, Offence, PlayError};

/// The record of a game: every round's log.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatchLog {
    /// The rules.
    pub rules: Rules,
    /// The rounds.
    pub rounds: Vec<Log<Golf>>,
}

/// The result of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatchResult {
    /// Scores of each round.
    pub rounds: Vec<Vec<i32>>,
    /// Totals.
    pub totals: Vec<i32>,
    /// The player with the lowest total (`None` on a tie).
    pub winner: Option<PartyId>,
}

fn result(rounds: Vec<Vec<i32>>, players: usize) -> MatchResult {
    let totals: Vec<i32> = (0..players)
        .map(|p| rounds.iter().map(|r| r[p]).sum())
        .collect();
    let low = totals.iter().copied().min().unwrap_or(0);
    let at_low: Vec<usize> = (0..players).filter(|&p| totals[p] == low).collect();
    let winner = (at_low.len() == 1).then(|| PartyId::from_index(at_low[0]));
    MatchResult {
        rounds,
        totals,
        winner,
    }
}

/// Plays a whole game with `bots`, round `i` started by player `i mod players + 1`.
pub fn play_match(
    rules: Rules,
    bots: &mut [Box<dyn Bot<Golf> + '_>],
    rng: &mut dyn RngCore,
) -> Result<(MatchLog, MatchResult), PlayError> {
    let players = usize::from(rules.players);
    let mut rounds = Vec::new();
    let mut scores = Vec::new();
    for i in 0..usize::from(rules.rounds) {
        let setup = Setup::shuffled(rules, PartyId::from_index(i % players), rng);
        let (log, game) = play_out(setup, bots, 10_000, rng)?;
        let outcome = game.outcome().ok_or(PlayError::TooLong(10_000))?;
        scores.push(outcome.scores);
        rounds.push(log);
    }
    Ok((MatchLog { rules, rounds }, result(scores, players)))
}

/// What the audit of a game found.
#[derive(Clone, Debug, Serialize)]
pub struct MatchAudit {
    /// The first rule break: which round, and the offence.
    pub offence: Option<(usize, Offence<Illegal>)>,
    /// A round whose setup is not the one the game fixes, with the reason.
    pub bad_setup: Option<(usize, String)>,
    /// The result, when every round passed.
    pub result: Option<MatchResult>,
}

impl MatchAudit {
    /// Whether the whole game passed.
    pub fn passed(&self) -> bool {
        self.offence.is_none() && self.bad_setup.is_none() && self.result.is_some()
    }
}

/// Audits a game: every round's log, the rotation of the first player, and the totals.
pub fn audit_match(log: &MatchLog) -> MatchAudit {
    let players = usize::from(log.rules.players);
    let fail = |i: usize, offence: Option<Offence<Illegal>>, bad: Option<String>| MatchAudit {
        offence: offence.map(|o| (i, o)),
        bad_setup: bad.map(|b| (i, b)),
        result: None,
    };
    if log.rounds.len() != usize::from(log.rules.rounds) {
        let why = format!("{} rounds, not {}", log.rounds.len(), log.rules.rounds);
        return fail(log.rounds.len(), None, Some(why));
    }
    let mut scores = Vec::new();
    for (i, round) in log.rounds.iter().enumerate() {
        let first = PartyId::from_index(i % players);
        if round.setup.rules != log.rules || round.setup.first != first {
            return fail(
                i,
                None,
                Some(format!("round {} must be started by {first}", i + 1)),
            );
        }
        match audit(round) {
            Err(e) => return fail(i, None, Some(e.to_string())),
            Ok(a) => match (a.offence, a.outcome) {
                (Some(o), _) => return fail(i, Some(o), None),
                (None, Some(outcome)) => scores.push(outcome.scores),
                (None, None) => return fail(i, None, Some("the round is unfinished".into())),
            },
        }
    }
    MatchAudit {
        offence: None,
        bad_setup: None,
        result: Some(result(scores, players)),
    }
}
