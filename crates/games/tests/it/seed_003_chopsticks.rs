//! Seed 003 (Chopsticks): every numeric claim, asserted as this crate computes it. Where the
//! seed's number differs, the test asserts the computed one and its name says so; the reason is
//! in `docs/games.md`.

use facedown_games::chopsticks::analysis::lookahead_needed;
use facedown_games::chopsticks::analysis::{
    check_strategy, fibonacci_length, most_moves_in_a_turn, move_types, one_handed_length,
    one_move_lookahead, predecessors, solved, successor_codes, unreachable,
};
use facedown_games::chopsticks::census::{census, seed_reachable_formula};
use facedown_games::chopsticks::{Graph, Overflow, Rules, Solution, Splits, Status, Value};

fn standard() -> (Rules, Graph, Solution) {
    let rules = Rules::standard();
    let (graph, solution) = solved(&rules).expect("small");
    (rules, graph, solution)
}

fn codes(graph: &Graph, ids: &[u32]) -> Vec<String> {
    let mut out: Vec<String> = ids
        .iter()
        .map(|&i| graph.positions[i as usize].code())
        .collect();
    out.sort();
    out
}

fn start_value(f: impl Fn(&mut Rules)) -> Value {
    let mut rules = Rules::standard();
    f(&mut rules);
    solved(&rules).expect("small").1.value(0)
}

#[test]
fn claim_14_kinds_of_move_4_attacks_4_divisions_6_transfers() {
    let t = move_types(&Rules::standard());
    assert_eq!(t.attacks.len(), 4);
    assert_eq!(t.of("division"), 4);
    assert_eq!(t.of("transfer"), 6);
    assert_eq!(t.total(), 14);
    let divisions: Vec<&String> = t.splits["division"].iter().collect();
    assert_eq!(divisions, ["02–11", "03–12", "04–13", "04–22"]);
}

#[test]
fn claim_at_most_5_moves_in_a_turn() {
    let (_, graph, _) = standard();
    assert_eq!(most_moves_in_a_turn(&graph).0, 5);
}

#[test]
fn claim_1312_leads_to_2213_1313_2413_0113_1222() {
    let got = successor_codes(&Rules::standard(), "1312").expect("valid");
    assert_eq!(got, ["0113", "1222", "1313", "2213", "2413"]);
    assert_eq!(
        successor_codes(&Rules::standard(), "1111").expect("valid"),
        ["1211"]
    );
    assert_eq!(
        successor_codes(&Rules::standard(), "1211").expect("valid"),
        ["1212", "1312"]
    );
}

#[test]
fn claim_the_shortest_game_has_5_moves_and_is_unique() {
    let (_, graph, _) = standard();
    let shortest = graph
        .ends()
        .iter()
        .map(|&e| graph.depth[e as usize])
        .min()
        .expect("ends");
    assert_eq!(shortest, 5);
    let games = graph.outward_games(5);
    assert_eq!(games.len(), 1);
    let line: Vec<String> = games[0]
        .iter()
        .map(|&i| graph.positions[i as usize].code())
        .collect();
    assert_eq!(line.join(" "), "1111 1211 1312 0113 1401 0014");
}

