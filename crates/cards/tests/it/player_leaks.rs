//! The leak figures of each player's own view in the private model: the exact TV distance
//! between the views of inputs he must not tell apart, and `I(X; V_p | X_p, f(X))` in bits.
//! The public view's figures can be perfect while one player's view leaks (a private cut whose
//! holder reads the other input); the Ono–Manabe protocols leak nothing to anyone \[OM21\].

use crate::private_sources::{AND, COPY, EARLY_LOOK, ONE_CUT, TURNED_MASK, TWO_CUTS, XOR};
use crate::support::protocol;

use facedown_cards::analyze::{analyze, Analysis, PlayerLeak};
use facedown_cards::model::Q;
use facedown_cards::print::analysis_text;
use num_traits::{One, Zero};

const THREE_CARD: &str = include_str!("../../protocols/private/private-three-card-and.cards");
const EXTRA_TURN: &str =
    include_str!("../../protocols/private/private-three-card-and-extra-turn.cards");
const FIVE_CARD_TRICK: &str = include_str!("../../protocols/five-card-trick.cards");

fn analysis(src: &str) -> Analysis {
    analyze(&protocol(src)).expect("analyses")
}

/// The figures of the player named `name`.
fn player<'a>(a: &'a Analysis, name: &str) -> &'a PlayerLeak {
    a.players
        .iter()
        .find(|p| p.player == name)
        .unwrap_or_else(|| panic!("{}: no figures for {name}", a.name))
}

fn tv(p: &PlayerLeak) -> Q {
    p.tv_distance.clone().expect("an acyclic protocol's TV")
}

fn bits(p: &PlayerLeak) -> f64 {
    p.leak_bits.expect("an acyclic protocol's information")
}

#[test]
fn one_private_cut_public_view_perfect_but_alices_view_shows_b_at_tv_1_db89() {
    let a = analysis(ONE_CUT);
    // What everyone sees is the five-card trick, uniformly cut: no leak.
    assert_eq!(a.tv_distance, Some(Q::zero()));
    assert!(a.leak_beyond_output_bits.expect("acyclic").abs() < 1e-12);
    // Alice knows the offset: with a = 0 she tells b = 0 from b = 1 at every run.
    let alice = player(&a, "a");
    assert_eq!(tv(alice), Q::one());
    let w = alice.tv_worst.as_ref().expect("a witness");
    assert_eq!(w.inputs, ["00".to_owned(), "01".to_owned()]);
    // The view she sees is one rotation of one input's row: 1/5 under it, 0 under the other.
    let fifth = Q::new(1.into(), 5.into());
    let mut probabilities = w.probabilities.clone();
    probabilities.sort();
    assert_eq!(probabilities, [Q::zero(), fifth], "{w:?}");
    // Beyond her bit and the output she learns b whenever a = 0: half the inputs, one bit.
    assert!((bits(alice) - 0.5).abs() < 1e-12, "{}", bits(alice));
    // Bob does not know the offset and learns only a ∧ b.
    let bob = player(&a, "b");
    assert_eq!(tv(bob), Q::zero());
    assert!(bob.tv_worst.is_none());
    assert!(bits(bob).abs() < 1e-12, "{}", bits(bob));
}

#[test]
fn two_private_cuts_leak_nothing_to_either_player_db89() {
    let a = analysis(TWO_CUTS);
    for p in &a.players {
        assert_eq!(tv(p), Q::zero(), "{}", p.player);
        assert!(bits(p).abs() < 1e-12, "{}: {}", p.player, bits(p));
    }
    assert_eq!(a.players.len(), 2);
}

#[test]
fn ono_manabe_xor_and_copy_leak_nothing_to_any_player_om21() {
    for src in [XOR, AND, COPY] {
        let a = analysis(src);
        assert_eq!(a.players.len(), 2, "{}", a.name);
        for p in &a.players {
            assert_eq!(tv(p), Q::zero(), "{}: {}", a.name, p.player);
            assert!(p.tv_worst.is_none(), "{}: {}", a.name, p.player);
            assert!(
                bits(p).abs() < 1e-12,
                "{}: {} {}",
                a.name,
                p.player,
                bits(p)
            );
            // Committed: what he sees (r for Alice, x = a ⊕ r for Bob) is a fair coin,
            // independent of the inputs.
            let mi = p.mutual_information_bits.expect("acyclic");
            assert!(mi.abs() < 1e-12, "{}: {} sees {mi} bits", a.name, p.player);
        }
    }
}

#[test]
fn an_early_look_shows_bob_a_and_alice_nothing_om21() {
    let a = analysis(EARLY_LOOK);
    let bob = player(&a, "b");
    assert_eq!(tv(bob), Q::one());
    // Committed, so beyond his own bit: a, one bit for every input.
    assert!((bits(bob) - 1.0).abs() < 1e-12, "{}", bits(bob));
    assert_eq!(tv(player(&a, "a")), Q::zero());
}

#[test]
fn a_turned_mask_shows_each_player_the_other_bit_om21() {
    let a = analysis(TURNED_MASK);
    for name in ["a", "b"] {
        let p = player(&a, name);
        assert_eq!(tv(p), Q::one(), "{name}");
        assert!((bits(p) - 1.0).abs() < 1e-12, "{name}: {}", bits(p));
    }
}

#[test]
fn private_permutations_only_each_player_sees_the_public_view_nmtio22() {
    let good = analysis(THREE_CARD);
    assert!(good.players.iter().all(|p| tv(p).is_zero()), "{good:?}");
    // The extra turn shows the middle card, ♥ exactly when a = 1 and b = 0: Bob with b = 0
    // reads a, which the output 0 does not tell him. Alice learns nothing more.
    let bad = analysis(EXTRA_TURN);
    let bob = player(&bad, "b");
    assert_eq!(tv(bob), Q::one());
    let w = bob.tv_worst.as_ref().expect("a witness");
    assert_eq!(w.inputs, ["00".to_owned(), "10".to_owned()]);
    assert_eq!(tv(player(&bad, "a")), Q::zero());
    assert!(bits(player(&bad, "a")).abs() < 1e-12);
}

#[test]
fn a_public_protocol_has_no_per_player_figures() {
    let a = analysis(FIVE_CARD_TRICK);
    assert!(a.players.is_empty());
    assert!(!analysis_text(&a).contains("per player"));
    let json = serde_json::to_value(&a).expect("serialises");
    assert!(json.get("players").is_none(), "{json}");
}

#[test]
fn the_text_and_json_give_each_players_figures() {
    let a = analysis(ONE_CUT);
    let text = analysis_text(&a);
    assert!(text.contains("per player"), "{text}");
    assert!(
        text.contains("a                 TV 1 (≈ 1.000000), I(X;V | a, f(X)) 0.500000 bits"),
        "{text}"
    );
    assert!(text.contains("inputs 00 vs 01"), "{text}");
    let json = serde_json::to_value(&a).expect("serialises");
    let players = json["players"].as_array().expect("a list");
    assert_eq!(players.len(), 2);
    assert_eq!(players[0]["player"], "a");
    assert_eq!(players[0]["tv_distance"], "1");
    assert_eq!(players[0]["tv_distance_f64"], 1.0);
    assert_eq!(players[0]["tv_worst"]["inputs"][1], "01");
    assert_eq!(players[1]["tv_distance"], "0");
    assert!(players[1]["tv_worst"].is_null());
}
