//! Numbers modulo `n` in the one-hot encoding (`a{n}`, `function add-mod`, `result P1 … Pn`):
//! the addition of Shinagawa et al. \[SMS+15\] by one pile-shifting shuffle, for several moduli,
//! its two broken variants flagged, the bounds, and the simulator and tracer on numbers.

use crate::support::{assert_analyses_as_claimed, assert_frequency_near, protocol};

use facedown_cards::analyze::{analyze, Defect, Endings, Security};
use facedown_cards::parse::{parse, ParseErrorKind};
use facedown_cards::print::same_up_to_spans;
use facedown_cards::protocol::ProtocolError;
use facedown_cards::search::Shard;
use facedown_cards::simulate::{merge_reports, simulate, SimulationReport, Simulator};
use facedown_cards::trace::{trace, trace_values, TraceError};

const ADD: &str = include_str!("../../protocols/numbers/one-hot-add-mod-3.cards");
const BIASED: &str = include_str!("../../protocols/numbers/one-hot-add-mod-3-biased-shift.cards");
const ONE_ROW: &str =
    include_str!("../../protocols/numbers/one-hot-add-mod-3-one-row-shifted.cards");

fn q(s: &str) -> facedown_cards::Q {
    s.parse().expect("a fraction")
}

/// The one-hot addition modulo `n` of [SMS+15]: `x{n} y{n}`, one shuffle turning x's row
/// forward and y's row back by the same uniform `r`, y's row turned, x's row turned forward by
/// what it showed. `shift_x` false shifts y's row only (the broken variant).
fn addition(n: usize, shift_x: bool) -> String {
    let x_row: Vec<String> = (1..=n).map(|p| p.to_string()).collect();
    let y_back: Vec<String> = std::iter::once(n + 1)
        .chain((n + 2..=2 * n).rev())
        .map(|p| p.to_string())
        .collect();
    let forward = format!("({})", x_row.join(" "));
    let generator = match shift_x {
        true => format!("{forward}({})", y_back.join(" ")),
        false => format!("({})", y_back.join(" ")),
    };
    let y_row: Vec<String> = (n + 1..=2 * n).map(|p| p.to_string()).collect();
    let mut text = format!(
        "protocol add-mod-{n}\ninputs x y\nfunction add-mod\nlayout x{{{n}}} y{{{n}}}\n\
         shuffle <{generator}>\nturn {} {{\n",
        y_row.join(" ")
    );
    for v in 0..n {
        let seen: String = (0..n).map(|j| if j == v { '♥' } else { '♣' }).collect();
        let turns = vec![format!("perm {forward}"); v];
        let mut actions = turns;
        actions.push(format!("result {}", x_row.join(" ")));
        text.push_str(&format!("  {seen}: {{ {} }}\n", actions.join("; ")));
    }
    text.push_str("}\n");
    text
}

#[test]
fn every_number_protocol_of_the_library_analyses_as_it_claims() {
    for src in [ADD, BIASED, ONE_ROW] {
        assert_analyses_as_claimed(&protocol(src));
    }
}

#[test]
fn sms15_addition_mod_3_is_correct_committed_and_perfect_with_one_shuffle() {
    let p = protocol(ADD);
    assert_eq!((p.cards(), p.input_count()), (6, 9));
    assert_eq!(p.moduli(), [3, 3]);
    // Mixed radix, x most significant: assignment 5 is x = 1, y = 2, whose sum is 0.
    assert_eq!(p.input_labels()[5], "x=1,y=2");
    assert_eq!(p.values()[5], 0);
    assert_eq!(p.values(), [0, 1, 2, 1, 2, 0, 2, 0, 1]);
    let an = analyze(&p).expect("analyses");
    assert!(an.correct, "{:?}", an.errors());
    assert_eq!(an.security, Security::Perfect);
    assert_eq!(an.endings, Endings::Committed);
    assert_eq!(an.expected_shuffles, Some(q("1")));
    // The turn shows y − r: each of its three values with probability 1/3 under every input.
    let third = q("1/3");
    assert_eq!(an.branches.len(), 3);
    for b in &an.branches {
        assert!(
            b.probability.iter().all(|x| x.as_ref() == Some(&third)),
            "{b:?}"
        );
    }
}

