//! Private actions in the compiled simulator: a private input permutation, a private draw and
//! a private look (the private model of \[NMTIO22\] and Ono–Manabe \[OM21\]).
//!
//! A run keeps the bits its players named (`as r`) in a 64-bit register set, and, besides the
//! public view, one view per player: every public turn, and what he drew (`#k`, the `k`-th
//! permutation of the draw's support, as the exact analyzer writes it) and what he saw. A
//! player's view is a code in the same positional system as the public view, so it is counted
//! exactly like it, and rendered by replaying the control flow with that player's eyes.

use std::collections::{BTreeMap, HashMap};

use facedown_core::{Perm, Symbol};
use rand::Rng;
use serde::{Deserialize, Serialize};

use super::{Compiled, Compiler, Instr, Outcome, SimulateError, TurnInfo, ViewCount, LONG_VIEW};
use crate::model::{reversal, ActionKind, Observation, PrivateChoice, Shuffle, Span};

/// At most this many named private bits (`as r`): a run keeps them in one `u64`.
pub const MAX_PRIVATE_BITS: usize = 64;

/// Where a private permutation's choosing bit comes from.
#[derive(Clone, Copy, Debug)]
pub(super) enum BitSource {
    /// The holder's input bit (input index).
    Input(usize),
    /// A bit he named earlier (register index).
    Named(usize),
}

/// The private state of one run: the named bits and each player's view code.
#[derive(Clone, Debug)]
pub(super) struct PrivateRun {
    /// Named bits, bit `r` of `values` valid when bit `r` of `set` is.
    values: u64,
    set: u64,
    /// Per player (input holder), his view code.
    pub(super) views: Vec<u64>,
}

impl PrivateRun {
    /// A fresh run for `players` players (none: a protocol without private actions).
    pub(super) fn new(players: usize) -> PrivateRun {
        PrivateRun {
            values: 0,
            set: 0,
            views: vec![0; players],
        }
    }

    /// Starts over (a `restart`): the named bits are forgotten, the views go on.
    pub(super) fn forget_bits(&mut self) {
        self.values = 0;
        self.set = 0;
    }

    fn name(&mut self, reg: usize, bit: bool) {
        self.set |= 1 << reg;
        self.values = (self.values & !(1 << reg)) | (u64::from(bit) << reg);
    }

    fn get(&self, reg: usize) -> Option<bool> {
        (self.set >> reg & 1 == 1).then_some(self.values >> reg & 1 == 1)
    }
}

/// Appends one digit (`key + 1`) to a view code in base `base`, pooling long views.
pub(super) fn extend_view(view: u64, key: u64, base: u64) -> u64 {
    if view == LONG_VIEW {
        return LONG_VIEW;
    }
    view.checked_mul(base)
        .and_then(|v| v.checked_add(key))
        .and_then(|v| v.checked_add(1))
        .unwrap_or(LONG_VIEW)
}