#[test]
fn claim_the_longest_outward_game_has_9_moves_in_two_end_positions_but_15_games() {
    let (_, graph, _) = standard();
    let longest = graph
        .ends()
        .iter()
        .map(|&e| graph.depth[e as usize])
        .max()
        .expect("ends");
    assert_eq!(longest, 9);
    let games = graph.outward_games(9);
    assert_eq!(games.len(), 15, "distinct games (the seed lists two)");
    let mut ends: Vec<u32> = games.iter().filter_map(|g| g.last().copied()).collect();
    ends.sort_unstable();
    ends.dedup();
    assert_eq!(
        codes(&graph, &ends),
        ["0001", "0004"],
        "the seed's two cases"
    );
    let lines: Vec<String> = games
        .iter()
        .map(|g| {
            g.iter()
                .map(|&i| graph.positions[i as usize].code())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    for listed in [
        "1111 1211 1212 2212 2322 0223 0202 0402 0104 0001",
        "1111 1211 1212 2312 2323 0323 0303 0103 0401 0004",
    ] {
        assert!(lines.iter().any(|l| l == listed), "{listed}");
    }
}

#[test]
fn claim_with_revisits_a_game_is_unbounded() {
    let (_, graph, _) = standard();
    assert!(graph.has_cycle());
}

/// A census too large for the machine is refused before it allocates: six players with
/// rollover 10 number 55^6 ≈ 2.8·10^10 positions (a 3.5 GB bitset), past the 2^33 cap, and
/// the answer is a typed error naming the rules, at once.
#[test]
fn a_census_past_its_memory_cap_is_refused_naming_the_rules() {
    let rules = Rules::pr(6, 10);
    let err = census(&rules, &mut |_| {}).expect_err("too large");
    assert_eq!((err.players, err.rollover), (6, 10));
    assert!(err.to_string().contains("6 players"), "{err}");
}

#[test]
fn claim_625_codes_225_distinct_204_reachable() {
    let c = census(&Rules::standard(), &mut |_| {}).expect("small");
    assert_eq!(
        (c.codes, c.distinct, c.reachable, c.ends),
        (Some(625), 225, 204, 14)
    );
}

#[test]
fn claim_21_unreachable_positions_as_listed() {
    let (rules, graph, _) = standard();
    let got = unreachable(&rules, &graph);
    let listed = "0000 0100 0200 0300 0400 1100 1101 1200 1300 1400 2200 2202 2300 2400 3300 3303 3400 3444 4400 4404 4444";
    assert_eq!(got.join(" "), listed);
    let one_dead = got.iter().filter(|c| c.ends_with("00")).count();
    assert_eq!(one_dead, 15, "the player who just moved is dead");
}

#[test]
fn claim_3444_only_from_4444_which_is_unreachable() {
    let rules = Rules::standard();
    let target = rules.parse_position("3444").expect("valid");
    assert_eq!(predecessors(&rules, &target), ["4444"]);
    let four = rules.parse_position("4444").expect("valid");
    assert!(
        predecessors(&rules, &four).is_empty(),
        "no position leads to 4444"
    );
}

#[test]
fn claim_14_reachable_ends_of_which_the_first_player_wins_8_in_fewest_moves() {
    let (_, graph, _) = standard();
    let ends = graph.ends();
    assert_eq!(
        codes(&graph, &ends).join(" "),
        "0001 0002 0003 0004 0011 0012 0013 0014 0022 0023 0024 0033 0034 0044"
    );
    let first = ends
        .iter()
        .filter(|&&e| graph.depth[e as usize] % 2 == 1)
        .count();
    assert_eq!(first, 8);
}

#[test]
fn claim_perfect_play_is_an_endless_draw() {
    let (_, _, solution) = standard();
    assert_eq!(solution.value(0), Value::Draw);
}

#[test]
fn claim_one_move_lookahead_avoids_losing_is_false_three_moves_are_needed() {
    let (_, graph, solution) = standard();
    let look = one_move_lookahead(&graph, &solution);
    assert!(!look.first_safe && !look.second_safe);
    assert_eq!(look.trap.as_deref(), Some("0144"));
    assert_eq!(lookahead_needed(&graph, &solution), Some(3));
}

#[test]
fn claim_suicide_example_from_1201() {
    let mut rules = Rules::standard();
    rules.suicide = true;
    assert!(successor_codes(&rules, "1201")
        .expect("valid")
        .contains(&"0103".to_string()));
    assert_eq!(successor_codes(&rules, "0103").expect("valid"), ["0401"]);
    let start = rules.parse_position("1201").expect("valid");
    let graph = Graph::explore(&rules, start, 1 << 16).expect("small");
    assert_eq!(Solution::retrograde(&graph).value(0), Value::Win(3));
}

#[test]
fn claim_meta_adds_2_moves_and_meta_with_suicide_4_more_but_24_kinds_not_20() {
    let mut rules = Rules::standard();
    rules.meta = true;
    let meta = move_types(&rules);
    let names = |t: &facedown_games::chopsticks::analysis::MoveTypes, k: &str| -> Vec<String> {
        t.splits[k].iter().cloned().collect()
    };
    assert_eq!(names(&meta, "meta"), ["34–11", "44–12"]);
    rules.suicide = true;
    let both = move_types(&rules);
    assert_eq!(
        names(&both, "meta-suicide"),
        ["24–01", "33–01", "34–02", "44–03"]
    );
    assert_eq!(
        names(&both, "suicide"),
        ["11–02", "12–03", "13–04", "22–04"]
    );
    assert_eq!(
        both.total(),
        24,
        "the seed's 20 leaves out the plain suicides"
    );
}

#[test]
fn claim_cutoff_is_a_first_player_win_is_not_reproduced_it_is_a_draw() {
    let mut rules = Rules::standard();
    rules.overflow = Overflow::Cutoff;
    let (graph, solution) = solved(&rules).expect("small");
    assert_eq!(solution.value(0), Value::Draw);
    assert!(!check_strategy(&graph, 1, &[1, 2]).weak);
    assert!(!check_strategy(&graph, 0, &[1, 2]).weak);
    assert_eq!(
        successor_codes(&rules, "1312").expect("valid"),
        ["0113", "1222", "1313", "2213", "2413"],
        "none leaves the first player [12]"
    );
}

#[test]
fn claim_halves_is_a_second_player_win_is_not_reproduced_it_is_a_draw() {
    for odd in [false, true] {
        assert_eq!(
            start_value(|r| r.splits = Splits::Halves { odd }),
            Value::Draw
        );
    }
}

#[test]
fn claim_divisions_and_suicide_only_is_a_second_player_win_is_not_reproduced() {
    let value = start_value(|r| {
        r.splits = Splits::DivisionsOnly;
        r.suicide = true;
    });
    assert_eq!(value, Value::Draw);
}

#[test]
fn claim_swaps_give_a_draw() {
    for bound in 1..=3 {
        assert_eq!(start_value(|r| r.swaps = Some(bound)), Value::Draw);
    }
}

#[test]
fn claim_distinct_positions_are_c_r_plus_1_2_squared() {
    for r in 3..=12u8 {
        let c = census(&Rules::pr(2, r), &mut |_| {}).expect("small");
        let pairs = u64::from(r) * (u64::from(r) + 1) / 2;
        assert_eq!(c.distinct, pairs * pairs);
        assert_eq!(c.codes, Some(u64::from(r).pow(4)));
    }
}

#[test]
fn claim_reachable_formula_holds_for_odd_r_and_is_one_too_many_for_even_r() {
    let seed_table = [26, 85, 204, 413, 748, 1251, 1970, 2959, 4278, 5993];
    for (r, seed) in (3..=12u8).zip(seed_table) {
        let rules = Rules::pr(2, r);
        let c = census(&rules, &mut |_| {}).expect("small");
        let formula = seed_reachable_formula(u64::from(r));
        assert_eq!(seed, formula, "the seed's table is its formula");
        let extra = u64::from(r % 2 == 0);
        assert_eq!(c.reachable, formula - extra, "r = {r}");
        if r % 2 == 0 {
            let (graph, _) = solved(&rules).expect("small");
            let half = r / 2;
            let code: String = [0, 0, half, half]
                .iter()
                .map(|&v| char::from_digit(u32::from(v), 36).expect("digit"))
                .collect();
            let end = rules.parse_position(&code).expect("valid");
            assert!(graph.id(&end).is_none(), "{code} is unreachable");
        }
    }
}

#[test]
fn claim_3337_positions_for_three_players_when_out_players_keep_their_turn() {
    let mut rules = Rules::pr(3, 5);
    assert_eq!(census(&rules, &mut |_| {}).expect("small").reachable, 3141);
    rules.out_players_pass = true;
    assert_eq!(census(&rules, &mut |_| {}).expect("small").reachable, 3337);
}

#[test]
fn claim_over_25000_positions_for_four_players() {
    let mut rules = Rules::pr(4, 5);
    assert_eq!(
        census(&rules, &mut |_| {}).expect("small").reachable,
        47_235
    );
    rules.out_players_pass = true;
    assert_eq!(
        census(&rules, &mut |_| {}).expect("small").reachable,
        50_567
    );
}

#[test]
fn claim_one_player_wins_at_once_and_no_players_leave_no_winner() {
    let one = Rules::pr(1, 5);
    assert_eq!(one.status(&one.start()), Status::Won(0));
    let none = Rules::pr(0, 5);
    assert_eq!(none.status(&none.start()), Status::NoWinner);
}

#[test]
fn claim_rollover_1_is_trivial_and_rollover_2_a_forced_first_player_win() {
    let r1 = Rules::pr(2, 1);
    assert_eq!(r1.status(&r1.start()), Status::NoWinner);
    let r2 = Rules::pr(2, 2);
    let (graph, solution) = solved(&r2).expect("tiny");
    assert_eq!(solution.value(0), Value::Win(3));
    assert_eq!(graph.len(), 4);
    let mut cut = r2;
    cut.overflow = Overflow::Cutoff;
    let (cut_graph, _) = solved(&cut).expect("tiny");
    assert_eq!(
        codes(&graph, &(0..4).collect::<Vec<_>>()),
        codes(&cut_graph, &(0..4).collect::<Vec<_>>())
    );
}

#[test]
fn claim_one_handed_game_follows_fibonacci_mod_r() {
    for r in 2..=40u8 {
        assert_eq!(one_handed_length(r), fibonacci_length(r), "r = {r}");
    }
    assert_eq!(one_handed_length(5), Some(3));
}

#[test]
fn retrograde_values_are_consistent_with_their_successors() {
    for rules in [Rules::standard(), Rules::pr(2, 7), {
        let mut r = Rules::standard();
        r.overflow = Overflow::Cutoff;
        r.suicide = true;
        r
    }] {
        let (graph, solution) = solved(&rules).expect("small");
        for id in 0..graph.len() as u32 {
            let kids: Vec<Value> = graph
                .successors(id)
                .iter()
                .map(|&(c, _)| solution.value(c))
                .collect();
            match solution.value(id) {
                Value::Win(d) => assert!(kids.contains(&Value::Loss(d - 1))),
                Value::Loss(0) => assert!(kids.is_empty()),
                Value::Loss(d) => {
                    assert!(kids.iter().all(|k| matches!(k, Value::Win(e) if *e < d)));
                    assert!(kids.contains(&Value::Win(d - 1)));
                }
                Value::Draw => {
                    assert!(kids.contains(&Value::Draw));
                    assert!(!kids.iter().any(|k| matches!(k, Value::Loss(_))));
                }
            }
        }
    }
}