#[test]
fn sms15_addition_is_correct_and_perfect_for_every_modulus_from_2_to_6() {
    for n in 2..=6 {
        let p = protocol(&addition(n, true));
        assert_eq!(p.input_count(), n * n);
        let an = analyze(&p).expect("analyses");
        assert!(an.correct, "n = {n}: {:?}", an.errors());
        assert_eq!(an.security, Security::Perfect, "n = {n}");
        assert_eq!(an.expected_shuffles, Some(q("1")), "n = {n}");
    }
}

#[test]
fn a_biased_shift_is_flagged_not_perfect_though_the_sum_is_right() {
    let an = analyze(&protocol(BIASED)).expect("analyses");
    assert!(an.correct, "{:?}", an.errors());
    // Seeing 0 rules out y = 2, but x still hides the sum: every sum stays possible.
    assert_eq!(an.security, Security::OutputPossibilistic);
    assert!(
        an.defects.iter().any(Defect::is_leak),
        "a leak is named: {:?}",
        an.errors()
    );
}

#[test]
fn shifting_one_row_only_is_flagged_incorrect_for_every_modulus() {
    let an = analyze(&protocol(ONE_ROW)).expect("analyses");
    assert!(!an.correct);
    assert_eq!(
        an.security,
        Security::Perfect,
        "the turn alone leaks nothing"
    );
    let wrong = an
        .defects
        .iter()
        .find(|d| matches!(d, Defect::WrongNumberResult { .. }))
        .expect("a wrong number result is named");
    assert!(wrong.to_string().contains("result cards 1 2 3"), "{wrong}");
    for n in 2..=5 {
        let an = analyze(&protocol(&addition(n, false))).expect("analyses");
        assert!(!an.correct, "n = {n}");
    }
}

#[test]
fn number_protocols_print_and_parse_back() {
    for src in [ADD, BIASED, ONE_ROW] {
        let p = protocol(src);
        let text = p.to_string();
        assert!(text.contains("layout x{3} y{3}\n"), "{text}");
        assert!(text.contains("function add-mod\n"), "{text}");
        assert!(same_up_to_spans(&protocol(&text), &p), "{text}");
    }
    let p = protocol(&addition(4, true));
    assert!(same_up_to_spans(&protocol(&p.to_string()), &p));
}

#[test]
fn bit_protocols_keep_their_binary_order_and_labels() {
    let p = protocol(include_str!("../../protocols/five-card-trick.cards"));
    assert!(!p.has_numbers());
    assert_eq!(p.moduli(), [2, 2]);
    assert_eq!(p.input_labels(), ["00", "01", "10", "11"]);
}

fn invalid(src: &str) -> ProtocolError {
    let e = parse(src).expect_err(src);
    match e.kind {
        ParseErrorKind::Invalid(inner) => *inner,
        other => panic!("{src}: not a protocol error: {other}"),
    }
}

const HEAD: &str = "protocol p\ninputs x y\n";

#[test]
fn a_modulus_out_of_range_is_a_typed_error() {
    for (modulus, layout) in [(0, "x{0} y{0}"), (1, "x{1} y{1}")] {
        let src = format!("{HEAD}function add-mod\nlayout {layout}\n");
        assert!(
            matches!(invalid(&src), ProtocolError::Modulus { modulus: m, .. } if m == modulus),
            "{src}"
        );
    }
    // A modulus above the card limit is too many cards, even one too large to write.
    for layout in ["x{70000} y{2}", "x{99999999999999999999999} y{2}"] {
        let src = format!("{HEAD}function add-mod\nlayout {layout}\n");
        let e = parse(&src).expect_err(&src);
        assert!(
            matches!(e.kind, ParseErrorKind::TooManyCards { .. }),
            "{src}: {e}"
        );
    }
    // Code that builds a number of modulus 1 or a huge one meets the validation.
    for modulus in [1, usize::MAX] {
        let mut parts = protocol(ADD).into_parts();
        parts.layout[0] = facedown_cards::model::LayoutItem::Number {
            name: "x".to_owned(),
            modulus,
        };
        assert!(
            matches!(
                facedown_cards::Protocol::new(parts),
                Err(ProtocolError::Modulus { .. } | ProtocolError::TooManyCards(_))
            ),
            "{modulus}"
        );
    }
}

