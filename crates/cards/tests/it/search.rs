//! Protocol search (`facedown cards search`): each test reproduces a named fact of card-based
//! cryptography or checks that a bad query gets a typed error.

use facedown_cards::analyze::{analyze, Runtime, Security};
use facedown_cards::parse::parse;
use facedown_cards::search::{
    parse_deck, parse_function, search, SearchError, SearchOutcome, SearchQuery, SearchRuntime,
    SearchSecurity, ShuffleClass,
};
use facedown_core::Symbol;

fn query(
    deck: &str,
    f: &str,
    steps: usize,
    shuffles: ShuffleClass,
    committed: bool,
) -> SearchQuery {
    let mut q = SearchQuery::new(
        parse_deck(deck).expect("deck"),
        parse_function(f).expect("function"),
        steps,
    );
    q.shuffles = shuffles;
    q.committed = committed;
    q
}

/// Every reported protocol parses back and the analyzer confirms it independently: correct, at
/// least `security`, finite runtime, committed as asked, and exactly `len` steps on every path.
fn confirm(out: &SearchOutcome, len: usize, committed: bool, security: Security) {
    assert!(out.found);
    assert_eq!(out.length, Some(len));
    assert!(!out.protocols.is_empty());
    for t in &out.protocols {
        let p = parse(t).expect("search output parses");
        let a = analyze(&p).expect("analyzable");
        assert!(a.correct, "{t}");
        assert!(a.security <= security, "{t}: {}", a.security);
        assert_eq!(a.committed, committed, "{t}");
        assert!(a.max_shuffles.is_some(), "finite runtime: {t}");
        assert!(a.errors().is_empty(), "{t}: {:?}", a.errors());
    }
}

#[test]
fn db89_five_card_trick_is_found_at_two_steps_with_five_cards() {
    let q = query("♣♣♥♥♥", "and", 3, ShuffleClass::RandomCuts, false);
    let out = search(&q).expect("search runs");
    confirm(&out, 2, false, Security::Perfect);
    assert!(out
        .protocols
        .iter()
        .any(|t| t.contains("shuffle cut 1 2 3 4 5") || t.contains("shuffle cut")));
}

#[test]
fn db89_five_card_trick_needs_five_cards_at_two_steps() {
    // With four cards nothing of two steps computes AND, even non-committed.
    let out = search(&query("♣♣♥♥", "and", 2, ShuffleClass::Closed, false)).expect("runs");
    assert!(!out.found);
    assert!(out.protocols.is_empty());
    assert!(out.states_explored > 0);
}

#[test]
fn mks12_four_card_and_is_found_at_four_steps() {
    // Two shuffles and two turns (Mizuki–Kumamoto–Sone), and nothing shorter.
    let out = search(&query("♣♣♥♥", "and", 5, ShuffleClass::Closed, false)).expect("runs");
    confirm(&out, 4, false, Security::Perfect);
}

#[test]
fn ms09_four_card_committed_xor_is_found_at_two_steps() {
    let out = search(&query("♣♣♥♥", "xor", 3, ShuffleClass::RandomCuts, true)).expect("runs");
    confirm(&out, 2, true, Security::Perfect);
}

#[test]
fn four_card_committed_xor_with_perfect_security_is_found_with_any_shuffles() {
    let mut q = query("♣♣♥♥", "0110", 2, ShuffleClass::Any, true);
    q.security = SearchSecurity::Perfect;
    let out = search(&q).expect("runs");
    confirm(&out, 2, true, Security::Perfect);
}

#[test]
fn two_colour_four_card_committed_xor_needs_a_bisection_cut() {
    // With random cuts only (no bisection cut) no 4-card committed XOR exists up to 6 steps;
    // [KSK19]'s model checker took more than two hours to rule out length 4.
    let out = search(&query("♣♣♥♥", "xor", 6, ShuffleClass::Cuts, true)).expect("runs");
    assert!(!out.found);
    let with_bisect =
        search(&query("♣♣♥♥", "xor", 6, ShuffleClass::RandomCuts, true)).expect("runs");
    assert_eq!(with_bisect.length, Some(2));
}

