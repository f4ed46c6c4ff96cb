//! The permutation budget: a protocol holds at most `MAX_PERM_ENTRIES` permutation entries
//! (cards × permutations), counted before the permutations are made, so that no file within
//! the 1 MB cap can make the parser allocate gigabytes. Every attack is built in memory.

use facedown_cards::parse::{parse, ParseError, ParseErrorKind, MAX_CARDS, MAX_PERM_ENTRIES};
use facedown_cards::protocol::{ProtocolError, MIN_PERM_ENTRIES};
use facedown_cards::{Action, ActionKind, Protocol, Shuffle};

/// The most permutations of the largest deck a protocol may hold.
const MAX_PERMS: usize = MAX_PERM_ENTRIES / MAX_CARDS;

/// A protocol on `cards` cards (two inputs, then clubs) whose body is `body`.
fn on_cards(cards: usize, body: &str) -> String {
    let clubs = vec!["♣"; cards - 4].join(" ");
    format!("protocol p\ninputs a b\nfunction and\nlayout a b {clubs}\n{body}")
}

fn ids(count: usize) -> String {
    vec!["id"; count].join(", ")
}

fn one_to(k: usize) -> String {
    (1..=k).map(|p| p.to_string()).collect::<Vec<_>>().join(" ")
}

fn refused(text: &str) -> ParseError {
    parse(text).expect_err("over the permutation budget")
}

fn over(cards: usize, perms: usize) -> ParseErrorKind {
    ParseErrorKind::TooManyPermutations {
        cards,
        perms,
        max: MAX_PERM_ENTRIES,
    }
}

#[test]
fn a_shuffle_set_of_many_ids_on_the_largest_deck_is_refused_at_the_first_id_over_the_budget() {
    // The reviewed attack: 196 575 `id`s of 65 536 cards, about 1 MB.
    let text = on_cards(
        MAX_CARDS,
        &format!("shuffle {{{}}}\nturn 1\n", ids(196_575)),
    );
    let e = refused(&text);
    assert_eq!(e.kind, over(MAX_CARDS, MAX_PERMS + 1));
    let column = "shuffle {".len() + "id, ".len() * MAX_PERMS + 1;
    assert_eq!((e.line, e.col), (5, column), "at the first `id` too many");
}

#[test]
fn the_budget_is_reached_exactly_and_one_permutation_more_is_refused() {
    let at_limit = on_cards(
        MAX_CARDS,
        &format!("shuffle {{{}}}\nturn 1\n", ids(MAX_PERMS)),
    );
    let p = parse(&at_limit).expect("exactly at the budget");
    assert_eq!(p.cards() * MAX_PERMS, MAX_PERM_ENTRIES);
    Protocol::new(p.into_parts()).expect("the validation counts as the parser does");
    let over_limit = format!("{at_limit}perm (1 2)\n");
    assert_eq!(refused(&over_limit).kind, over(MAX_CARDS, MAX_PERMS + 1));
}

#[test]
fn a_cut_of_every_card_of_the_largest_deck_is_refused_before_its_rotations_are_made() {
    let text = on_cards(MAX_CARDS, &format!("shuffle cut {}\n", one_to(MAX_CARDS)));
    let e = refused(&text);
    assert_eq!(e.kind, over(MAX_CARDS, MAX_CARDS));
    assert_eq!((e.line, e.col), (5, 9), "at `cut`");
}

#[test]
fn a_generated_group_is_enumerated_only_as_far_as_the_budget_allows() {
    // <(1 2), (1 … n)> is the symmetric group on 65 536 cards; two generators leave room for
    // 254 elements, and the 255th is refused.
    let text = on_cards(
        MAX_CARDS,
        &format!("shuffle <(1 2), ({})>\n", one_to(MAX_CARDS)),
    );
    assert_eq!(refused(&text).kind, over(MAX_CARDS, MAX_PERMS + 1));
}

#[test]
fn many_perm_actions_on_the_largest_deck_are_refused() {
    let text = on_cards(MAX_CARDS, &"perm (1 2)\n".repeat(100_000));
    let e = refused(&text);
    assert_eq!(e.kind, over(MAX_CARDS, MAX_PERMS + 1));
    assert_eq!(
        (e.line, e.col),
        (5 + MAX_PERMS, 6),
        "at the permutation too many"
    );
}

#[test]
fn each_private_reverse_counts_its_two_permutations() {
    let text = on_cards(MAX_CARDS, &"private a reverse 1 2 by a\n".repeat(40_000));
    let e = refused(&text);
    assert_eq!(e.kind, over(MAX_CARDS, MAX_PERMS + 2));
    assert_eq!(
        (e.line, e.col),
        (5 + MAX_PERMS / 2, 1),
        "at the `private` too many"
    );
}

#[test]
fn a_permutation_of_a_few_cards_counts_as_the_minimum() {
    let max_perms = MAX_PERM_ENTRIES / MIN_PERM_ENTRIES;
    let text = |count| on_cards(4, &format!("shuffle {{{}}}\n", ids(count)));
    parse(&text(max_perms)).expect("exactly at the budget");
    assert_eq!(refused(&text(max_perms + 1)).kind, over(4, max_perms + 1));
}

#[test]
fn a_budget_error_names_cards_permutations_and_the_limit_under_its_source_line() {
    let text = on_cards(MAX_CARDS, &format!("shuffle cut {}\n", one_to(MAX_CARDS)));
    let shown = refused(&text).render("bigcut.cards", &text, false);
    assert!(
        shown.starts_with(
            "error: line 5, column 9: the protocol's permutations are too large: 65536 cards × \
             65536 permutations is 4294967296 entries, at most 16777216 are supported"
        ),
        "{shown}"
    );
    assert!(shown.contains("bigcut.cards:5:9"), "{shown}");
    assert!(shown.contains("over the limit"), "{shown}");
}

#[test]
fn a_huge_cut_built_in_code_is_refused_by_the_validation() {
    let mut parts = parse(&on_cards(MAX_CARDS, "turn 1\n"))
        .expect("a large layout is fine")
        .into_parts();
    let cut = Shuffle::Cut((0..MAX_CARDS).collect());
    parts.body = vec![Action::new(ActionKind::Shuffle(cut))];
    match Protocol::new(parts) {
        Err(ProtocolError::TooManyPermutations { cards, perms, .. }) => {
            assert_eq!((cards, perms), (MAX_CARDS, MAX_CARDS));
        }
        other => panic!("expected TooManyPermutations, got {other:?}"),
    }
}
