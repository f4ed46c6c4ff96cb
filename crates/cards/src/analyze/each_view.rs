//! Every player's view from one walk.
//!
//! With private draws or looks each player has a view of his own: the public view with what
//! he drew and saw. The states, masses and paths do not depend on whose view is built, only
//! what enters the views and which private outcomes are recorded. So the analyzer walks the
//! protocol once, keeping every private outcome in the views and noting whose each one is
//! (in the views table, and per record in [`Holders`]), and then keeps, for each viewer, the
//! observations he sees (the table projected once, the records' ids mapped): the public
//! exploration and each player's are exactly what a walk of that view alone would give, at
//! the cost of one walk instead of one per player and one more.

use super::views::mapped;
use super::walk::{walk_views, Exploration, Holders, Leaf, TurnRecord};
use super::{AnalysisError, AnalysisOptions};
use crate::protocol::Protocol;

/// The public exploration and each player's (the holder of input `p` at index `p`), from one
/// walk.
pub(super) fn explore_each_view(
    protocol: &Protocol,
    opts: &AnalysisOptions,
) -> Result<(Exploration, Vec<Exploration>), AnalysisError> {
    let (mut full, holders) = walk_views(protocol, opts, None, true)?;
    let tree = full.tree.take();
    let players = (0..protocol.inputs().len())
        .map(|p| viewed_by(&full, &holders, Some(p)))
        .collect();
    let mut public = public_view(full, &holders);
    public.tree = tree;
    Ok((public, players))
}

/// What everyone sees of a walk that kept every view: [`viewed_by`] with no viewer, made from
/// the walk itself, so that its records and leaves are kept in place instead of copied.
fn public_view(full: Exploration, holders: &Holders) -> Exploration {
    let (views, map) = full.views.seen_by(None);
    let turns = full
        .turns
        .into_iter()
        .zip(&holders.turns)
        .filter(|(_, holder)| holder.is_none())
        .map(|(r, _)| TurnRecord {
            before: mapped(&map, r.before),
            after: mapped(&map, r.after),
            ..r
        })
        .collect();
    let leaves = full
        .leaves
        .into_iter()
        .map(|l| Leaf {
            view: mapped(&map, l.view),
            ..l
        })
        .collect();
    Exploration {
        views,
        leaves,
        turns,
        tree: None,
        viewer: None,
        hidden_outcomes: !holders.outcomes_of.is_empty(),
        ..full
    }
}

/// What `viewer` sees of a walk that kept every view (`None`: the public view). The state tree
/// is left out.
fn viewed_by(full: &Exploration, holders: &Holders, viewer: Option<usize>) -> Exploration {
    let sees = |h: &Option<usize>| h.is_none() || *h == viewer;
    let (views, map) = full.views.seen_by(viewer);
    let turns = full
        .turns
        .iter()
        .zip(&holders.turns)
        .filter(|(_, holder)| sees(holder))
        .map(|(r, _)| TurnRecord {
            node: r.node,
            span: r.span,
            before: mapped(&map, r.before),
            observation: r.observation.clone(),
            after: mapped(&map, r.after),
            prior: r.prior.clone(),
            mass: r.mass.clone(),
            result_basis: r.result_basis,
        })
        .collect();
    let leaves = full
        .leaves
        .iter()
        .map(|l| Leaf {
            node: l.node,
            view: mapped(&map, l.view),
            mass: l.mass.clone(),
            shuffles: l.shuffles,
            ending: l.ending.clone(),
        })
        .collect();
    Exploration {
        name: full.name.clone(),
        function: full.function.clone(),
        cards: full.cards,
        inputs: full.inputs.clone(),
        outputs: full.outputs.clone(),
        nodes: full.nodes.clone(),
        views,
        leaves,
        turns,
        defects: full.defects.clone(),
        bottom_sequences: full.bottom_sequences,
        tree: None,
        players: full.players.clone(),
        viewer,
        hidden_outcomes: holders.outcomes_of.iter().any(|&p| Some(p) != viewer),
        max_views: full.max_views,
        arithmetic: full.arithmetic,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::walk::explore_as;
    use crate::library::{builtins, load};

    /// Everything a view changes, as text (the records have no `PartialEq`), with each view
    /// written out: two tables may number the same views differently.
    fn seen(ex: &Exploration) -> String {
        let view = |id| format!("{:?}", ex.views.get(id));
        let turns: Vec<String> = ex
            .turns
            .iter()
            .map(|r| {
                let (before, after) = (view(r.before), view(r.after));
                let rest = (
                    r.node,
                    r.span,
                    &r.observation,
                    &r.prior,
                    &r.mass,
                    r.result_basis,
                );
                format!("{before} | {after} | {rest:?}")
            })
            .collect();
        let leaves: Vec<String> = ex
            .leaves
            .iter()
            .map(|l| {
                let rest = (l.node, &l.mass, l.shuffles, &l.ending);
                format!("{} | {rest:?}", view(l.view))
            })
            .collect();
        format!(
            "{turns:?}\n{leaves:?}\n{}\n{:?}",
            ex.hidden_outcomes, ex.viewer
        )
    }

    fn private_protocols() -> Vec<Protocol> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/protocols/private");
        let mut out: Vec<Protocol> = builtins().iter().map(|b| b.protocol()).collect();
        for entry in std::fs::read_dir(dir).expect("the private protocols") {
            let path = entry.expect("an entry").path();
            out.push(load(path.to_str().expect("a UTF-8 path")).expect("a valid protocol"));
        }
        out.retain(Protocol::has_private_actions);
        out
    }

    #[test]
    fn one_walk_gives_every_players_view_exactly_as_his_own_walk() {
        let opts = AnalysisOptions::default();
        let protocols = private_protocols();
        assert!(protocols.len() >= 5, "only {} protocols", protocols.len());
        for p in &protocols {
            let (public, players) = explore_each_view(p, &opts).expect("explores");
            let alone = explore_as(p, &opts, None).expect("explores");
            assert_eq!(seen(&public), seen(&alone), "{}: the public view", p.name());
            assert_eq!(players.len(), p.inputs().len());
            for (i, mine) in players.iter().enumerate() {
                let alone = explore_as(p, &opts, Some(i)).expect("explores");
                assert_eq!(seen(mine), seen(&alone), "{}: player {i}", p.name());
            }
        }
    }

    #[test]
    fn a_players_view_holds_his_own_outcomes_and_not_the_others() {
        let p = builtins()
            .iter()
            .find(|b| b.name == "five-card-trick-private-cuts")
            .expect("a built-in")
            .protocol();
        let (public, players) =
            explore_each_view(&p, &AnalysisOptions::default()).expect("explores");
        let longest = |ex: &Exploration| ex.leaves.iter().map(|l| ex.views.len_of(l.view)).max();
        // The public view is the final turn alone; each player adds his own cut, not the other's.
        assert_eq!(longest(&public), Some(1));
        assert!(public.hidden_outcomes);
        for mine in &players {
            assert_eq!(longest(mine), Some(2));
            assert!(mine.hidden_outcomes, "the other player's cut is hidden");
        }
    }
}
