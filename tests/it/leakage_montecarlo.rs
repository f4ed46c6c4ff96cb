//! Differential test: the Monte-Carlo attack on real games (signed messages, audit) agrees with
//! the exact enumeration within its Wilson interval.

use facedown_dealer::Scheme;
use facedown_leakage::collusion::{collusion_table, Method};
use facedown_leakage::montecarlo::monte_carlo;
use facedown_leakage::Schedule;

#[test]
fn monte_carlo_guessing_rate_agrees_with_exact_within_wilson_interval() {
    let scheme = Scheme::general(3, 5).expect("scheme");
    let sched = Schedule::new(&scheme, 1, 1).expect("schedule");
    let exact = collusion_table(&sched, Method::Exact).expect("exact");
    let est = monte_carlo(&sched, 300, 11, &|| {}).expect("mc");
    let mut compared = 0;
    for e in &exact {
        // One-card targets: the exact best-guess probability is the MC guessing rate's mean.
        if !e.target.starts_with("hand") || e.hidden != 1 {
            continue;
        }
        let m = est
            .iter()
            .find(|m| m.coalition == e.coalition && m.target == e.target)
            .expect("row");
        let p = e.measure.guess_probability_f64;
        let (lo, hi) = m.guessed_interval;
        assert!(lo <= p && p <= hi, "{e:?}: exact {p} outside [{lo}, {hi}]");
        // Determined cards are recovered in every game, undetermined ones in none.
        let rate = m.all_recovered as f64 / m.trials as f64;
        assert_eq!(rate, e.determined as f64, "{e:?} {m:?}");
        assert_eq!(m.wrong_cards, 0);
        compared += 1;
    }
    assert!(compared >= 9, "compared {compared}");
}