#[test]
fn ms09_six_card_committed_and_is_found_at_two_steps() {
    let mut q = query("♣♣♣♥♥♥", "and", 2, ShuffleClass::RandomCuts, true);
    q.first = true;
    let out = search(&q).expect("runs");
    confirm(&out, 2, true, Security::Perfect);
    assert_eq!(out.protocols.len(), 1, "--first keeps one");
}

#[test]
fn ms09_six_card_copy_is_found_at_two_steps() {
    let mut q = query("♣♣♣♥♥♥", "copy", 2, ShuffleClass::RandomCuts, true);
    q.first = true;
    let out = search(&q).expect("runs");
    confirm(&out, 2, true, Security::Perfect);
}

#[test]
fn kwh15_no_four_card_finite_committed_and_with_closed_shuffles_up_to_eight_steps() {
    // [KWH15]: no four-card committed AND with finite runtime. Our search covers the finite
    // family of the `closed` class (see the module docs); bench and report go further.
    let out = search(&query("♣♣♥♥", "and", 8, ShuffleClass::Closed, true)).expect("runs");
    assert!(!out.found);
    assert_eq!(
        out.per_depth.len(),
        8,
        "every depth up to the bound was searched"
    );
}

#[test]
fn kwh15_no_four_card_finite_committed_and_with_uniform_closed_shuffles_up_to_sixteen_steps() {
    let out = search(&query("♣♣♥♥", "and", 16, ShuffleClass::UniformClosed, true)).expect("runs");
    assert!(!out.found);
}

#[test]
fn kwh15_no_four_card_finite_committed_and_with_random_cuts_up_to_sixteen_steps() {
    let out = search(&query("♣♣♥♥", "and", 16, ShuffleClass::RandomCuts, true)).expect("runs");
    assert!(!out.found);
}

#[test]
fn kkwhs17_no_five_card_committed_and_with_closed_uniform_shuffles_up_to_six_steps() {
    // [KKWHS17]: with closed shuffles, finite-runtime committed AND needs six cards. Both
    // five-card decks (the helper ♣ or ♥), uniform closed shuffles, every turn set.
    for deck in ["♣♣♣♥♥", "♣♣♥♥♥"] {
        let out = search(&query(deck, "and", 6, ShuffleClass::UniformClosed, true)).expect("runs");
        assert!(!out.found, "{deck}");
        assert_eq!(out.per_depth.len(), 6, "{deck}: every depth searched");
    }
}

#[test]
fn kwh15_five_cards_suffice_for_a_finite_committed_and_with_non_closed_shuffles() {
    // [KWH15]: five cards suffice for a finite-runtime committed AND once shuffles need not be
    // closed. Found at 4 steps (2 shuffles, 2 turns) with uniform shuffles on sets of three
    // permutations, on both five-card decks; with supports of at most two permutations (plus
    // every closed shuffle of the `any` family) none up to 4 steps.
    for deck in ["♣♣♣♥♥", "♣♣♥♥♥"] {
        let mut q = query(deck, "and", 4, ShuffleClass::Uniform, true);
        q.max_support = 3;
        let out = search(&q).expect("runs");
        confirm(&out, 4, true, Security::Perfect);
        for text in &out.protocols {
            let p = parse(text).expect("parses");
            let a = analyze(&p).expect("analyzable");
            assert_eq!(a.max_shuffles, Some(2), "{text}");
        }
        let out = search(&query(deck, "and", 4, ShuffleClass::Any, true)).expect("runs");
        assert!(!out.found, "{deck}");
    }
}

#[test]
fn three_input_committed_xor_on_six_cards_takes_two_steps_not_four() {
    // Two [MS09] XORs composed compute a⊕b⊕c on six cards in four steps; the search finds
    // shorter ones: three steps with random cuts and bisections only, and two (one shuffle,
    // uniform on a cyclic group of order 4, and one turn) with closed shuffles.
    let xor3 = "01101001";
    let out = search(&query("♣♣♣♥♥♥", xor3, 4, ShuffleClass::RandomCuts, true)).expect("runs");
    confirm(&out, 3, true, Security::Perfect);
    let out = search(&query("♣♣♣♥♥♥", xor3, 4, ShuffleClass::Closed, true)).expect("runs");
    confirm(&out, 2, true, Security::Perfect);
}