#[test]
fn too_many_input_assignments_are_a_typed_error_not_an_overflow() {
    // 300 · 300 = 90 000 assignments, more than 65 536.
    let src = format!("{HEAD}function add-mod\nlayout x{{300}} y{{300}}\n");
    assert!(matches!(
        invalid(&src),
        ProtocolError::TooManyAssignments(m) if m == [300, 300]
    ));
}

#[test]
fn an_input_in_two_encodings_or_a_bit_function_of_numbers_is_refused() {
    let mixed = format!("{HEAD}function add-mod\nlayout x{{3}} y{{3}} x\n");
    assert!(matches!(invalid(&mixed), ProtocolError::MixedEncoding(n) if n == "x"));
    let moduli = format!("{HEAD}function add-mod\nlayout x{{3}} y{{4}}\n");
    assert!(matches!(invalid(&moduli), ProtocolError::Function(_)));
    let and = format!("{HEAD}function and\nlayout x{{3}} y{{3}}\n");
    let e = invalid(&and);
    assert!(
        matches!(&e, ProtocolError::Function(m) if m.contains("modulo 3")),
        "{e}"
    );
}

#[test]
fn a_result_of_a_number_lists_its_n_cards_and_private_actions_are_refused() {
    let body = format!("{HEAD}function add-mod\nlayout x{{3}} y{{3}}\n");
    assert!(matches!(
        invalid(&format!("{body}result 1 2\n")),
        ProtocolError::NumberResult {
            modulus: 3,
            found: 2,
            ..
        }
    ));
    assert!(matches!(
        invalid(&format!("{body}private x cut 1 2 3\nresult 1 2 3\n")),
        ProtocolError::PrivateWithNumbers { .. }
    ));
    // Code that builds a pair result for a number output meets the same rule.
    let mut parts = protocol(ADD).into_parts();
    parts.body = vec![facedown_cards::Action::new(
        facedown_cards::ActionKind::Result(vec![(0, 1)]),
    )];
    assert!(matches!(
        facedown_cards::Protocol::new(parts),
        Err(ProtocolError::NumberResult { .. })
    ));
    // And a one-hot result of a bit output.
    let mut parts = protocol(include_str!("../../protocols/ms09-four-card-xor.cards")).into_parts();
    parts.body = vec![facedown_cards::Action::new(
        facedown_cards::ActionKind::ResultNumber(vec![0, 1]),
    )];
    assert!(matches!(
        facedown_cards::Protocol::new(parts),
        Err(ProtocolError::NumberResultOfBits { .. })
    ));
}

/// The simulation of `src` with `runs` runs per input (seed 7) on the compiled program.
fn simulation(src: &str, runs: u64) -> SimulationReport {
    let report = simulate(&protocol(src), runs, 7).expect("simulates");
    assert_eq!(report.inputs.len(), 9, "every x, y modulo 3");
    report
}

#[test]
fn sms15_addition_simulates_to_the_sum_under_every_input_and_shows_a_uniform_turn() {
    let runs = 6000;
    let report = simulation(ADD, runs);
    for (i, r) in report.inputs.iter().enumerate() {
        let number = r.number.as_ref().expect("a number output is tallied");
        assert_eq!(number.modulus, 3);
        assert_eq!(number.expected, (i / 3 + i % 3) % 3, "{}", r.input);
        assert_eq!(number.counts[number.expected], runs, "{}", r.input);
        assert_eq!(r.output_1, runs, "the joint reading counts the right sums");
    }
    assert_eq!(report.views.len(), 3);
    for v in &report.views {
        for &count in &v.counts {
            assert_frequency_near(count, runs, 1.0 / 3.0, &v.view);
        }
    }
}

