//! Private draws, looks and reverses (the private operations of Ono–Manabe \[OM21\]): each
//! player's view holds what he drew and saw, security is judged on each player's own view, and
//! the library's protocols analyse as their papers claim. Each pitfall is a variant that is
//! flagged, naming the player who learns too much and no other.

use crate::private_sources::{AND, COPY, EARLY_LOOK, ONE_CUT, TURNED_MASK, TWO_CUTS, XOR};
use crate::support::{assert_analyses_as_claimed, protocol};

use facedown_cards::analyze::{analyze, explore, AnalysisError, AnalysisOptions, Defect, Security};
use facedown_cards::model::input_bits;
use facedown_cards::on_table::{run_on_table, RunError, RunOptions};
use facedown_cards::parse::parse;
use facedown_cards::print::same_up_to_spans;
use facedown_cards::sampled::{sample, RunEnding};
use facedown_cards::simulate::TrialRng;
use facedown_cards::trace::trace;
use facedown_core::rng::trial_rng;
use facedown_core::{IdealTable, PartyId};

/// The players a protocol's leak defects name, sorted.
fn leaking_players(src: &str) -> Vec<String> {
    let an = analyze(&protocol(src)).expect("analyses");
    let mut players: Vec<String> = an
        .defects
        .iter()
        .filter_map(|d| match d {
            Defect::PlayerLeak { player, .. } => Some(player.clone()),
            _ => None,
        })
        .collect();
    players.sort();
    players.dedup();
    players
}

/// Every input, sampled with a few seeds: the committed result is `want(bits)`.
fn every_run_outputs(src: &str, want: impl Fn(&[bool]) -> bool) {
    let p = protocol(src);
    for input in 0..p.input_count() {
        let bits = input_bits(input, p.inputs().len());
        for seed in 0..8 {
            let run = sample(&p, input, &mut TrialRng::new(seed, 0), 100, false).expect("samples");
            assert_eq!(run.ending, RunEnding::Result(Some(want(&bits))), "{bits:?}");
            assert!(run.view.is_empty(), "no public observation: {:?}", run.view);
        }
    }
}

#[test]
fn every_private_operation_protocol_analyses_as_it_claims() {
    for src in [XOR, AND, COPY, TWO_CUTS, ONE_CUT, EARLY_LOOK, TURNED_MASK] {
        let p = protocol(src);
        assert!(p.has_private_observations(), "{}", p.name());
        assert_analyses_as_claimed(&p);
    }
}

/// The claim of each Ono–Manabe protocol: `cards` cards, committed, correct, perfect for each
/// player, no public shuffle; and every sampled run outputs `want`.
fn committed_perfect_without_shuffles(src: &str, cards: usize, want: impl Fn(&[bool]) -> bool) {
    let p = protocol(src);
    assert_eq!(p.cards(), cards);
    let an = analyze(&p).expect("analyses");
    assert!(an.correct, "{:?}", an.errors());
    assert!(an.committed);
    assert_eq!(an.security, Security::Perfect);
    assert_eq!(an.max_shuffles, Some(0));
    every_run_outputs(src, want);
}

#[test]
fn xor_is_committed_and_perfect_with_four_cards_and_no_shuffle_om21() {
    committed_perfect_without_shuffles(XOR, 4, |b| b[0] ^ b[1]);
}

#[test]
fn and_is_committed_and_perfect_with_four_cards_and_no_shuffle_after_om21() {
    committed_perfect_without_shuffles(AND, 4, |b| b[0] && b[1]);
}

#[test]
fn copy_makes_two_copies_with_six_cards_and_no_shuffle_om21() {
    committed_perfect_without_shuffles(COPY, 6, |b| b[0]);
}

#[test]
fn two_private_cuts_replace_the_public_cut_of_the_five_card_trick_db89() {
    let an = analyze(&protocol(TWO_CUTS)).expect("analyses");
    assert!(an.correct, "{:?}", an.errors());
    assert_eq!(an.security, Security::Perfect);
    assert_eq!(
        an.max_shuffles,
        Some(0),
        "a private cut is no public shuffle"
    );
}