impl<'p> Compiler<'p> {
    /// Compiles one private action.
    pub(super) fn private(
        &mut self,
        kind: &'p ActionKind,
        span: Span,
    ) -> Result<(), SimulateError> {
        match kind {
            ActionKind::PrivatePerm { input, perms, by } => {
                let by = self.bit_source(input, by.as_deref())?;
                self.private_perm(perms, by);
            }
            ActionKind::PrivateShuffle {
                input,
                shuffle,
                bit,
            } => self.private_draw(input, shuffle, bit.as_deref(), span)?,
            ActionKind::PrivateLook {
                input,
                positions,
                bit,
            } => {
                let holder = self.holder(input)?;
                let look = self.turns.len();
                self.turns.push(TurnInfo {
                    positions: positions.iter().map(|&p| p as u8).collect(),
                    span,
                });
                let reg = bit.as_deref().map(|b| self.name_bit(b)).transpose()?;
                self.instrs.push(Instr::PrivateLook { holder, look, reg });
            }
            ActionKind::PrivateReverse {
                input,
                positions,
                choice,
            } => {
                let reversed = reversal(self.n, positions).map_err(|e| SimulateError::Shuffle {
                    span,
                    reason: e.to_string(),
                })?;
                let perms = [Perm::identity(self.n), reversed];
                match choice {
                    PrivateChoice::By(by) => {
                        let by = self.bit_source(input, by.as_deref())?;
                        self.private_perm(&perms, by);
                    }
                    PrivateChoice::Random(bit) => {
                        let draw = Shuffle::Set {
                            perms: perms.to_vec(),
                            weights: None,
                        };
                        self.private_draw(input, &draw, bit.as_deref(), span)?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn private_perm(&mut self, perms: &[Perm; 2], by: BitSource) {
        let perms = [self.add_perm(&perms[0]), self.add_perm(&perms[1])];
        self.instrs.push(Instr::PrivatePerm { perms, by });
    }

    fn private_draw(
        &mut self,
        input: &str,
        shuffle: &Shuffle,
        bit: Option<&'p str>,
        span: Span,
    ) -> Result<(), SimulateError> {
        let holder = self.holder(input)?;
        let (perms, sampler) = self.support(shuffle, span)?;
        self.widest_draw = self.widest_draw.max(perms.len() as u64);
        let reg = bit.map(|b| self.name_bit(b)).transpose()?;
        self.instrs.push(Instr::PrivateDraw {
            holder,
            perms,
            sampler,
            reg,
            span,
        });
        Ok(())
    }

    /// The index of the input whose holder acts (the protocol's validation checked it).
    fn holder(&self, input: &str) -> Result<usize, SimulateError> {
        self.inputs
            .iter()
            .position(|n| n == input)
            .ok_or_else(|| SimulateError::Holder(input.to_owned()))
    }

    /// The register of a bit named `as name` (each name is given once).
    fn name_bit(&mut self, name: &'p str) -> Result<usize, SimulateError> {
        let next = self.registers.len();
        let reg = *self.registers.entry(name).or_insert(next);
        if reg >= MAX_PRIVATE_BITS {
            return Err(SimulateError::TooManyPrivateBits(reg + 1));
        }
        Ok(reg)
    }

    /// What chooses a private permutation: `by name`, or the holder's input.
    fn bit_source(&mut self, input: &str, by: Option<&'p str>) -> Result<BitSource, SimulateError> {
        match by {
            Some(name) if name != input => Ok(BitSource::Named(self.name_bit(name)?)),
            _ => Ok(BitSource::Input(self.holder(input)?)),
        }
    }
}

impl Compiled {
    /// Runs one private instruction on `row`; `Err` ends the run (a bit chosen before it was
    /// named, a look that names no commitment).
    #[inline]
    pub(super) fn private_step<R: Rng + ?Sized>(
        &self,
        instr: &Instr,
        input: usize,
        row: u64,
        rng: &mut R,
        run: &mut PrivateRun,
    ) -> Result<u64, Outcome> {
        match instr {
            Instr::PrivatePerm { perms, by } => {
                let bit = match *by {
                    BitSource::Input(i) => self.input_bit(input, i),
                    BitSource::Named(r) => run.get(r).ok_or(Outcome::Stuck)?,
                };
                Ok(self.permute(perms[usize::from(bit)], row))
            }
            Instr::PrivateDraw {
                holder,
                perms,
                sampler,
                reg,
                ..
            } => {
                let pick = sampler.pick(rng);
                if let Some(r) = reg {
                    run.name(*r, pick == 1);
                }
                if let Some(v) = run.views.get_mut(*holder) {
                    *v = extend_view(*v, pick as u64, self.base);
                }
                Ok(self.permute(perms.start + pick, row))
            }
            Instr::PrivateLook { holder, look, reg } => {
                let key = self.observe(*look, row);
                if let Some(r) = reg {
                    // A two-card look decodes ♣♥ as 0 and ♥♣ as 1 (bit j is position j).
                    match key {
                        0b10 => run.name(*r, false),
                        0b01 => run.name(*r, true),
                        _ => return Err(Outcome::Stuck),
                    }
                }
                if let Some(v) = run.views.get_mut(*holder) {
                    *v = extend_view(*v, key, self.base);
                }
                Ok(row)
            }
            _ => Ok(row),
        }
    }

    /// Input `i`'s bit in input assignment `input` (the first input most significant).
    fn input_bit(&self, input: usize, i: usize) -> bool {
        (input >> (self.arity - 1 - i)) & 1 == 1
    }

    /// Renders player `player`'s view code as the exact analyzer renders his views, replaying
    /// the control flow.
    pub fn render_player_view(&self, player: usize, code: u64) -> String {
        if code == LONG_VIEW {
            return "(longer view)".to_owned();
        }
        let mut next = super::view_digits(code, self.base).into_iter();
        let mut view = Vec::new();
        let mut pc = 0usize;
        while let Some(instr) = self.instrs.get(pc) {
            pc += 1;
            match instr {
                Instr::Turn { turn, branches } => {
                    let Some(key) = next.next() else { break };
                    view.push(self.seen(*turn, key));
                    if let Some(bs) = branches {
                        match bs.iter().find(|(k, _)| *k == key) {
                            Some(&(_, t)) => pc = t,
                            None => break,
                        }
                    }
                }
                Instr::PrivateDraw { holder, span, .. } if *holder == player => {
                    let Some(pick) = next.next() else { break };
                    let drawn = u16::try_from(pick + 1).unwrap_or(u16::MAX);
                    view.push(Observation {
                        span: *span,
                        symbols: vec![Symbol::Card(drawn)],
                    });
                }
                Instr::PrivateLook { holder, look, .. } if *holder == player => {
                    let Some(key) = next.next() else { break };
                    view.push(self.seen(*look, key));
                }
                Instr::Jump(t) => pc = *t,
                Instr::Restart => pc = 0,
                Instr::Result { .. } | Instr::ResultCard(_) | Instr::End => break,
                _ => {}
            }
        }
        crate::print::render_view(&view)
    }

    /// The observation a turn or look with this key shows.
    fn seen(&self, turn: usize, key: u64) -> Observation {
        let info = &self.turns[turn];
        let symbols = (0..info.positions.len())
            .map(|j| {
                if (key >> j) & 1 == 1 {
                    Symbol::Heart
                } else {
                    Symbol::Club
                }
            })
            .collect();
        Observation {
            span: info.span,
            symbols,
        }
    }
}

/// Each player's views of a simulation: how often each was seen, per input.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerViews {
    /// The input whose holder this is.
    pub player: String,
    /// His views (the public turns with what he drew and saw), sorted by view.
    pub views: Vec<ViewCount>,
}

/// Per player, view code → per-input counts.
pub(super) type PlayerTally = Vec<HashMap<u64, Vec<u64>>>;

/// Adds one run's player views to `tally`.
pub(super) fn record_players(tally: &mut PlayerTally, k: usize, input: usize, views: &[u64]) {
    for (slot, &code) in tally.iter_mut().zip(views) {
        slot.entry(code).or_insert_with(|| vec![0; k])[input] += 1;
    }
}

/// Adds `other` into `tally`.
pub(super) fn merge_players(tally: &mut PlayerTally, other: PlayerTally) {
    for (mine, theirs) in tally.iter_mut().zip(other) {
        for (code, counts) in theirs {
            let k = counts.len();
            let slot = mine.entry(code).or_insert_with(|| vec![0; k]);
            for (a, b) in slot.iter_mut().zip(counts) {
                *a += b;
            }
        }
    }
}

impl PrivateRun {
    /// Ready for the next trial: no named bits, empty views.
    pub(super) fn reset(&mut self) {
        self.forget_bits();
        self.views.iter_mut().for_each(|v| *v = 0);
    }
}

impl Compiled {
    /// Each player's tallied views, rendered and sorted.
    pub(super) fn player_views(&self, tally: &PlayerTally) -> Vec<PlayerViews> {
        self.holders
            .iter()
            .zip(tally)
            .enumerate()
            .map(|(p, (name, codes))| {
                let mut views: BTreeMap<String, Vec<u64>> = BTreeMap::new();
                for (&code, counts) in codes {
                    if counts.iter().any(|&c| c > 0) {
                        let slot = views
                            .entry(self.render_player_view(p, code))
                            .or_insert_with(|| vec![0; counts.len()]);
                        for (a, b) in slot.iter_mut().zip(counts) {
                            *a += b;
                        }
                    }
                }
                PlayerViews {
                    player: name.clone(),
                    views: into_counts(views),
                }
            })
            .collect()
    }
}

fn into_counts(views: BTreeMap<String, Vec<u64>>) -> Vec<ViewCount> {
    views
        .into_iter()
        .map(|(view, counts)| ViewCount { view, counts })
        .collect()
}

/// Sums of the player views of shard reports (see [`super::merge_reports`]).
pub(super) struct PlayerSums(Vec<(String, BTreeMap<String, Vec<u64>>)>);

impl PlayerSums {
    /// Empty sums for the players of `first`.
    pub(super) fn new(first: &[PlayerViews]) -> PlayerSums {
        PlayerSums(
            first
                .iter()
                .map(|p| (p.player.clone(), BTreeMap::new()))
                .collect(),
        )
    }

    /// Adds one shard's player views, or says what does not fit.
    pub(super) fn add(&mut self, part: &[PlayerViews]) -> Result<(), String> {
        if part.len() != self.0.len() {
            return Err(format!(
                "it has the views of {} players, the first shard {}",
                part.len(),
                self.0.len()
            ));
        }
        for ((name, sums), p) in self.0.iter_mut().zip(part) {
            if *name != p.player {
                return Err(format!("it has the views of {}, not {name}", p.player));
            }
            for v in &p.views {
                let slot = sums
                    .entry(v.view.clone())
                    .or_insert_with(|| vec![0; v.counts.len()]);
                super::add_counts(slot, &v.counts).ok_or_else(|| {
                    format!("its counts of {name}'s view {} do not add up", v.view)
                })?;
            }
        }
        Ok(())
    }

    /// The merged player views.
    pub(super) fn finish(self) -> Vec<PlayerViews> {
        self.0
            .into_iter()
            .map(|(player, views)| PlayerViews {
                player,
                views: into_counts(views),
            })
            .collect()
    }
}
