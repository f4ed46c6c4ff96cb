//! The compiled simulator is a fast path of the interpreter: for every library protocol and
//! input, and thousands of trials each, it makes exactly the run that the interpreter's sampled
//! semantics makes with the same generator — the same view, the same number of shuffles, the
//! same ending and output. And the interpreter runs long Las Vegas paths in a loop, not in
//! recursion.

use facedown_cards::library::{builtins, find};
use facedown_cards::print::render_view;
use facedown_cards::sampled::{sample, RunEnding, SampledRun};
use facedown_cards::simulate::{Compiled, Outcome, SimulateError, TrialRng};

/// The simulator's outcome for a sampled run: with several outputs the joint value of its
/// result pairs (pair `j` is output `j`), otherwise its ending's.
fn outcome(run: &SampledRun, several: bool) -> Outcome {
    if several && matches!(run.ending, RunEnding::Result(_)) {
        let bits: Option<Vec<bool>> = run.result_bits.iter().copied().collect();
        return match bits {
            Some(bits) => Outcome::Outputs(bits.iter().fold(0, |v, &b| (v << 1) | u32::from(b))),
            None => Outcome::NotACommitment,
        };
    }
    match &run.ending {
        RunEnding::Result(Some(bit)) => Outcome::Output(*bit),
        RunEnding::Result(None) | RunEnding::Number(None) => Outcome::NotACommitment,
        RunEnding::Number(Some(value)) => Outcome::Number(*value as u32),
        RunEnding::Open => Outcome::Open,
        RunEnding::Stuck => Outcome::Stuck,
        RunEnding::StepLimit => Outcome::GaveUp,
    }
}

#[test]
fn compiled_simulator_makes_the_interpreters_run_for_every_library_protocol() {
    for b in builtins() {
        let p = b.protocol();
        if !b.simulable() {
            assert!(
                matches!(Compiled::new(&p), Err(SimulateError::Deck(_))),
                "{}: refused with the reason",
                b.name
            );
            continue;
        }
        let compiled = Compiled::new(&p).expect("two-colour protocols compile");
        for input in 0..p.input_count() {
            for trial in 0..2000u64 {
                let seed = 0x5eed ^ trial.rotate_left(17);
                let run = sample(&p, input, &mut TrialRng::new(seed, trial), 1 << 16, false)
                    .expect("samples");
                let fast = compiled.run_trial(input, &mut TrialRng::new(seed, trial));
                assert_eq!(
                    fast.outcome,
                    outcome(&run, p.output_count() > 1),
                    "{} input {input}",
                    b.name
                );
                assert_eq!(fast.shuffles, run.shuffles, "{} input {input}", b.name);
                assert_eq!(
                    fast.view,
                    render_view(&run.view),
                    "{} input {input}",
                    b.name
                );
            }
        }
    }
}

#[test]
fn a_long_run_is_a_loop_not_a_deep_recursion() {
    // Two actions per round (the goto jumps past the label), a turn in each: a million actions
    // would overflow the stack many times over if every turn recursed.
    let spin = facedown_cards::parse::parse(
        "protocol spin\ninputs a\nfunction copy\nlayout a\nlabel L\nturn 1\ngoto L\n",
    )
    .expect("parses");
    let run = sample(&spin, 1, &mut TrialRng::new(0, 0), 1_000_000, false).expect("samples");
    assert_eq!(run.ending, RunEnding::StepLimit);
    assert_eq!(run.view.len(), 500_000);
}

#[test]
fn las_vegas_runs_end_with_the_right_output_whatever_their_length() {
    let p = find("four-card-las-vegas-and")
        .expect("built in")
        .protocol();
    let mut longest = 0;
    for trial in 0..200 {
        let run = sample(&p, 3, &mut TrialRng::new(1, trial), 100_000, true).expect("samples");
        assert_eq!(run.ending, RunEnding::Result(Some(true)));
        longest = longest.max(run.shuffles);
    }
    assert!(
        longest > 20,
        "some run loops many times ({longest} shuffles)"
    );
}