#[test]
fn a_single_private_cut_shows_its_holder_the_other_input_db89() {
    let p = protocol(ONE_CUT);
    let an = analyze(&p).expect("analyses");
    assert!(an.correct);
    assert_eq!(an.security, Security::Insecure);
    // Alice knows the offset and reads b; Bob, who does not, learns only a ∧ b.
    assert_eq!(leaking_players(ONE_CUT), ["a"]);
    // The public view alone is the five-card trick's, uniformly cut: the leak is only in
    // Alice's own view, which is why each player is judged on his.
    let public = explore(&p, &AnalysisOptions::default()).expect("explores");
    assert!(public.is_perfect());
}

#[test]
fn a_look_before_the_bisection_shows_bob_alices_bit_om21() {
    let an = analyze(&protocol(EARLY_LOOK)).expect("analyses");
    assert!(an.correct);
    // Bob reads a, so with b he knows the output: not even output-possibilistic for him.
    assert_eq!(an.security, Security::Insecure);
    assert_eq!(leaking_players(EARLY_LOOK), ["b"]);
    assert!(an
        .errors()
        .iter()
        .any(|e| e.contains("the holder of b learns more")));
}

#[test]
fn turning_the_masked_pair_shows_each_player_the_others_bit_om21() {
    let an = analyze(&protocol(TURNED_MASK)).expect("analyses");
    assert!(an.correct);
    assert_eq!(an.security, Security::Insecure);
    assert_eq!(leaking_players(TURNED_MASK), ["a", "b"]);
}

#[test]
fn a_random_reverse_named_and_reused_is_the_bisection_of_the_xor() {
    let xor = analyze(&protocol(XOR)).expect("analyses");
    let src = XOR.replace(
        "private a bisect 1 3 | 2 4 as r",
        "private a reverse random 1 2 as r\nprivate a reverse 3 4 by r",
    );
    let reversed = analyze(&protocol(&src)).expect("analyses");
    assert!(reversed.correct);
    assert_eq!(reversed.security, xor.security);
    assert_eq!(reversed.committed, xor.committed);
    // Without the name, Alice's second reverse could not follow her first: the XOR is wrong.
    let unnamed = src
        .replace(" as r", "")
        .replace("reverse 3 4 by r", "reverse random 3 4");
    assert!(!analyze(&protocol(&unnamed)).expect("analyses").correct);
}

#[test]
fn private_operations_print_in_canonical_form_and_read_back() {
    for src in [XOR, AND, COPY, TWO_CUTS] {
        let p = protocol(src);
        let printed = p.to_string();
        assert!(same_up_to_spans(&protocol(&printed), &p), "{printed}");
    }
    let printed = protocol(XOR).to_string();
    for line in [
        "private a bisect 1 3 | 2 4 as r",
        "private b look 1 2 as x",
        "private b reverse 3 4 by x",
    ] {
        assert!(printed.contains(line), "{printed}");
    }
    // The long forms read as the short ones; `by` the holder's own input is the default.
    let long = XOR
        .replace("private a bisect", "private a shuffle bisect")
        .replace("private b look 1 2 as x", "private b look 2 1 as x");
    assert_eq!(protocol(&long).to_string(), printed);
    let default = "protocol p\ninputs a b\nfunction and\nlayout ♣ ♥ ♣\n\
                   private a perm (2 3) | id by a\nprivate b perm id | (1 2)\nturn 1\n";
    assert!(protocol(default)
        .to_string()
        .contains("private a perm (2 3) | id\n"));
}

