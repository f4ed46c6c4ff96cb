//! One protocol, three tables: the same card protocol with the same inputs gives the same
//! output on the ideal table, the permutation-sharing dealer and the encrypted deck; deals give
//! every player a correct hand; a backend refuses, with a typed error, what it cannot do.

use std::collections::BTreeSet;

use facedown::cards::library;
use facedown::cards::model::input_bits;
use facedown::cards::on_table::{run_on_table, RunOptions};
use facedown::core::rng::trial_rng;
use facedown::core::table::Support;
use facedown::core::table::{FaceDownTable, ShuffleSet};
use facedown::core::DriveError;
use facedown::core::LocalDriver;
use facedown::core::{IdealTable, PartyId, Perm, Symbol};
use facedown::dealer::engine::EngineError;
use facedown::dealer::DealerEngine;
use facedown::poker::PokerEngine;
use rand_chacha::ChaCha20Rng;

/// The card protocols the comparison runs on every backend.
const PROTOCOLS: [&str; 4] = [
    "five-card-trick",
    "mks-four-card-and",
    "ms09-six-card-and",
    "ms09-four-card-xor",
];

fn owners(k: usize) -> Vec<PartyId> {
    PartyId::all(k).collect()
}

/// The encrypted deck: one engine per player, player `p` drawing from stream `p` of `rng`'s
/// seed (the in-memory driver seats them).
fn encrypted(parties: usize, seed: u64, trial: u64) -> LocalDriver<PokerEngine<ChaCha20Rng>> {
    let engines = PartyId::all(parties)
        .map(|p| {
            let rng = facedown::core::rng::party_rng(seed, trial, p);
            PokerEngine::with_rng(p, parties, b"cross-backend test", rng).expect("valid player")
        })
        .collect();
    LocalDriver::new(engines).expect("honest setup")
}

/// The dealer: one engine per player.
fn dealer(parties: usize, seed: u64, trial: u64) -> LocalDriver<DealerEngine<ChaCha20Rng>> {
    let engines = PartyId::all(parties)
        .map(|p| {
            let rng = facedown::core::rng::party_rng(seed, trial, p);
            DealerEngine::with_rng(p, parties, b"cross-backend test", rng).expect("valid player")
        })
        .collect();
    LocalDriver::new(engines).expect("honest setup")
}

/// Runs `name` with `bits` on `table`, finishes it, returns the outputs.
fn outputs<T: FaceDownTable>(name: &str, bits: &[bool], table: &mut T) -> Vec<bool> {
    let p = library::find(name).expect("built in").protocol();
    let run = run_on_table(&p, bits, &owners(bits.len()), table, RunOptions::default())
        .unwrap_or_else(|e| panic!("{name} {bits:?} on {}: {e}", table.capabilities().backend));
    table.finish().expect("honest audit passes");
    run.outputs
}

#[test]
fn same_protocol_same_inputs_same_output_on_every_backend() {
    for name in PROTOCOLS {
        let p = library::find(name).expect("built in").protocol();
        let k = p.inputs().len();
        for input in 0..p.input_count() {
            let bits = input_bits(input, k);
            let want = vec![p.function().eval(&bits).expect("total")];
            for seed in 0..40 {
                let trial = input as u64;
                let ideal = outputs(
                    name,
                    &bits,
                    &mut IdealTable::with_rng(2, trial_rng(seed, trial)),
                );
                let dealer = outputs(name, &bits, &mut dealer(2, seed, trial));
                assert_eq!(ideal, want, "{name} {bits:?} ideal, seed {seed}");
                assert_eq!(dealer, ideal, "{name} {bits:?} dealer, seed {seed}");
            }
            // The encrypted deck costs public-key operations: few seeds.
            for seed in 0..2 {
                let enc = outputs(name, &bits, &mut encrypted(2, seed, input as u64));
                assert_eq!(enc, want, "{name} {bits:?} encrypted, seed {seed}");
            }
        }
    }
}

#[test]
fn secure_and_runs_with_more_players_at_the_table() {
    // Three parties at the table, inputs committed by players 1 and 2: player 3 still holds a
    // layer of every shuffle (dealer) or shuffles in turn (encrypted).
    let p = library::find("five-card-trick")
        .expect("built in")
        .protocol();
    for input in 0..4 {
        let bits = input_bits(input, 2);
        let want = vec![bits[0] && bits[1]];
        let mut d = dealer(3, 7, input as u64);
        let run = run_on_table(&p, &bits, &owners(2), &mut d, RunOptions::default())
            .expect("runs on the dealer");
        assert_eq!(run.outputs, want);
        let mut e = encrypted(3, 7, input as u64);
        let run = run_on_table(&p, &bits, &owners(2), &mut e, RunOptions::default())
            .expect("runs on the encrypted deck");
        assert_eq!(run.outputs, want);
    }
}

