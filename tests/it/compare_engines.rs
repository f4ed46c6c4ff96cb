//! The comparison measures the code a networked player runs: each row's run, with the same
//! engines and seeds, costs exactly the same messages, bytes and rounds in memory
//! ([`facedown::core::LocalDriver`]) and with one thread per player over the in-memory network
//! ([`facedown::net::NetDriver`]), and every networked player ends with the outcome the
//! comparison checked.

use facedown::compare::{entries, networked, run_once, Backend};
use facedown::play::total_cost;

#[test]
fn every_row_costs_the_same_in_memory_and_over_the_network() {
    for entry in entries().expect("the comparison's workloads") {
        for backend in [Backend::Dealer, Backend::Encrypted] {
            // The last input assignment (all ones), first repetition.
            let (trial, inputs) = entry.trials(backend).pop().expect("a trial");
            let local = run_once(&entry, backend, 5, trial, &inputs).expect("runs in memory");
            let (reports, _) =
                networked(&entry, backend, 5, trial, &inputs, None).expect("runs networked");
            assert_eq!(
                total_cost(&reports),
                local.cost,
                "{} on {}",
                entry.name(),
                backend.name()
            );
            assert!(local.cost.messages > 0 && local.cost.rounds > 0);
            for r in &reports {
                assert!(r.audit.passed, "{}", entry.name());
                if let (
                    facedown::workload::Outcome::Card { outputs: a, .. },
                    facedown::workload::Outcome::Card { outputs: b, .. },
                ) = (&r.outcome, &local.outcome)
                {
                    assert_eq!(a, b, "{} on {}", entry.name(), backend.name());
                }
            }
        }
    }
}
