//! What runs on a face-down table: a card protocol of the library (each input committed by its
//! own player) or a deal.
//!
//! A workload runs on any [`FaceDownTable`]: on a table that seats every player
//! ([`run_seated`]: the ideal table, or the in-memory driver of one engine per player), given
//! every input; or as one player on that player's own view of the table ([`run_as`]: a
//! networked player), given only the inputs it owns. Input `k` of a card protocol is owned by
//! player `k + 1`. Both end the game ([`FaceDownTable::finish`]), so a backend's end-of-game
//! audit is part of every run.

use facedown_cards::library;
use facedown_cards::on_table::{run_as_party, RunError, RunOptions, TableRun};
use facedown_cards::Protocol;
use facedown_core::table::{deal, FaceDownTable, Support, TableError};
use facedown_core::{PartyId, Symbol};
use serde::{Deserialize, Serialize};

/// A deal: `hand` cards to every player and `public` face-up cards from a deck of `cards`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DealShape {
    /// The workload's name.
    pub name: &'static str,
    /// Deck size.
    pub cards: u16,
    /// Cards per hand.
    pub hand: usize,
    /// Public cards.
    pub public: usize,
}

/// Ninety-Nine: a 37-card deck, twelve cards to each of three players, one trump face up.
pub const NINETY_NINE: DealShape = DealShape {
    name: "ninety-nine",
    cards: 37,
    hand: 12,
    public: 1,
};

/// Hold'em on a 52-card deck: two cards to each player, five public cards.
pub const POKER52: DealShape = DealShape {
    name: "poker52",
    cards: 52,
    hand: 2,
    public: 5,
};

/// Every deal workload.
pub const DEALS: [DealShape; 2] = [NINETY_NINE, POKER52];

/// What runs.
#[derive(Clone, Debug)]
pub enum Workload {
    /// A card protocol of the library.
    Card {
        /// Its name in the library.
        name: &'static str,
        /// The protocol.
        protocol: Box<Protocol>,
    },
    /// A deal.
    Deal(DealShape),
}

/// Why a workload cannot run.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    /// No such card protocol or deal.
    #[error("no workload `{0}`: give a card protocol of the library (`facedown cards list`), `ninety-nine` or `poker52`")]
    Unknown(String),
    /// The inputs given do not match the protocol's.
    #[error("{name} takes {expected} input bits, got {got}")]
    Inputs {
        /// The workload.
        name: String,
        /// Inputs it takes.
        expected: usize,
        /// Inputs given.
        got: usize,
    },
    /// The table cannot host the workload.
    #[error("{0}")]
    Unfit(String),
}

/// What one view of the table saw of a workload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// A card protocol's run.
    Card {
        /// The output bits.
        outputs: Vec<bool>,
        /// Shuffles performed.
        shuffles: u64,
        /// Restarts performed.
        restarts: u64,
        /// What the backend did with a weaker guarantee than its security model.
        weakened: Vec<String>,
    },
    /// A deal: each hand as this view saw it (`None` for another player's), and the public
    /// cards.
    Deal {
        /// The hands, player 1 first.
        hands: Vec<Option<Vec<u16>>>,
        /// The public cards.
        public: Vec<u16>,
        /// What the backend did with a weaker guarantee than its security model.
        weakened: Vec<String>,
    },
}

impl Outcome {
    /// What the backend did with a weaker guarantee.
    pub fn weakened(&self) -> &[String] {
        match self {
            Outcome::Card { weakened, .. } | Outcome::Deal { weakened, .. } => weakened,
        }
    }
}

/// Why a workload's run failed.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadRunError<E: std::error::Error + 'static> {
    /// The workload cannot run with these inputs or players.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    /// The card protocol's walk failed (the table's error is inside).
    #[error(transparent)]
    Card(RunError<E>),
    /// The table failed.
    #[error(transparent)]
    Table(E),
}

impl<E: std::error::Error + 'static> WorkloadRunError<E> {
    /// The table's own error, if the failure is one.
    pub fn table_error(&self) -> Option<&E> {
        match self {
            WorkloadRunError::Table(e)
            | WorkloadRunError::Card(RunError::Table { source: e, .. }) => Some(e),
            _ => None,
        }
    }
}