/// Deals through the trait: place the deck, shuffle `All`, open each hand, turn the public cards.
fn deal<T: FaceDownTable>(
    table: &mut T,
    cards: u16,
    hand: usize,
    public: usize,
) -> (Vec<Vec<Symbol>>, Vec<Symbol>) {
    let deck: Vec<Symbol> = (0..cards).map(Symbol::Card).collect();
    table.place(&deck).expect("place");
    table.shuffle(&ShuffleSet::All).expect("deal");
    let hands = PartyId::all(table.parties())
        .map(|p| {
            let pos: Vec<usize> = (p.index() * hand..(p.index() + 1) * hand).collect();
            table.open_to(p, &pos).expect("private opening")
        })
        .collect();
    let start = table.parties() * hand;
    let shown = table
        .turn(&(start..start + public).collect::<Vec<_>>())
        .expect("public cards");
    table.finish().expect("audit passes");
    (hands, shown)
}

fn assert_correct_deal(
    (hands, shown): &(Vec<Vec<Symbol>>, Vec<Symbol>),
    players: usize,
    cards: u16,
    hand: usize,
    public: usize,
) {
    assert_eq!(hands.len(), players);
    assert!(hands.iter().all(|h| h.len() == hand));
    assert_eq!(shown.len(), public);
    let mut seen = BTreeSet::new();
    for c in hands.iter().flatten().chain(shown) {
        assert!(
            matches!(c, Symbol::Card(k) if *k < cards),
            "{c} is not in the deck"
        );
        assert!(seen.insert(*c), "{c} dealt twice");
    }
}

#[test]
fn ninety_nine_and_poker_deals_give_every_player_a_correct_hand() {
    for (players, cards, hand, public) in [(3, 37, 12, 1), (4, 52, 2, 5)] {
        for seed in 0..5 {
            // On the ideal table the hand is exactly what lies at the hand's positions.
            let mut ideal = IdealTable::with_rng(players, trial_rng(seed, 0));
            let dealt = deal(&mut ideal, cards, hand, public);
            assert_correct_deal(&dealt, players, cards, hand, public);
            for (p, h) in dealt.0.iter().enumerate() {
                assert_eq!(h.as_slice(), &ideal.peek()[p * hand..(p + 1) * hand]);
            }
            let dealt = deal(&mut dealer(players, seed, 1), cards, hand, public);
            assert_correct_deal(&dealt, players, cards, hand, public);
        }
        let dealt = deal(&mut encrypted(players, 0, 2), cards, hand, public);
        assert_correct_deal(&dealt, players, cards, hand, public);
    }
}

#[test]
fn las_vegas_weighted_shuffles_run_weakened_on_the_dealer_and_the_encrypted_deck() {
    let p = library::find("four-card-las-vegas-and")
        .expect("built in")
        .protocol();
    let bits = [true, true];
    // Neither backend composes a weighted shuffle from per-player choices: player 1 draws each
    // alone, and every run says so.
    let on_dealer = run_on_table(
        &p,
        &bits,
        &owners(2),
        &mut dealer(2, 0, 0),
        RunOptions::default(),
    )
    .map_err(|e| e.to_string());
    let on_encrypted = run_on_table(
        &p,
        &bits,
        &owners(2),
        &mut encrypted(2, 0, 0),
        RunOptions::default(),
    )
    .map_err(|e| e.to_string());
    for (name, run) in [("dealer", on_dealer), ("encrypted", on_encrypted)] {
        let run = run.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(run.outputs, [true], "{name}");
        assert!(
            run.weakened
                .iter()
                .any(|w| w.contains("player 1 draws it alone")),
            "{name}: {:?}",
            run.weakened
        );
    }
    // The ideal table runs it with its full guarantee.
    let mut i = IdealTable::with_rng(2, trial_rng(0, 0));
    let run = run_on_table(&p, &bits, &owners(2), &mut i, RunOptions::default())
        .expect("the ideal table has weighted shuffles");
    assert_eq!(run.outputs, [true]);
    assert!(run.weakened.is_empty());
}

