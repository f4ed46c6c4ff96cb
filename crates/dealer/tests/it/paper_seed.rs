//! Claims of the seed post (`papers/notes/perm-sharing-dealer.md` summarises it) and of the
//! dealer's own notes,
//! reproduced one per test.

use facedown_core::rng::seeded_rng;
use facedown_core::{PartyId, Perm};
use facedown_dealer::{play_with_rng, DealerError, Recipient, Route, Scheme, Table};

fn deal_perm(views: &[facedown_dealer::View]) -> Perm {
    views.iter().skip(1).fold(views[0].deal.clone(), |acc, v| {
        v.deal.compose(&acc).expect("same size")
    })
}

#[test]
fn public_chain_1_2_3_publishes_a3_a2_a1_of_i() {
    let mut table = Table::setup_with_rng(
        Scheme::published(10).expect("valid"),
        None,
        &mut seeded_rng(1),
    )
    .expect("setup");
    let batch = table.open_public(&[0, 4, 9]).expect("open");
    let a = deal_perm(&table.views());
    for (who, l) in &batch.learned {
        assert!(l.public);
        assert_eq!(
            usize::from(l.card),
            a.apply(usize::from(l.position)),
            "{who}"
        );
    }
    // Every player learns each public card.
    assert_eq!(batch.learned.len(), 3 * 3);
    let t = table.transcript();
    let order: Vec<(u16, Recipient)> = t.envelopes[t.envelopes.len() - 3..]
        .iter()
        .map(|e| (e.from.0, e.to))
        .collect::<Vec<_>>();
    assert!(order.contains(&(3, Recipient::All)), "player 3 publishes");
}

#[test]
fn private_opening_to_player_3_is_the_same_chain_kept_secret() {
    let mut table = Table::setup_with_rng(
        Scheme::published(10).expect("valid"),
        None,
        &mut seeded_rng(2),
    )
    .expect("setup");
    let batch = table.open_private(7, PartyId(3)).expect("open");
    let a = deal_perm(&table.views());
    assert_eq!(batch.learned.len(), 1);
    assert_eq!(batch.learned[0].0, PartyId(3));
    assert_eq!(usize::from(batch.learned[0].1.card), a.apply(7));
    assert!(table.views()[0].learned.is_empty() && table.views()[1].learned.is_empty());
}

#[test]
fn slip_c3_d3_opens_for_player_1_not_player_2() {
    // The post: "if the card must be opened only for the second player, the first sends A1(i) to
    // the second, the second returns D3*A2*A1(i) and the first computes C3*D3*A2*A1(i) = A(i)".
    // The computation ends with player 1.
    let scheme = Scheme::published(12).expect("valid");
    assert_eq!(scheme.pairs[0].outer_name, "C3");
    assert_eq!(scheme.pairs[0].outer_holder, PartyId(1));
    assert_eq!(scheme.pairs[0].inner_holder, PartyId(2));
    let mut table = Table::setup_with_rng(scheme, None, &mut seeded_rng(3)).expect("setup");
    for (k, name) in [(0u16, "C3/D3"), (1, "F3/G3")] {
        let batch = table.run(name, &[(5, Route::Helper(k))]).expect("open");
        assert_eq!(batch.learned.len(), 1, "{name}: exactly one player learns");
        assert_eq!(
            batch.learned[0].0,
            PartyId(1),
            "{name} delivers to player 1"
        );
    }
    let views = table.views();
    let a = deal_perm(&views);
    assert!(views[0]
        .learned
        .iter()
        .all(|l| usize::from(l.card) == a.apply(5)));
    assert!(views[1].learned.is_empty(), "player 2 learns nothing");
    // D3 = C3⁻¹ ∘ A3 and G3 = A3 ∘ F3⁻¹, as in the post.
    let (_, c3, d3) = &views[2].drawn_helpers[0];
    let (_, g3, f3) = &views[2].drawn_helpers[1];
    assert_eq!(&c3.inverse().compose(&views[2].deal).expect("size"), d3);
    assert_eq!(&views[2].deal.compose(&f3.inverse()).expect("size"), g3);
}

#[test]
fn published_scheme_cannot_deal_a_hand_to_player_2() {
    let err = play_with_rng(
        Scheme::published(37).expect("valid"),
        12,
        1,
        None,
        &mut seeded_rng(4),
    )
    .expect_err("no private path to player 2");
    assert_eq!(err, DealerError::NoPrivatePath(PartyId(2)));
}

#[test]
fn ninety_nine_deal_three_players_37_cards_12_each_one_trump() {
    let game = play_with_rng(
        Scheme::general(3, 37).expect("valid"),
        12,
        1,
        None,
        &mut seeded_rng(99),
    )
    .expect("deal");
    assert!(
        game.finished.audit.passed,
        "{:?}",
        game.finished.audit.findings
    );
    let deal = game.finished.audit.deal.clone().expect("all opened");
    for (p, hand) in game.hands.iter().enumerate() {
        assert_eq!(
            hand,
            &deal[12 * p..12 * (p + 1)],
            "player {} sees his cards",
            p + 1
        );
    }
    assert_eq!(game.public, vec![deal[36]]);
    let mut all: Vec<u16> = game.hands.concat();
    all.extend(&game.public);
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 37, "37 distinct cards dealt");
    // Each player's view holds only his own private cards.
    for v in &game.finished.views {
        assert!(v
            .learned
            .iter()
            .filter(|l| !l.public)
            .all(|l| { usize::from(l.position) / 12 == v.party.index() }));
    }
}