fn inputs_of(p: &Protocol) -> usize {
    p.inputs().len()
}

impl Workload {
    /// The workload called `name`: a library protocol, `ninety-nine` or `poker52`.
    pub fn parse(name: &str) -> Result<Workload, WorkloadError> {
        if let Some(shape) = DEALS.iter().find(|d| d.name == name) {
            return Ok(Workload::Deal(*shape));
        }
        let builtin = library::find(name).ok_or_else(|| WorkloadError::Unknown(name.to_owned()))?;
        Ok(Workload::Card {
            name: builtin.name,
            protocol: Box::new(builtin.protocol()),
        })
    }

    /// Every workload: the library's card protocols, then the deals.
    pub fn all() -> Vec<Workload> {
        let cards = library::builtins().iter().map(|b| Workload::Card {
            name: b.name,
            protocol: Box::new(b.protocol()),
        });
        cards.chain(DEALS.map(Workload::Deal)).collect()
    }

    /// The name.
    pub fn name(&self) -> &'static str {
        match self {
            Workload::Card { name, .. } => name,
            Workload::Deal(d) => d.name,
        }
    }

    /// The number of input bits (0 for a deal).
    pub fn inputs(&self) -> usize {
        match self {
            Workload::Card { protocol, .. } => inputs_of(protocol),
            Workload::Deal(_) => 0,
        }
    }

    /// Who commits each input: player `k + 1` commits input `k`.
    pub fn owners(&self) -> Vec<PartyId> {
        PartyId::all(self.inputs()).collect()
    }

    /// The inputs player `me` owns, in order.
    pub fn owned_by(&self, me: PartyId) -> Vec<usize> {
        (0..self.inputs())
            .filter(|&k| PartyId::from_index(k) == me)
            .collect()
    }

    /// The fewest players that can run it: every input's owner, and at least two.
    pub fn min_players(&self) -> usize {
        self.inputs().max(2)
    }

    /// What the ideal functionality outputs on `inputs` (card protocols with one output).
    pub fn expected(&self, inputs: &[bool]) -> Option<bool> {
        match self.expected_outputs(inputs)?.as_slice() {
            [bit] => Some(*bit),
            _ => None,
        }
    }

    /// Every output the ideal functionality gives on `inputs`, in the order of the protocol's
    /// `outputs` line (one for a single output; card protocols of bits only).
    pub fn expected_outputs(&self, inputs: &[bool]) -> Option<Vec<bool>> {
        let Workload::Card { protocol, .. } = self else {
            return None;
        };
        if protocol.has_numbers() || inputs.len() != protocol.inputs().len() {
            return None;
        }
        let index = facedown_cards::model::input_index(inputs);
        Some(
            (0..protocol.output_count())
                .map(|j| protocol.result_bit(index, j))
                .collect(),
        )
    }

    /// Checks that `players` players at a table with `table`'s capabilities can run it.
    pub fn check<T: FaceDownTable>(&self, table: &T) -> Result<(), WorkloadError> {
        let players = table.parties();
        if players < self.min_players() {
            return Err(WorkloadError::Unfit(format!(
                "{} needs at least {} players, not {players}",
                self.name(),
                self.min_players()
            )));
        }
        if let Workload::Deal(d) = self {
            facedown_core::table::deal_opening(players, usize::from(d.cards), d.hand, d.public)
                .map_err(|e| WorkloadError::Unfit(format!("{}: {e}", d.name)))?;
            let caps = table.capabilities();
            if let Support::Unsupported(reason) = caps.full_shuffle {
                return Err(WorkloadError::Unfit(format!(
                    "the {} backend cannot deal: {reason}",
                    caps.backend
                )));
            }
        }
        Ok(())
    }

    fn check_inputs(&self, got: usize) -> Result<(), WorkloadError> {
        if got != self.inputs() {
            return Err(WorkloadError::Inputs {
                name: self.name().to_owned(),
                expected: self.inputs(),
                got,
            });
        }
        Ok(())
    }
}

/// Runs `workload` on a table that seats every player, with every input (first input first),
/// and ends the game.
pub fn run_seated<T: FaceDownTable>(
    workload: &Workload,
    inputs: &[bool],
    table: &mut T,
) -> Result<Outcome, WorkloadRunError<T::Error>>
where
    T::Error: From<TableError>,
{
    workload.check_inputs(inputs.len())?;
    let known: Vec<Option<bool>> = inputs.iter().map(|&b| Some(b)).collect();
    run(workload, &known, table)
}

