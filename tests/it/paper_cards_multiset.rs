//! A multiset-deck protocol on every table: the four-colour Mizuki–Sone XOR \[MS09\], \[CK93\]
//! (b committed on ♦♠) gives a ⊕ b on the ideal table, the permutation-sharing dealer and the
//! encrypted deck, so every backend maps the kinds ♦ and ♠ to cards of its own
//! ([`facedown::core::Symbol::code`]) and back.

use facedown::cards::model::input_bits;
use facedown::cards::on_table::{run_on_table, RunOptions};
use facedown::cards::parse::parse;
use facedown::cards::Protocol;
use facedown::core::rng::trial_rng;
use facedown::core::table::FaceDownTable;
use facedown::core::{IdealTable, LocalDriver, PartyId};
use facedown::dealer::DealerEngine;
use facedown::poker::PokerEngine;

const XOR_FOUR_COLOURS: &str =
    include_str!("../../crates/cards/protocols/multiset/ms09-xor-four-colours.cards");

fn xor() -> Protocol {
    parse(XOR_FOUR_COLOURS).expect("parses")
}

fn output<T: FaceDownTable>(bits: &[bool], table: &mut T) -> Vec<bool> {
    let owners = [PartyId(1), PartyId(2)];
    let run = run_on_table(&xor(), bits, &owners, table, RunOptions::default())
        .unwrap_or_else(|e| panic!("{bits:?} on {}: {e}", table.capabilities().backend));
    table.finish().expect("honest audit passes");
    run.outputs
}

#[test]
fn four_colour_xor_gives_a_xor_b_on_every_backend_ms09() {
    for input in 0..4 {
        let bits = input_bits(input, 2);
        let want = vec![bits[0] ^ bits[1]];
        for seed in 0..8 {
            let trial = input as u64;
            let mut ideal = IdealTable::with_rng(2, trial_rng(seed, trial));
            assert_eq!(
                output(&bits, &mut ideal),
                want,
                "ideal {bits:?} seed {seed}"
            );
            let engines = PartyId::all(2)
                .map(|p| {
                    let rng = facedown::core::rng::party_rng(seed, trial, p);
                    DealerEngine::with_rng(p, 2, b"multiset test", rng).expect("valid player")
                })
                .collect();
            let mut dealer = LocalDriver::new(engines).expect("honest setup");
            assert_eq!(
                output(&bits, &mut dealer),
                want,
                "dealer {bits:?} seed {seed}"
            );
        }
        let engines = PartyId::all(2)
            .map(|p| {
                let rng = facedown::core::rng::party_rng(1, input as u64, p);
                PokerEngine::with_rng(p, 2, b"multiset test", rng).expect("valid player")
            })
            .collect();
        let mut encrypted = LocalDriver::new(engines).expect("honest setup");
        assert_eq!(output(&bits, &mut encrypted), want, "encrypted {bits:?}");
    }
}
