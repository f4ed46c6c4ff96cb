//! The one interpreter of the protocol tree, over a [`Semantics`].
//!
//! The interpreter owns the control flow of the action model — blocks, branches, labels,
//! `goto`, `restart`, falling off the end — and nothing else. What an action *does* is the
//! semantics' business:
//!
//! | semantics | a path carries | a turn yields |
//! |---|---|---|
//! | the exact analyzer ([`crate::analyze`]) | the KWH state: every possible row with its per-input probability | one child per observation that can occur |
//! | a sampled run ([`crate::sampled`], behind [`crate::trace`]) | one row | the one observation of that row |
//! | a face-down table ([`crate::on_table`]: the ideal table, the dealer, the encrypted deck) | what the view still allows (possible rows per input) | the one observation the table shows |
//!
//! A private action is one of three: a private permutation chosen by a bit its holder knows
//! (`private a perm P0 | P1`, `private a reverse … by r`), a private draw (`private a cut …`,
//! `private a bisect …`, `private a reverse random …`) and a private look (`private a look …`).
//! A draw and a look make one path per outcome, like a turn, but without an observation
//! everyone shares: the semantics decides who sees the outcome (in the exact semantics, the
//! player whose view is being built, see [`crate::analyze`]), and keeps the bit the holder
//! named with `as` on the path for a later `by`. The tables refuse private actions with a
//! typed error.
//!
//! A new action of the model is one more method here and one
//! more case in each semantics, instead of one more case in every walker.
//!
//! # Control flow
//!
//! Before each action the interpreter asks [`Semantics::before`] whether to go on (a step limit
//! stops a sampled run there). A turn with several children explores each in turn, in the
//! order the semantics returned them, each with its own copy of the continuation; a turn with
//! one child goes on in place, so a long Las Vegas run is a loop and never deep recursion. At
//! `label`, `goto` and `restart` the semantics answers [`Flow::Continue`] (fall through, jump to
//! the label, start over) or [`Flow::Stop`] (the analyzer ends its path there: each segment of
//! a looping protocol is explored once, from its label). A path also ends at a `result`, at a
//! turn whose observation has no branch, and when the protocol runs out of actions.

use facedown_core::{Perm, Symbol};

use crate::distribution::Distribution;
use crate::model::Span;
use crate::protocol::{Chooser, Continuation, LabelId, Op, PrivateBit, Protocol, Site};

/// The children of a turn: each observation that can occur with the path that follows it.
pub type Children<P> = Vec<(Vec<Symbol>, P)>;

/// What the semantics wants after a `label`, `goto`, `restart` or [`Semantics::before`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Go on: fall through the label, jump to the goto's label, start over, run the action.
    Continue,
    /// End this path here (the semantics has recorded why).
    Stop,
}

/// Which branch a turn's observation takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branching {
    /// The turn has no branches: go on after it.
    None,
    /// The branch written at this span.
    Taken(Span),
    /// The turn has branches, but none for this observation: the path is stuck.
    Missing,
}

/// Where the interpreter starts a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// The first action.
    Start,
    /// Just after a label.
    After(LabelId),
}

/// What each action of the model does on one backend (see the [module docs](self)).
pub trait Semantics {
    /// What one path through the protocol carries.
    type Path;
    /// Why the backend cannot go on (a limit, a failed table operation).
    type Error;

    /// Called before every action; [`Flow::Stop`] ends the path there.
    fn before(&mut self, _site: Site, _path: &Self::Path) -> Result<Flow, Self::Error> {
        Ok(Flow::Continue)
    }

    /// `perm`: a public rearrangement.
    fn permute(
        &mut self,
        site: Site,
        perm: &Perm,
        path: &mut Self::Path,
    ) -> Result<(), Self::Error>;

    /// `private a perm`: the holder of input `input` applies `perms[b]` where nobody else sees,
    /// `b` the bit `by` names (his input bit or a private bit on the path).
    fn private_permute(
        &mut self,
        site: Site,
        input: usize,
        perms: &[Perm; 2],
        by: Chooser,
        path: &mut Self::Path,
    ) -> Result<(), Self::Error>;