#[test]
fn the_result_does_not_depend_on_the_number_of_threads() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            search(&query("♣♣♥♥", "and", 4, ShuffleClass::Closed, false)).expect("runs")
        })
    };
    let one = run(1);
    let two = run(2);
    let three = run(3);
    for other in [&two, &three] {
        assert_eq!(one.protocols, other.protocols);
        assert_eq!(one.states_explored, other.states_explored);
        assert_eq!(one.memo_hits, other.memo_hits);
        assert_eq!(one.length, other.length);
    }
    assert!(!one.protocols.is_empty());
}

#[test]
fn possibilistic_search_finds_xor_and_rejects_what_perfect_rejects() {
    let mut q = query("♣♣♥♥", "xor", 2, ShuffleClass::UniformClosed, true);
    q.security = SearchSecurity::InputPossibilistic;
    let out = search(&q).expect("runs");
    confirm(&out, 2, true, Security::InputPossibilistic);
    let mut q = query("♣♣♥♥", "and", 5, ShuffleClass::UniformClosed, true);
    q.security = SearchSecurity::OutputPossibilistic;
    assert!(!search(&q).expect("runs").found);
}

#[test]
fn bad_decks_are_typed_errors() {
    assert!(matches!(
        parse_deck("♣x♥"),
        Err(SearchError::BadDeck { .. })
    ));
    assert!(matches!(parse_deck(""), Err(SearchError::BadDeck { .. })));
    assert!(matches!(
        parse_deck("1123"),
        Err(SearchError::BadDeck { .. })
    ));
    // Two inputs need two ♣ and two ♥.
    let q = SearchQuery::new(
        parse_deck("♣♥♥♥").expect("parses"),
        parse_function("and").expect("f"),
        2,
    );
    assert!(matches!(search(&q), Err(SearchError::BadDeck { .. })));
    // Too many cards for canonical forms.
    let q = SearchQuery::new(
        parse_deck("♣♣♣♣♥♥♥♥").expect("parses"),
        parse_function("and").expect("f"),
        2,
    );
    assert!(matches!(search(&q), Err(SearchError::BadDeck { .. })));
    // Two inputs need four distinct cards.
    let q = SearchQuery::new(
        parse_deck("123").expect("parses"),
        parse_function("and").expect("f"),
        2,
    );
    assert!(matches!(search(&q), Err(SearchError::BadDeck { .. })));
    // Numbered cards and colours do not mix.
    let q = SearchQuery::new(
        vec![
            Symbol::Card(1),
            Symbol::Card(2),
            Symbol::Club,
            Symbol::Heart,
        ],
        parse_function("and").expect("f"),
        2,
    );
    assert!(matches!(search(&q), Err(SearchError::BadDeck { .. })));
}

#[test]
fn standard_deck_xor_is_found_at_two_steps_and_rechecked_with_its_ksk19_encoding() {
    // [MS09]'s XOR idea on four distinct cards, in the [KSK19] encoding (lower card first = 0):
    // written with standard-deck commitments, and confirmed by the analyzer from the text.
    let mut q = query("1234", "xor", 3, ShuffleClass::UniformClosed, true);
    q.single_card_turns = true;
    let out = search(&q).expect("runs");
    confirm(&out, 2, true, Security::Perfect);
    for t in &out.protocols {
        assert!(t.contains("layout a(#1 #2) b(#3 #4)"), "{t}");
        assert!(t.contains("shuffle"), "{t}");
    }
}

#[test]
fn ksk19_no_four_card_standard_deck_finite_committed_and_up_to_five_steps() {
    // [KSK19]: no finite-runtime AND with four distinguishable cards (fixed output basis).
    // Here for the finite `closed` family and single-card turns, as their tool turns.
    let mut q = query("1234", "and", 5, ShuffleClass::Closed, true);
    q.single_card_turns = true;
    let out = search(&q).expect("runs");
    assert!(!out.found);
    assert!(out.protocols.is_empty() && out.analyses.is_empty());
}

#[test]
fn bad_functions_are_typed_errors() {
    assert!(matches!(
        parse_function("001"),
        Err(SearchError::BadFunction { .. })
    ));
    assert!(matches!(
        parse_function("0000000000000000"),
        Err(SearchError::BadFunction { .. })
    ));
    assert!(matches!(
        parse_function("maj"),
        Err(SearchError::BadFunction { .. })
    ));
    let q = SearchQuery::new(
        parse_deck("♣♣♥♥").expect("deck"),
        parse_function("0000").expect("f"),
        2,
    );
    assert!(matches!(search(&q), Err(SearchError::BadFunction { .. })));
}

