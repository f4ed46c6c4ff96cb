//! Every player's view from one walk.
//!
//! With private draws or looks each player has a view of his own: the public view with what
//! he drew and saw. The states, masses and paths do not depend on whose view is built, only
//! what enters the views and which private outcomes are recorded. So the analyzer walks the
//! protocol once, keeping every private outcome in the views and noting whose each one is
//! ([`Holders`]), and then keeps, for each viewer, the observations he sees: the public
//! exploration and each player's are exactly what a walk of that view alone would give, at
//! the cost of one walk instead of one per player and one more.

use super::walk::{walk_views, Exploration, Holders, Leaf, TurnRecord};
use super::{AnalysisError, AnalysisOptions};
use crate::model::Observation;
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
    let mut public = viewed_by(&full, &holders, None);
    public.tree = tree;
    Ok((public, players))
}

/// What `viewer` sees of a walk that kept every view (`None`: the public view). The state tree
/// is left out.
fn viewed_by(full: &Exploration, holders: &Holders, viewer: Option<usize>) -> Exploration {
    let sees = |h: &Option<usize>| h.is_none() || *h == viewer;
    let keep = |view: &[Observation], who: &[Option<usize>]| -> Vec<Observation> {
        view.iter()
            .zip(who)
            .filter(|(_, h)| sees(h))
            .map(|(o, _)| o.clone())
            .collect()
    };
    let turns = full
        .turns
        .iter()
        .zip(&holders.turns)
        .filter(|(_, (holder, _))| sees(holder))
        .map(|(r, (_, who))| TurnRecord {
            node: r.node,
            span: r.span,
            before: keep(&r.before, who),
            observation: r.observation.clone(),
            prior: r.prior.clone(),
            mass: r.mass.clone(),
            result_basis: r.result_basis,
        })
        .collect();
    let leaves = full
        .leaves
        .iter()
        .zip(&holders.leaves)
        .map(|(l, who)| Leaf {
            node: l.node,
            view: keep(&l.view, who),
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

    /// Everything a view changes, as text (the records have no `PartialEq`).
    fn seen(ex: &Exploration) -> String {
        format!(
            "{:?}\n{:?}\n{}\n{:?}",
            ex.turns, ex.leaves, ex.hidden_outcomes, ex.viewer
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
        let longest = |ex: &Exploration| ex.leaves.iter().map(|l| l.view.len()).max();
        // The public view is the final turn alone; each player adds his own cut, not the other's.
        assert_eq!(longest(&public), Some(1));
        assert!(public.hidden_outcomes);
        for mine in &players {
            assert_eq!(longest(mine), Some(2));
            assert!(mine.hidden_outcomes, "the other player's cut is hidden");
        }
    }
}