#[test]
fn shuffles_that_cannot_be_composed_per_player_are_weakened_never_silent() {
    let id = Perm::identity(3);
    let a = Perm::parse_cycles(3, "(1 2)").expect("valid");
    let b = Perm::parse_cycles(3, "(2 3)").expect("valid");
    let not_group = ShuffleSet::Uniform(vec![id.clone(), a, b]);
    let weighted = ShuffleSet::Weighted(vec![(id, 2)]);
    let row = [Symbol::Club, Symbol::Heart, Symbol::Club];
    let mut d = dealer(2, 1, 0);
    let mut e = encrypted(2, 1, 0);
    for caps in [d.capabilities(), e.capabilities()] {
        for set in [&not_group, &weighted] {
            assert!(
                matches!(caps.shuffle_support(set), Support::Weakened(r) if r.contains("player 1")),
                "{}",
                caps.backend
            );
        }
    }
    d.place(&row).expect("place");
    e.place(&row).expect("place");
    for set in [&not_group, &weighted] {
        d.shuffle(set).expect("one drawer");
        e.shuffle(set).expect("one drawer");
    }
    for seen in [
        d.turn(&[0, 1, 2]).map_err(|e| e.to_string()),
        e.turn(&[0, 1, 2]).map_err(|e| e.to_string()),
    ] {
        let mut seen = seen.expect("in range");
        seen.sort();
        assert_eq!(seen, [Symbol::Club, Symbol::Club, Symbol::Heart]);
    }
    assert!(e.turn(&[7]).is_err());
    assert!(d.turn(&[7]).is_err());
    // A deal needs three players on the dealer: a typed refusal.
    assert!(matches!(
        d.shuffle(&ShuffleSet::All),
        Err(DriveError::Engine {
            source: EngineError::DealPlayers(2),
            ..
        })
    ));
}

/// `(excess bits, exactly zero)` of the worst single party of `name` on the dealer, by
/// enumerating every input and every player's choices (the code `facedown compare` runs).
fn dealer_excess(name: &str) -> (f64, bool) {
    let p = library::find(name).expect("built in").protocol();
    let e = facedown::leakage::cards::dealer_excess(&p, 0, 1 << 16).expect("small enumeration");
    (e.bits, e.exactly_zero)
}

#[test]
fn on_the_dealer_the_five_card_trick_leaks_and_the_mizuki_sone_xor_does_not() {
    // Interleaved layers (input commitment, then a share of the cut) let a player relate the
    // positions he receives back to the other player's share: strictly positive leakage,
    // bounded by the one input bit he does not know.
    let (bits, zero) = dealer_excess("five-card-trick");
    assert!(!zero && bits > 0.0 && bits <= 1.0, "{bits}");
    // The four-card XOR's turns are of cards whose chains reveal nothing beyond the output.
    let (bits, zero) = dealer_excess("ms09-four-card-xor");
    assert!(zero, "{bits}");
    assert_eq!(bits, 0.0);
}

#[test]
fn compare_json_has_every_row_and_field() {
    let v = crate::support::run_json(&["compare", "--json", "--seed", "3", "--games", "none"]);
    assert_eq!(v["seed"], 3);
    let rows = v["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 7 * 3, "7 workloads × 3 backends");
    for r in rows {
        for field in [
            "workload",
            "backend",
            "wall_ms",
            "cpu_ms",
            "messages",
            "bytes",
            "rounds",
            "security",
            "excess_bits",
        ] {
            assert!(r.get(field).is_some(), "{field} missing in {r}");
        }
        let backend = r["backend"].as_str().expect("backend");
        if backend == "encrypted" {
            assert!(r["excess_bits"].is_null());
            assert_eq!(r["security"], "malicious-n-1");
        }
        if backend == "ideal" {
            assert_eq!(r["excess_bits"], 0.0);
            assert_eq!(r["messages"], 0.0);
        }
        if r["workload"] == "four-card-las-vegas-and" && backend != "ideal" {
            assert!(r["messages"].as_f64().expect("it runs") > 0.0);
            let notes = r["notes"].to_string();
            assert!(notes.contains("weakened"), "{notes}");
        }
    }
    let csv = crate::support::facedown(&["compare", "--csv", "--json"]);
    assert!(!csv.status.success(), "--csv and --json conflict");
}
