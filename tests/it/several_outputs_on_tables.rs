//! Several outputs on every backend: the library's several-output protocols (a half adder, AND
//! and OR at once) run on the ideal table, the dealer and the encrypted deck for every input,
//! and each run's outputs are checked one by one against the functions, in the order of the
//! `outputs` line; the half adder whose sum is wrong is caught on every backend.

use facedown::cards::library::builtins;
use facedown::cards::model::input_bits;
use facedown::compare::{run_once, Backend, CompareError, Entry};
use facedown::workload::{check_outcome, Outcome, Workload};

const BACKENDS: [Backend; 3] = [Backend::Ideal, Backend::Dealer, Backend::Encrypted];

fn entry(name: &str) -> Entry {
    let workload = Workload::parse(name).expect("a library protocol");
    let players = workload.min_players();
    Entry {
        workload,
        players,
        reps: [1, 1, 1],
    }
}

#[test]
fn every_several_output_protocol_gives_each_output_on_every_backend() {
    let several: Vec<_> = builtins()
        .iter()
        .filter(|b| b.protocol().output_count() > 1 && b.claim().correct == Some(true))
        .collect();
    assert!(several.len() >= 2, "the half adder and AND-and-OR");
    for b in several {
        let e = entry(b.name);
        let k = e.workload.inputs();
        for index in 0..1usize << k {
            let inputs = input_bits(index, k);
            let want = e
                .workload
                .expected_outputs(&inputs)
                .expect("bits in, bits out");
            assert_eq!(want.len(), b.protocol().output_count());
            for backend in BACKENDS {
                let stats = run_once(&e, backend, 9, index as u64, &inputs).unwrap_or_else(|err| {
                    panic!("{} {inputs:?} on {}: {err}", b.name, backend.name())
                });
                let Outcome::Card { outputs, .. } = stats.outcome else {
                    panic!("a card protocol");
                };
                assert_eq!(outputs, want, "{} {inputs:?} on {}", b.name, backend.name());
            }
        }
    }
}

#[test]
fn a_wrong_sum_of_the_half_adder_is_caught_on_every_backend() {
    let e = entry("half-adder-sum-not-negated");
    // a = 1, b = 0: the sum should be 1, the variant gives b = 0; the carry stays right.
    let inputs = [true, false];
    assert_eq!(
        e.workload.expected_outputs(&inputs),
        Some(vec![true, false])
    );
    for backend in BACKENDS {
        let err = run_once(&e, backend, 9, 2, &inputs).expect_err("a wrong output");
        assert!(
            matches!(&err, CompareError::Run { reason, .. } if reason.contains("[false, false]")),
            "{}: {err}",
            backend.name()
        );
    }
    let wrong = Outcome::Card {
        outputs: vec![true, true],
        shuffles: 0,
        restarts: 0,
        weakened: Vec::new(),
    };
    assert!(
        check_outcome(&e.workload, &inputs, &wrong).is_err(),
        "a wrong carry too"
    );
}
