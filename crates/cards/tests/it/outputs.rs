//! Several named outputs and mixed endings: the half adder and AND-and-OR at once (committed,
//! after the COPY and the AND's selector of Mizuki–Sone \[MS09\]), a protocol that ends committed
//! in some runs and non-committed in others, and a broken variant of each, flagged.

use crate::output_sources::{AND_OR, AND_OR_BROKEN, HALF_ADDER, HALF_ADDER_BROKEN};
use crate::support::{assert_analyses_as_claimed, protocol};

use facedown_cards::analyze::{analyze, Defect, Endings, Security};
use facedown_cards::model::{input_bits, Function};
use facedown_cards::parse::{parse, ParseErrorKind};
use facedown_cards::protocol::ProtocolError;
use facedown_cards::sampled::{sample, RunEnding};
use facedown_cards::simulate::TrialRng;
use facedown_cards::trace::trace;

fn q(s: &str) -> facedown_cards::Q {
    s.parse().expect("a fraction")
}

const MIXED: &str = include_str!("../../protocols/outputs/toy-mixed-and.cards");
const MIXED_PEEK: &str = include_str!("../../protocols/outputs/toy-mixed-and-peek.cards");

#[test]
fn every_protocol_with_several_outputs_or_mixed_endings_analyses_as_it_claims() {
    for src in [
        HALF_ADDER,
        HALF_ADDER_BROKEN,
        AND_OR,
        AND_OR_BROKEN,
        MIXED,
        MIXED_PEEK,
    ] {
        assert_analyses_as_claimed(&protocol(src));
    }
}

#[test]
fn the_half_adder_computes_sum_and_carry_committed_and_perfect_after_ms09() {
    let p = protocol(HALF_ADDER);
    assert_eq!((p.cards(), p.output_count()), (10, 2));
    assert_eq!(p.function().output_names(), ["sum", "carry"]);
    // Joint values, sum first: 00 → 0 0, 01 → 1 0, 10 → 1 0, 11 → 0 1.
    assert_eq!(p.values(), [0b00, 0b10, 0b10, 0b01]);
    let an = analyze(&p).expect("analyses");
    assert!(an.correct, "{:?}", an.errors());
    assert_eq!(an.security, Security::Perfect);
    assert_eq!(an.endings, Endings::Committed);
    assert_eq!(an.expected_shuffles, Some(q("2")));
    // Both turns show a uniform bit under every input.
    let half = q("1/2");
    for b in &an.branches {
        assert!(
            b.probability.iter().all(|q| q.as_ref() == Some(&half)),
            "{b:?}"
        );
    }
}

#[test]
fn a_wrong_sum_is_named_and_the_carry_is_not() {
    let an = analyze(&protocol(HALF_ADDER_BROKEN)).expect("analyses");
    assert!(!an.correct);
    let outputs: Vec<Option<String>> = an
        .defects
        .iter()
        .filter_map(|d| match d {
            Defect::WrongResult { output, .. } => Some(output.clone()),
            _ => None,
        })
        .collect();
    assert!(!outputs.is_empty());
    assert!(
        outputs.iter().all(|o| o.as_deref() == Some("sum")),
        "{outputs:?}"
    );
    assert!(an.errors().iter().any(|e| e.contains("do not encode sum(")));
    // Still perfectly secure: the defect is the sum's value, not what the view shows.
    assert_eq!(an.security, Security::Perfect);
}

#[test]
fn and_and_or_at_once_are_committed_and_perfect_and_the_unshuffled_copy_leaks_b() {
    let an = analyze(&protocol(AND_OR)).expect("analyses");
    assert!(an.correct, "{:?}", an.errors());
    assert_eq!(an.security, Security::Perfect);
    assert_eq!(an.expected_shuffles, Some(q("2")));
    let bad = analyze(&protocol(AND_OR_BROKEN)).expect("analyses");
    assert!(bad.correct, "{:?}", bad.errors());
    assert_eq!(bad.security, Security::Insecure);
    // The first turn shows b: 00 and 01 are told apart.
    let w = bad.tv_worst.expect("a witness");
    assert_eq!(bad.tv_distance, Some(q("1")));
    assert_ne!(w.inputs[0].as_bytes()[1], w.inputs[1].as_bytes()[1]);
}

/// The two outputs opened instead of kept face down: the view may reveal exactly the outputs.
const AND_OR_OPENED: &str = "\
protocol and-or-opened
inputs a b
outputs and or
function and or
layout a b 0 0 1
shuffle bisect 3 5 7 | 4 6 8
turn 3 4 {
  ♣♥: {}
  ♥♣: perm (3 4)(5 6)(7 8)
}
shuffle bisect 1 5 6 9 10 | 2 3 4 7 8
turn 1 2 {
  ♥♣: turn 5 9
  ♣♥: turn 3 7
}
";

#[test]
fn non_committed_outputs_may_reveal_exactly_the_outputs() {
    let an = analyze(&protocol(AND_OR_OPENED)).expect("analyses");
    assert!(an.correct, "{:?}", an.errors());
    assert_eq!(an.endings, Endings::NonCommitted);
    assert_eq!(an.security, Security::Perfect);
    // 01 and 10 have the same outputs (0, 1) and must look alike; 00 and 11 need not.
    let shows_b = AND_OR_OPENED.replace("turn 5 9", "turn 4 5 9");
    let leaky = analyze(&protocol(&shows_b.replace("turn 3 7", "turn 3 4 7"))).expect("analyses");
    assert_eq!(leaky.security, Security::Insecure);
    let w = leaky.tv_worst.expect("a witness");
    assert_eq!(w.inputs, ["01".to_owned(), "10".to_owned()]);
}