#[test]
fn fifty_two_card_deal_for_3_to_8_players_passes_the_audit() {
    for n_players in 3..=8 {
        let hand = (52 - 5) / n_players;
        let game = play_with_rng(
            Scheme::general(n_players, 52).expect("valid"),
            hand,
            5,
            None,
            &mut seeded_rng(n_players as u64),
        )
        .expect("deal");
        let report = &game.finished.audit;
        assert!(report.passed, "N = {n_players}: {:?}", report.findings);
        let deal = report.deal.clone().expect("opened");
        for (p, h) in game.hands.iter().enumerate() {
            assert_eq!(h, &deal[hand * p..hand * (p + 1)]);
        }
        // The audit's recomputation agrees with what the players learned.
        assert!(report
            .openings
            .iter()
            .all(|o| o.card == Some(deal[usize::from(o.position)])));
    }
}

#[test]
fn per_card_costs_match_the_notes() {
    for n_players in 3..=8u64 {
        let scheme = Scheme::general(n_players as usize, 52).expect("valid");
        let mut table =
            Table::setup_with_rng(scheme, None, &mut seeded_rng(n_players)).expect("setup");
        let public = table.open_public(&[0]).expect("open");
        assert_eq!(public.cost.messages, 2 * (n_players - 1));
        assert_eq!(public.cost.rounds, n_players);
        for p in 1..=n_players {
            let b = table
                .open_private(p as usize, PartyId(p as u16))
                .expect("open");
            let expect = if p == n_players - 1 {
                n_players
            } else {
                n_players - 1
            };
            assert_eq!(
                (b.cost.messages, b.cost.rounds),
                (expect, expect),
                "to player {p}"
            );
            assert_eq!(
                b.per_op[0].1, b.cost,
                "a single operation is the whole batch"
            );
        }
        // Opening many cards at once costs the rounds of the longest path only.
        let all: Vec<usize> = (10..52).collect();
        let batch = table.open_public(&all).expect("open");
        assert_eq!(batch.cost.rounds, n_players);
        assert_eq!(batch.cost.messages, 42 * 2 * (n_players - 1));
        // Batched per link and round, the 42 openings need only the links of one opening.
        let phase = table.phases().last().expect("phase");
        assert_eq!(phase.link_messages, 2 * (n_players - 1));
        let setup = &table.phases()[0].cost;
        assert_eq!(setup.rounds, 1);
        assert_eq!(
            setup.messages,
            n_players * (n_players - 1) + 2 * (n_players - 1)
        );
    }
}

#[test]
fn helper_permutations_are_fresh_for_every_deal() {
    let mut rng = seeded_rng(5);
    let t1 = Table::setup_with_rng(Scheme::general(4, 20).expect("valid"), None, &mut rng)
        .expect("setup");
    let t2 = Table::setup_with_rng(Scheme::general(4, 20).expect("valid"), None, &mut rng)
        .expect("setup");
    let h1 = &t1.views()[3].drawn_helpers;
    let h2 = &t2.views()[3].drawn_helpers;
    assert_eq!(h1.len(), 3);
    for (a, b) in h1.iter().zip(h2) {
        assert_ne!(a.1, b.1);
    }
    assert_ne!(t1.params().session, t2.params().session);
}

#[test]
fn general_scheme_with_three_players_extends_the_published_c3_d3_path() {
    let general = Scheme::general(3, 9).expect("valid");
    let published = Scheme::published(9).expect("valid");
    // Target 1: the same message path as the post's C3/D3.
    assert_eq!(
        general.plan(Route::Helper(0)).expect("plan"),
        published.plan(Route::Helper(0)).expect("plan")
    );
    // Target 2: the missing path, inner half held by player 1: 1 → 2 → 1 → 2.
    let to2 = general
        .plan(general.private_route(PartyId(2)).expect("path"))
        .expect("plan");
    let hops: Vec<(u16, Recipient)> = to2.hops.iter().map(|h| (h.from.0, h.to)).collect();
    assert_eq!(
        hops,
        [
            (1, Recipient::Party(PartyId(2))),
            (2, Recipient::Party(PartyId(1))),
            (1, Recipient::Party(PartyId(2)))
        ]
    );
}

#[test]
fn a_private_opening_is_learned_by_its_target_only() {
    for n_players in 3..=7usize {
        let scheme = Scheme::general(n_players, 20).expect("valid");
        let mut table =
            Table::setup_with_rng(scheme, None, &mut seeded_rng(n_players as u64)).expect("setup");
        for target in PartyId::all(n_players) {
            let b = table.open_private(target.index(), target).expect("open");
            let who: Vec<PartyId> = b.learned.iter().map(|(p, _)| *p).collect();
            assert_eq!(who, [target], "N = {n_players}");
        }
        let a = deal_perm(&table.views());
        for v in table.views() {
            assert_eq!(v.learned.len(), 1);
            assert_eq!(usize::from(v.learned[0].card), a.apply(v.party.index()));
        }
    }
}