#[test]
fn meaningless_or_unsupported_queries_are_typed_errors() {
    let mut q = query("♣♣♥♥", "and", 2, ShuffleClass::Closed, false);
    q.security = SearchSecurity::OutputPossibilistic;
    assert!(matches!(search(&q), Err(SearchError::InvalidQuery(_))));
    let q = query("♣♣♥♥", "copy", 2, ShuffleClass::Closed, false);
    assert!(matches!(search(&q), Err(SearchError::InvalidQuery(_))));
    let mut q = query("♣♣♥♥", "copy", 2, ShuffleClass::Closed, true);
    q.copies = 3;
    assert!(matches!(search(&q), Err(SearchError::InvalidQuery(_))));
    let mut q = query("♣♣♥♥", "xor", 2, ShuffleClass::Any, true);
    q.max_support = 1;
    assert!(matches!(search(&q), Err(SearchError::InvalidQuery(_))));
    let q = query("♣♣♣♥♥♥♥", "and", 2, ShuffleClass::UniformClosed, true);
    assert!(matches!(search(&q), Err(SearchError::InvalidQuery(_))));
}

/// The cap on enumerated shuffles counts every support size together: on four cards no one
/// size of set passes 2 000 000 (the largest, 11 permutations besides the identity, is
/// C(23, 11) = 1 352 078), but all of them together are 2^23 − 1, and `--max-support 24` (or
/// any larger) is refused at once instead of enumerating them.
#[test]
fn a_max_support_whose_sets_pass_the_cap_only_together_is_refused() {
    for max_support in [24, usize::MAX] {
        let mut q = query("♣♣♥♥", "and", 2, ShuffleClass::Any, true);
        q.max_support = max_support;
        match search(&q) {
            Err(SearchError::InvalidQuery(why)) => {
                assert!(why.contains("more than 2000000 shuffles"), "{why}")
            }
            other => panic!("--max-support {max_support}: {:?}", other.map(|o| o.found)),
        }
    }
    let mut q = query("♣♣♥♥", "and", 2, ShuffleClass::Any, true);
    q.max_support = 4;
    assert!(search(&q).is_ok(), "a small support is still searched");
}

fn las_vegas(deck: &str, f: &str, radius: usize, shuffles: ShuffleClass) -> SearchQuery {
    let mut q = query(deck, f, radius, shuffles, true);
    q.runtime = SearchRuntime::LasVegas;
    q
}

#[test]
fn kwh15_four_card_las_vegas_committed_and_is_found_with_closed_shuffles() {
    // [KWH15]: four cards suffice for a committed AND whose runtime is finite in expectation;
    // their protocol uses the non-uniform closed shuffle {id: 1/3, π: 2/3} and takes 8 shuffles
    // in expectation (the format's worked example). The search finds one within radius 6 and the
    // analyzer, re-run here on the printed text, confirms it: correct, perfect, restart-free
    // Las Vegas (unbounded), expected shuffles exactly 8.
    let out = search(&las_vegas("♣♣♥♥", "and", 8, ShuffleClass::Closed)).expect("runs");
    assert!(out.found);
    assert_eq!(out.length, Some(6));
    assert_eq!(out.analyses.len(), out.protocols.len());
    for (t, reported) in out.protocols.iter().zip(&out.analyses) {
        assert!(t.contains("goto"), "a loop: {t}");
        let a = analyze(&parse(t).expect("search output parses")).expect("analyzable");
        assert!(a.correct && a.committed, "{t}");
        assert_eq!(a.security, Security::Perfect, "{t}");
        assert_eq!(a.runtime, Runtime::LasVegas, "{t}");
        assert_eq!(a.max_shuffles, None, "{t}");
        assert!(a.errors().is_empty(), "{t}: {:?}", a.errors());
        assert_eq!(
            reported.expected_shuffles,
            a.expected_shuffles.as_ref().map(ToString::to_string)
        );
    }
    assert!(out.analyses.iter().any(|a| a
        .expected_shuffles
        .as_ref()
        .map(ToString::to_string)
        .as_deref()
        == Some("8")));
    // The same bound with finite runtime: nothing (see the kwh15_no_four_card_finite_* tests).
    let finite = search(&query("♣♣♥♥", "and", 6, ShuffleClass::Closed, true)).expect("runs");
    assert!(!finite.found);
}