#[test]
fn a_view_that_determines_one_output_but_not_the_other_is_incorrect() {
    // Only the AND is read: the OR stays undetermined under 00 against 01.
    let p = protocol(
        &AND_OR_OPENED
            .replace("turn 5 9", "turn 5")
            .replace("turn 3 7", "turn 3"),
    );
    let an = analyze(&p).expect("analyses");
    assert!(!an.correct);
    let text = an.errors().join("\n");
    assert!(text.contains("(output and=0 or=0)"), "{text}");
    assert!(text.contains("(output and=0 or=1)"), "{text}");
}

#[test]
fn mixed_endings_are_judged_by_what_each_ending_reveals() {
    let an = analyze(&protocol(MIXED)).expect("analyses");
    assert!(an.correct, "{:?}", an.errors());
    assert_eq!(an.endings, Endings::Mixed);
    assert!(!an.committed);
    assert_eq!(an.security, Security::Perfect);
    let peek = analyze(&protocol(MIXED_PEEK)).expect("analyses");
    assert!(peek.correct, "{:?}", peek.errors());
    assert_eq!(peek.endings, Endings::Mixed);
    assert_eq!(peek.security, Security::Insecure);
    let reveals: Vec<&(String, String)> = peek
        .defects
        .iter()
        .filter_map(|d| match d {
            Defect::CommittedEndingReveals { inputs, .. } => Some(inputs),
            _ => None,
        })
        .collect();
    // Only 11 (output 1) never ends committed; every flagged pair sets it against another.
    assert!(!reveals.is_empty());
    assert!(
        reveals.iter().all(|(i, j)| i == "11" || j == "11"),
        "{reveals:?}"
    );
}

#[test]
fn the_sampled_run_and_the_trace_read_every_output() {
    let p = protocol(HALF_ADDER);
    for input in 0..4 {
        let bits = input_bits(input, 2);
        let want = [bits[0] ^ bits[1], bits[0] && bits[1]];
        let run = sample(&p, input, &mut TrialRng::new(5, 0), 100, false).expect("samples");
        assert!(matches!(run.ending, RunEnding::Result(_)));
        assert_eq!(run.result_bits, vec![Some(want[0]), Some(want[1])]);
        for seed in 0..4 {
            let t = trace(&p, &bits, seed).expect("traces");
            assert_eq!(t.expected_output, None);
            let got: Vec<(String, bool, Option<bool>)> = t
                .named_outputs
                .iter()
                .map(|o| (o.name.clone(), o.expected, o.output))
                .collect();
            assert_eq!(
                got,
                [
                    ("sum".to_owned(), want[0], Some(want[0])),
                    ("carry".to_owned(), want[1], Some(want[1]))
                ]
            );
            assert!(t.render(false).contains(&format!(
                "sum={} carry={}",
                u8::from(want[0]),
                u8::from(want[1])
            )));
        }
    }
    // A non-committed reading of several outputs, through the exact analysis.
    let opened = protocol(AND_OR_OPENED);
    let t = trace(&opened, &[false, true], 2).expect("traces");
    assert!(t.named_outputs.iter().all(|o| o.output == Some(o.expected)));
}

#[test]
fn several_outputs_print_and_parse_back() {
    let p = protocol(AND_OR);
    let text = p.to_string();
    assert!(text.contains("outputs and or\nfunction and or\n"), "{text}");
    assert!(facedown_cards::print::same_up_to_spans(
        &protocol(&text),
        &p
    ));
    assert!(matches!(p.function(), Function::Several(o) if o.len() == 2));
}

#[test]
fn outputs_and_functions_must_agree_and_results_write_one_pair_per_output() {
    let header = "protocol p\ninputs a b\n";
    let cases: [(&str, usize, usize); 4] = [
        ("outputs s c\nfunction xor\nlayout a b\n", 4, 1),
        ("function xor and\nlayout a b\n", 3, 14),
        ("outputs s s\nfunction xor and\nlayout a b\n", 3, 11),
        (
            "outputs s c\nfunction xor and\nlayout a b\nresult 1 2\n",
            6,
            1,
        ),
    ];
    for (body, line, col) in cases {
        let src = format!("{header}{body}");
        let e = parse(&src).expect_err(&src);
        assert_eq!((e.line, e.col), (line, col), "{src}: {e}");
        let rendered = e.render("p.cards", &src, false);
        assert!(rendered.contains('╭'), "{rendered}");
    }
    let e = parse(&format!("{header}outputs s c\nfunction xor\nlayout a b\n")).expect_err("count");
    assert!(matches!(
        e.kind,
        ParseErrorKind::FunctionCount {
            found: 1,
            outputs: Some(2)
        }
    ));
    let e = parse(&format!(
        "{header}outputs s c\nfunction xor and\nlayout a b\nresult 1 2\n"
    ))
    .expect_err("arity");
    assert!(
        matches!(
            e.kind,
            ParseErrorKind::ResultArity {
                pairs: 1,
                outputs: 2
            }
        ),
        "{e}"
    );
    // Code that builds the parts directly meets the same rule in the validation.
    let mut parts = protocol(AND_OR).into_parts();
    parts.body.push(facedown_cards::Action::new(
        facedown_cards::ActionKind::Result(vec![(0, 1)]),
    ));
    assert!(matches!(
        facedown_cards::Protocol::new(parts),
        Err(ProtocolError::ResultArity {
            pairs: 1,
            outputs: 2,
            ..
        })
    ));
}