#[test]
fn malformed_private_operations_are_errors_at_their_line() {
    let header = "protocol p\ninputs a b\nfunction xor\nlayout a b\n";
    for (body, line, what) in [
        ("private a frobnicate 1\n", 5, "`look` or `reverse`"),
        (
            "private a cut 1 2 3 as r\n",
            5,
            "the draw has 3 permutations, not 2",
        ),
        (
            "private a look 1 2 3 as x\n",
            5,
            "the look shows 3 cards, not 2",
        ),
        ("private a bisect 1 | 2 as b\n", 5, "`b` already names"),
        (
            "private a bisect 1 | 2 as r\nprivate a bisect 3 | 4 as r\n",
            6,
            "`r` already names",
        ),
        (
            "result 3 4\nprivate b reverse 3 4 by r\n",
            6,
            "no earlier private action",
        ),
        (
            "private a bisect 1 | 2 as r\nprivate b reverse 3 4 by r\n",
            6,
            "another player",
        ),
        ("private b reverse 3 4 by a\n", 5, "another player"),
        ("private b reverse 3 4\n", 5, "`by`"),
        ("private a look 1 9\n", 5, "out of range"),
        ("private a reverse random 1 1\n", 5, "1"),
    ] {
        let e = parse(&format!("{header}{body}")).expect_err(body);
        assert_eq!(e.line, line, "{body}: {e}");
        assert!(e.to_string().contains(what), "{body}: {e}");
        assert!(e
            .render("p.cards", &format!("{header}{body}"), false)
            .contains('─'));
    }
}

#[test]
fn a_bit_named_only_in_a_branch_not_taken_is_a_typed_error() {
    let src = "protocol p\ninputs a b\nfunction xor\nlayout a b\n\
               turn 1 2 {\n  ♣♥: private a bisect 3 | 4 as r\n  ♥♣: {}\n}\n\
               private a perm id | (3 4) by r\nresult 3 4\n";
    let err = analyze(&protocol(src)).expect_err("r is unknown after ♥♣");
    assert!(
        matches!(&err, AnalysisError::UnboundPrivateBit { bit, .. } if bit == "r"),
        "{err}"
    );
    assert!(err.to_string().contains("line 9"), "{err}");
}

#[test]
fn the_tables_refuse_each_private_operation_by_name() {
    let owners = [PartyId(1), PartyId(2)];
    for (src, what) in [
        (XOR, "private random cut or draw"),
        (
            "protocol p\ninputs a b\nfunction xor\nlayout a b\nprivate b look 1 2\nresult 1 2\n",
            "private look",
        ),
    ] {
        let p = protocol(src);
        let mut table = IdealTable::with_rng(2, trial_rng(0, 0));
        let err = run_on_table(
            &p,
            &[true, false],
            &owners,
            &mut table,
            RunOptions::default(),
        )
        .expect_err("no private operation on a table yet");
        assert!(
            matches!(&err, RunError::Unsupported { what: w, .. } if w.contains(what)),
            "{err}"
        );
    }
}

#[test]
fn a_trace_shows_what_only_the_holder_saw() {
    let p = protocol(XOR);
    let t = trace(&p, &[true, false], 3).expect("traces");
    assert_eq!(t.output, Some(true));
    let look = &t.steps[1];
    assert!(look.action.starts_with("private b look"), "{}", look.action);
    assert!(look.private_observation.is_some());
    assert!(look.observation.is_none(), "nothing is turned for everyone");
    assert!(t.steps[0].hidden_permutation.is_some(), "Alice's draw");
    let text = t.render(false);
    assert!(text.contains("its holder alone saw"), "{text}");
}

#[test]
fn the_state_tree_shows_each_private_outcome() {
    let dot = facedown_cards::tree::to_dot(&protocol(XOR)).expect("a tree");
    assert!(dot.contains("private a draws #1"), "{dot}");
    assert!(dot.contains("private a draws #2"), "{dot}");
    assert!(dot.contains("private b sees"), "{dot}");
}

#[test]
fn a_view_that_needs_another_players_draw_to_decode_is_no_output() {
    // Bob flips Alice's commitment privately, then it is turned: the turn shows a ⊕ r, which
    // only Bob can decode. As a non-committed output it is wrong, though each of Bob's draws
    // alone would decode.
    let src = "protocol p\ninputs a b\nfunction 0011\nlayout a\n\
               private b bisect 1 | 2\nturn 1 2\n";
    let an = analyze(&protocol(src)).expect("analyses");
    assert!(!an.correct);
    assert!(an
        .defects
        .iter()
        .any(|d| matches!(d, Defect::ViewDoesNotDetermineOutput { .. })));
}