#[test]
fn kkwhs17_no_four_card_restart_free_las_vegas_and_with_uniform_closed_shuffles_within_radius_24() {
    // [KKWHS17]: with uniform closed shuffles, restart-free four-card AND protocols are impossible.
    // The state graph of uniform closed shuffles on ♣♣♥♥ grows without end, so the search shows
    // the bounded statement: no protocol whose states all lie within 24 steps of the start.
    let out = search(&las_vegas("♣♣♥♥", "and", 24, ShuffleClass::UniformClosed)).expect("runs");
    assert!(!out.found);
    assert!(!out.exhausted);
    assert_eq!(
        out.per_depth.len(),
        24,
        "every radius up to the bound was searched"
    );
}

#[test]
fn las_vegas_search_reports_impossibility_at_any_length_when_the_state_graph_is_exhausted() {
    // With random cuts only (no bisection cut), every reachable state of a four-card committed
    // AND is met within a few steps; none leads to a protocol, so none exists at any length —
    // the search says so instead of "none within the bound".
    let out = search(&las_vegas("♣♣♥♥", "and", 30, ShuffleClass::Cuts)).expect("runs");
    assert!(!out.found);
    assert!(out.exhausted);
    assert!(
        out.per_depth.len() < 30,
        "stopped early: {}",
        out.per_depth.len()
    );
    // Exhaustion is not claimed when the bound cuts the graph short.
    let out = search(&las_vegas("♣♣♥♥", "and", 2, ShuffleClass::UniformClosed)).expect("runs");
    assert!(!out.found && !out.exhausted);
}

#[test]
fn las_vegas_search_finds_finite_protocols_when_they_are_shortest() {
    // MKS12's four-card non-committed AND has finite runtime and radius 4; loops do not help.
    let mut q = las_vegas("♣♣♥♥", "and", 6, ShuffleClass::Closed);
    q.committed = false;
    let out = search(&q).expect("runs");
    assert_eq!(out.length, Some(4));
    assert!(out.analyses.iter().all(|a| a.runtime == "finite"));
}

#[test]
fn las_vegas_result_does_not_depend_on_the_number_of_threads() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| search(&las_vegas("♣♣♥♥", "and", 8, ShuffleClass::Closed)).expect("runs"))
    };
    let one = run(1);
    let three = run(3);
    assert!(one.found);
    assert_eq!(one.protocols, three.protocols);
    assert_eq!(one.states_explored, three.states_explored);
    assert_eq!(one.memo_hits, three.memo_hits);
}

#[test]
fn ksk19_four_card_standard_deck_las_vegas_and_with_random_cuts_only_is_found() {
    // [KSK19]: with four distinct cards there is an AND whose runtime is finite in expectation
    // using random cuts only (and, as above, none with finite runtime). The Las Vegas search
    // finds one with cuts alone; the analyzer confirms it from the text (basis rule included).
    let mut q = las_vegas("1234", "and", 8, ShuffleClass::Cuts);
    q.first = true;
    let out = search(&q).expect("runs");
    assert!(out.found);
    let t = &out.protocols[0];
    assert!(t.contains("goto"), "{t}");
    assert!(
        t.lines()
            .filter(|l| l.trim_start().starts_with("shuffle"))
            .all(|l| l.contains("shuffle cut")),
        "random cuts only: {t}"
    );
    let a = analyze(&parse(t).expect("search output parses")).expect("analyzable");
    assert!(a.correct && a.committed, "{t}: {:?}", a.errors());
    assert_eq!(a.security, Security::Perfect, "{t}");
    assert_eq!(a.runtime, Runtime::LasVegas, "{t}");
}