/// Runs player `me`'s part of `workload` on its own view of the table, given the bits of the
/// inputs it owns ([`Workload::owned_by`], in order), and ends the game.
pub fn run_as<T: FaceDownTable>(
    workload: &Workload,
    me: PartyId,
    own: &[bool],
    table: &mut T,
) -> Result<Outcome, WorkloadRunError<T::Error>>
where
    T::Error: From<TableError>,
{
    let mine = workload.owned_by(me);
    if own.len() != mine.len() {
        return Err(WorkloadError::Inputs {
            name: format!("{} (the inputs of {me})", workload.name()),
            expected: mine.len(),
            got: own.len(),
        }
        .into());
    }
    let mut known = vec![None; workload.inputs()];
    for (&k, &b) in mine.iter().zip(own) {
        known[k] = Some(b);
    }
    run(workload, &known, table)
}

fn run<T: FaceDownTable>(
    workload: &Workload,
    known: &[Option<bool>],
    table: &mut T,
) -> Result<Outcome, WorkloadRunError<T::Error>>
where
    T::Error: From<TableError>,
{
    workload.check(table)?;
    let outcome = match workload {
        Workload::Card { protocol, .. } => {
            let run: TableRun = run_as_party(
                protocol,
                known,
                &workload.owners(),
                table,
                RunOptions::default(),
            )
            .map_err(WorkloadRunError::Card)?;
            Outcome::Card {
                outputs: run.outputs,
                shuffles: run.shuffles,
                restarts: run.restarts,
                weakened: run.weakened,
            }
        }
        Workload::Deal(d) => {
            let dealt = deal(table, d.cards, d.hand, d.public).map_err(WorkloadRunError::Table)?;
            let number = |s: &Symbol| match s {
                Symbol::Card(k) => *k,
                other => other.code(),
            };
            let mut weakened = Vec::new();
            if let Support::Weakened(r) = table.capabilities().full_shuffle {
                weakened.push(format!("deal: {r}"));
            }
            Outcome::Deal {
                hands: dealt
                    .hands
                    .iter()
                    .map(|h| h.as_ref().map(|h| h.iter().map(number).collect()))
                    .collect(),
                public: dealt.public.iter().map(number).collect(),
                weakened,
            }
        }
    };
    table.finish().map_err(WorkloadRunError::Table)?;
    Ok(outcome)
}

/// Checks a run's outcome against the ideal table: a card protocol's outputs all equal the
/// function of the inputs (each a copy, for one output), or with several outputs are their
/// values in order; a deal's hands and public cards are distinct cards of the deck, of
/// the right sizes.
pub fn check_outcome(
    workload: &Workload,
    inputs: &[bool],
    outcome: &Outcome,
) -> Result<(), String> {
    match (workload, outcome) {
        (Workload::Card { name, .. }, Outcome::Card { outputs, .. }) => {
            let want = workload
                .expected_outputs(inputs)
                .ok_or_else(|| format!("{name} has no output for {inputs:?}"))?;
            let right = match want.as_slice() {
                [one] => !outputs.is_empty() && outputs.iter().all(|o| o == one),
                several => outputs == several,
            };
            if !right {
                return Err(format!(
                    "{name} on {inputs:?} gave {outputs:?}, not {want:?}"
                ));
            }
            Ok(())
        }
        (Workload::Deal(d), Outcome::Deal { hands, public, .. }) => {
            let mut seen = std::collections::BTreeSet::new();
            for h in hands.iter().flatten() {
                if h.len() != d.hand {
                    return Err(format!("a hand of {} cards, not {}", h.len(), d.hand));
                }
            }
            if public.len() != d.public {
                return Err(format!("{} public cards, not {}", public.len(), d.public));
            }
            for &c in hands.iter().flatten().flatten().chain(public) {
                if c >= d.cards || !seen.insert(c) {
                    return Err(format!("card {c} dealt twice or outside the deck"));
                }
            }
            Ok(())
        }
        _ => Err("the outcome is not of the workload's kind".to_owned()),
    }
}