    /// A private draw: the holder of input `input` draws from `shuffle` where nobody else sees.
    /// Returns the paths that follow the draws that can occur (keeping the index of the one
    /// drawn in `bit`, when named).
    fn private_shuffle(
        &mut self,
        site: Site,
        input: usize,
        shuffle: &Distribution,
        bit: Option<PrivateBit>,
        path: Self::Path,
    ) -> Result<Vec<Self::Path>, Self::Error>;

    /// A private look: the holder of input `input` looks at the cards at `positions` (sorted).
    /// Returns the paths that follow what he can see (keeping the commitment's bit in `bit`,
    /// when named; a look that shows no commitment ends its path).
    fn private_look(
        &mut self,
        site: Site,
        input: usize,
        positions: &[usize],
        bit: Option<PrivateBit>,
        path: Self::Path,
    ) -> Result<Vec<Self::Path>, Self::Error>;

    /// `shuffle`: a permutation drawn from `shuffle`, hidden from everyone.
    fn shuffle(
        &mut self,
        site: Site,
        shuffle: &Distribution,
        path: &mut Self::Path,
    ) -> Result<(), Self::Error>;

    /// `turn`: the observations the cards at `positions` (sorted) can show, each with the path
    /// that follows it.
    fn turn(
        &mut self,
        site: Site,
        positions: &[usize],
        path: Self::Path,
    ) -> Result<Children<Self::Path>, Self::Error>;

    /// One observation of a turn is followed (called for each child, just before it runs).
    fn observed(
        &mut self,
        site: Site,
        observation: &[Symbol],
        branching: Branching,
        path: &mut Self::Path,
    ) -> Result<(), Self::Error>;

    /// The observation has no branch: the path ends stuck.
    fn stuck(
        &mut self,
        site: Site,
        observation: &[Symbol],
        path: Self::Path,
    ) -> Result<(), Self::Error>;

    /// `result`: the path ends with a committed output at these position pairs.
    fn result(
        &mut self,
        site: Site,
        pairs: &[(usize, usize)],
        path: Self::Path,
    ) -> Result<(), Self::Error>;

    /// `result P1 … Pn` of a number output: the path ends with the output committed one-hot
    /// at these positions.
    fn result_number(
        &mut self,
        site: Site,
        positions: &[usize],
        path: Self::Path,
    ) -> Result<(), Self::Error>;

    /// `result P`: the path ends with the output bit committed on the card at `position` (♥
    /// is 1).
    fn result_card(
        &mut self,
        site: Site,
        position: usize,
        path: Self::Path,
    ) -> Result<(), Self::Error>;

    /// The protocol ran out of actions: a non-committed ending.
    fn end(&mut self, path: Self::Path) -> Result<(), Self::Error>;

    /// `label`, reached by falling through it.
    fn label(
        &mut self,
        site: Site,
        label: LabelId,
        path: &mut Self::Path,
    ) -> Result<Flow, Self::Error>;

    /// `goto`: [`Flow::Continue`] jumps to just after the label.
    fn goto(
        &mut self,
        site: Site,
        label: LabelId,
        path: &mut Self::Path,
    ) -> Result<Flow, Self::Error>;

    /// `restart`: [`Flow::Continue`] starts over at the first action (the semantics lays out
    /// fresh input commitments).
    fn restart(&mut self, site: Site, path: &mut Self::Path) -> Result<Flow, Self::Error>;
}

impl Protocol {
    /// Runs the protocol from `entry` with `path` on `semantics`, until every path has ended.
    pub fn interpret<S: Semantics>(
        &self,
        semantics: &mut S,
        entry: Entry,
        path: S::Path,
    ) -> Result<(), S::Error> {
        let frames = match entry {
            Entry::Start => vec![(0, 0)],
            Entry::After(label) => self.program.labels[label.0].after.clone(),
        };
        self.walk(semantics, frames, path)
    }