#[test]
fn ri18_four_card_restart_free_las_vegas_and_with_uniform_shuffles_only_is_found() {
    // [RI18]: four cards suffice for a restart-free Las Vegas committed AND whose shuffles are
    // all uniform (at the price of non-closed ones; [KKWHS17] rules out uniform closed ones).
    // With uniform shuffles on subgroups or on sets of at most three permutations the search
    // finds one; the analyzer confirms it from the text, and no shuffle in it has weights.
    let mut q = las_vegas("♣♣♥♥", "and", 8, ShuffleClass::Uniform);
    q.max_support = 3;
    q.first = true;
    let out = search(&q).expect("runs");
    assert!(out.found);
    let t = &out.protocols[0];
    assert!(
        !t.contains(": 1/3") && !t.contains(": 2/3"),
        "uniform only: {t}"
    );
    let a = analyze(&parse(t).expect("search output parses")).expect("analyzable");
    assert!(a.correct && a.committed, "{t}: {:?}", a.errors());
    assert_eq!(a.security, Security::Perfect, "{t}");
    assert_eq!(a.runtime, Runtime::LasVegas, "{t}");
}

#[test]
fn ahms21_five_card_committed_and_with_random_cuts_and_bisection_cuts_only_is_found() {
    // [AHMS21]: five cards suffice for a committed AND using only random cuts and random
    // bisection cuts (uniform cyclic shuffles). By [KKWHS17] such a protocol cannot have finite
    // runtime, so the Las Vegas search is the right question: it finds one on both five-card
    // decks, and the finite search finds none within the same bound.
    for deck in ["♣♣♣♥♥", "♣♣♥♥♥"] {
        let mut q = las_vegas(deck, "and", 6, ShuffleClass::RandomCuts);
        q.first = true;
        let out = search(&q).expect("runs");
        assert!(out.found, "{deck}");
        let t = &out.protocols[0];
        assert!(
            t.lines()
                .filter(|l| l.trim_start().starts_with("shuffle"))
                .all(|l| l.contains("shuffle cut") || l.contains("shuffle bisect")),
            "cuts and bisection cuts only: {t}"
        );
        let a = analyze(&parse(t).expect("search output parses")).expect("analyzable");
        assert!(a.correct && a.committed, "{t}: {:?}", a.errors());
        assert_eq!(a.security, Security::Perfect, "{t}");
        assert_eq!(a.runtime, Runtime::LasVegas, "{t}");
        let finite = search(&query(deck, "and", 6, ShuffleClass::RandomCuts, true)).expect("runs");
        assert!(!finite.found, "{deck}");
    }
}

#[test]
fn las_vegas_possibilistic_search_finds_what_perfect_security_forbids_and_the_analyzer_agrees() {
    // Under uniform closed shuffles no four-card restart-free AND is perfectly secure (see the
    // kkwhs17 test), but one that is only input-possibilistically secure exists: the states keep
    // exact probabilities (loops need them), the turns are judged possibilistically, and the
    // analyzer confirms the weaker level — and that the protocol is not perfect.
    let mut q = las_vegas("♣♣♥♥", "and", 10, ShuffleClass::UniformClosed);
    q.security = SearchSecurity::InputPossibilistic;
    q.first = true;
    let out = search(&q).expect("runs");
    assert!(out.found);
    let t = &out.protocols[0];
    let a = analyze(&parse(t).expect("search output parses")).expect("analyzable");
    assert!(a.correct && a.committed, "{t}: {:?}", a.errors());
    assert_eq!(a.security, Security::InputPossibilistic, "{t}");
    assert_eq!(a.runtime, Runtime::LasVegas, "{t}");
}

#[test]
fn output_possibilistic_security_compares_outputs_not_inputs() {
    // Output-possibilistic security [KSK19] only asks that every observation leave both outputs
    // possible. For XOR, turning one card of `a` does: whatever `a` is, `b` decides the output.
    // So a one-step protocol exists under that notion, and the analyzer confirms it is exactly
    // output-possibilistic (it reveals `a`, so it is not input-possibilistic).
    let mut q = query("♣♣♥♥", "xor", 2, ShuffleClass::Any, true);
    q.security = SearchSecurity::OutputPossibilistic;
    let out = search(&q).expect("runs");
    assert_eq!(out.length, Some(1));
    for t in &out.protocols {
        let a = analyze(&parse(t).expect("parses")).expect("analyzable");
        assert!(a.correct && a.committed, "{t}");
        assert_eq!(a.security, Security::OutputPossibilistic, "{t}");
    }
    // Under input-possibilistic security the same question needs two steps.
    q.security = SearchSecurity::InputPossibilistic;
    assert_eq!(search(&q).expect("runs").length, Some(2));
}