#[test]
fn the_simulator_sees_the_biased_shift_leak_the_analyzer_flags() {
    let runs = 4000;
    let report = simulation(BIASED, runs);
    for (i, r) in report.inputs.iter().enumerate() {
        let number = r.number.as_ref().expect("tallied");
        assert_eq!(
            number.counts[number.expected], runs,
            "still correct: {}",
            r.input
        );
        // The turn shows y − r for r in {0, 1}: two views of 1/2 each, never y + 1.
        let y = i % 3;
        let seen: Vec<u64> = report.views.iter().map(|v| v.counts[i]).collect();
        assert_eq!(seen.iter().filter(|&&c| c == 0).count(), 1, "{}", r.input);
        for &c in seen.iter().filter(|&&c| c > 0) {
            assert_frequency_near(c, runs, 0.5, &format!("y = {y}"));
        }
    }
}

#[test]
fn shifting_one_row_only_simulates_to_wrong_sums() {
    let report = simulation(ONE_ROW, 3000);
    let wrong: u64 = report.inputs.iter().map(|r| r.output_0).sum();
    assert!(wrong > 0, "some runs give a wrong sum");
    for r in &report.inputs {
        let number = r.number.as_ref().expect("tallied");
        assert_eq!(number.counts.iter().sum::<u64>(), r.output_0 + r.output_1);
    }
}

#[test]
fn shards_of_a_number_simulation_merge_to_the_unsplit_report() {
    let p = protocol(BIASED);
    let sim = Simulator::new(&p).expect("compiles");
    let whole = sim
        .simulate_shard(&[], (40_000, 3), None, None)
        .expect("runs");
    let parts = (1..=3)
        .map(|i| {
            let shard = Shard::new(i, 3).expect("a shard");
            sim.simulate_shard(&[], (40_000, 3), Some(shard), None)
                .expect("runs")
        })
        .collect();
    assert_eq!(merge_reports(parts).expect("merges"), whole);
}

#[test]
fn a_shard_whose_value_counts_were_altered_or_dropped_does_not_merge() {
    let p = protocol(ONE_ROW);
    let sim = Simulator::new(&p).expect("compiles");
    let shards = || -> Vec<SimulationReport> {
        (1..=2)
            .map(|i| {
                let shard = Shard::new(i, 2).expect("a shard");
                sim.simulate_shard(&[], (20_000, 3), Some(shard), None)
                    .expect("runs")
            })
            .collect()
    };
    assert!(merge_reports(shards()).is_ok(), "the honest shards merge");
    // A right sum moved to a wrong value: the totals still add up, the right ones do not.
    let mut moved = shards();
    let number = moved[1].inputs[0].number.as_mut().expect("tallied");
    let right = number.expected;
    number.counts[right] -= 1;
    number.counts[(right + 1) % 3] += 1;
    let err = merge_reports(moved).expect_err("altered counts");
    assert!(err.to_string().contains("value counts"), "{err}");
    // A tally left out of one shard.
    let mut dropped = shards();
    dropped[0].inputs[4].number = None;
    let err = merge_reports(dropped).expect_err("a dropped tally");
    assert!(err.to_string().contains("number output"), "{err}");
}

#[test]
fn traces_of_numbers_end_with_the_sum_and_take_values_not_bits() {
    let p = protocol(ADD);
    for x in 0..3 {
        for y in 0..3 {
            for seed in 0..4 {
                let t = trace_values(&p, &[x, y], seed).expect("traces");
                assert_eq!(t.expected_number, Some(((x + y) % 3) as u32));
                assert_eq!(t.number, Some(t.expected_number), "x={x} y={y}");
                assert_eq!(t.input, format!("x={x},y={y}"));
                assert_eq!(t.output, None, "no output bit");
            }
        }
    }
    assert!(matches!(
        trace(&p, &[false, true], 1),
        Err(TraceError::Numbers)
    ));
    assert!(matches!(
        trace_values(&p, &[1, 3], 1),
        Err(TraceError::Value {
            value: 3,
            modulus: 3,
            ..
        })
    ));
    assert!(matches!(
        trace_values(&p, &[1], 1),
        Err(TraceError::InputLength {
            expected: 2,
            got: 1
        })
    ));
    assert_eq!(p.initial_row(&[false, true]), None);
}