    fn walk<S: Semantics>(
        &self,
        sem: &mut S,
        mut frames: Continuation,
        mut path: S::Path,
    ) -> Result<(), S::Error> {
        let program = &self.program;
        loop {
            let Some(top) = frames.last_mut() else {
                return sem.end(path);
            };
            let (block, next) = *top;
            let Some(&index) = program.blocks[block].get(next) else {
                frames.pop();
                continue;
            };
            top.1 += 1;
            let instr = &program.instrs[index];
            let site = Site {
                index,
                span: instr.span,
            };
            if sem.before(site, &path)? == Flow::Stop {
                return Ok(());
            }
            match &instr.op {
                Op::Perm(p) => sem.permute(site, p, &mut path)?,
                Op::Shuffle(d) => sem.shuffle(site, d, &mut path)?,
                Op::PrivatePerm { input, perms, by } => {
                    sem.private_permute(site, *input, perms, *by, &mut path)?
                }
                Op::PrivateShuffle {
                    input,
                    shuffle,
                    bit,
                } => {
                    let children = sem.private_shuffle(site, *input, shuffle, *bit, path)?;
                    match self.fork(sem, &frames, children)? {
                        Some(only) => path = only,
                        None => return Ok(()),
                    }
                }
                Op::PrivateLook {
                    input,
                    positions,
                    bit,
                } => {
                    let children = sem.private_look(site, *input, positions, *bit, path)?;
                    match self.fork(sem, &frames, children)? {
                        Some(only) => path = only,
                        None => return Ok(()),
                    }
                }
                Op::Turn {
                    positions,
                    branches,
                } => {
                    let mut children = sem.turn(site, positions, path)?;
                    if children.len() == 1 {
                        if let Some((obs, child)) = children.pop() {
                            match self.follow(sem, site, &obs, branches.as_deref(), child)? {
                                Some((block, child)) => {
                                    frames.extend(block.map(|b| (b, 0)));
                                    path = child;
                                    continue;
                                }
                                None => return Ok(()),
                            }
                        }
                    }
                    for (obs, child) in children {
                        if let Some((block, child)) =
                            self.follow(sem, site, &obs, branches.as_deref(), child)?
                        {
                            let mut inner = frames.clone();
                            inner.extend(block.map(|b| (b, 0)));
                            self.walk(sem, inner, child)?;
                        }
                    }
                    return Ok(());
                }
                Op::Result(pairs) => return sem.result(site, pairs, path),
                Op::ResultNumber(positions) => return sem.result_number(site, positions, path),
                Op::ResultCard(p) => return sem.result_card(site, *p, path),
                Op::Label(label) => {
                    if sem.label(site, *label, &mut path)? == Flow::Stop {
                        return Ok(());
                    }
                }
                Op::Goto(label) => {
                    if sem.goto(site, *label, &mut path)? == Flow::Stop {
                        return Ok(());
                    }
                    frames = program.labels[label.0].after.clone();
                }
                Op::Restart => {
                    if sem.restart(site, &mut path)? == Flow::Stop {
                        return Ok(());
                    }
                    frames = vec![(0, 0)];
                }
            }
        }
    }

    /// Goes on with the paths of a private draw or look: a single path is handed back to go on
    /// in place; several are each walked with their own copy of the continuation.
    fn fork<S: Semantics>(
        &self,
        sem: &mut S,
        frames: &Continuation,
        mut children: Vec<S::Path>,
    ) -> Result<Option<S::Path>, S::Error> {
        if children.len() == 1 {
            return Ok(children.pop());
        }
        for child in children {
            self.walk(sem, frames.clone(), child)?;
        }
        Ok(None)
    }

    /// Tells the semantics which branch `obs` takes; the block to enter (`None` for a turn
    /// without branches) and the path, or `None` when the path is stuck.
    #[allow(clippy::type_complexity)]
    fn follow<S: Semantics>(
        &self,
        sem: &mut S,
        site: Site,
        obs: &[Symbol],
        branches: Option<&[(Vec<Symbol>, Span, usize)]>,
        mut child: S::Path,
    ) -> Result<Option<(Option<usize>, S::Path)>, S::Error> {
        let Some(branches) = branches else {
            sem.observed(site, obs, Branching::None, &mut child)?;
            return Ok(Some((None, child)));
        };
        match branches.iter().find(|(o, _, _)| o == obs) {
            Some(&(_, span, block)) => {
                sem.observed(site, obs, Branching::Taken(span), &mut child)?;
                Ok(Some((Some(block), child)))
            }
            None => {
                sem.observed(site, obs, Branching::Missing, &mut child)?;
                sem.stuck(site, obs, child)?;
                Ok(None)
            }
        }
    }
}
