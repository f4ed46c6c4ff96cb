//! The claims of seed 003 (Chopsticks).

use std::collections::BTreeSet;

use super::{claim, join, Claim, Verdict};
use crate::chopsticks::analysis::{
    check_strategy, fibonacci_length, lookahead_needed, most_moves_in_a_turn, move_types,
    one_handed_length, one_move_lookahead, predecessors, solved, successor_codes, unreachable,
};
use crate::chopsticks::census::{census, seed_reachable_formula};
use crate::chopsticks::{Overflow, Rules as Chop, Splits, Status, Value};

/// Compares two displayed values.
fn same(
    id: &'static str,
    game: &'static str,
    text: &str,
    seed: String,
    computed: String,
    note: &str,
) -> Claim {
    let verdict = Verdict::of(&seed, &computed);
    claim(id, "003", game, text, seed, computed, verdict, note)
}

fn value_text(v: Value) -> String {
    match v {
        Value::Win(d) => format!("first player wins (in {d})"),
        Value::Loss(d) => format!("second player wins (in {d})"),
        Value::Draw => "draw".into(),
    }
}

fn winner_text(v: Value) -> &'static str {
    match v {
        Value::Win(_) => "first player",
        Value::Loss(_) => "second player",
        Value::Draw => "draw",
    }
}

fn start_value(rules: &Chop) -> Value {
    solved(rules).map_or(Value::Draw, |(_, s)| s.value(0))
}

/// The claims of seed 003 (Chopsticks).
pub fn chopsticks() -> Vec<Claim> {
    let mut out = Vec::new();
    let std = Chop::standard();
    let Ok((graph, solution)) = solved(&std) else {
        return out;
    };
    let g = "chopsticks";
    let types = move_types(&std);
    out.push(same(
        "move-kinds",
        g,
        "at most 14 kinds of move: 4 attacks, 4 divisions, 6 transfers",
        "14 = 4 + 4 + 6".into(),
        format!(
            "{} = {} + {} + {}",
            types.total(),
            types.attacks.len(),
            types.of("division"),
            types.of("transfer")
        ),
        "every distinct attack role and split over all 225 positions",
    ));
    let (most, at) = most_moves_in_a_turn(&graph);
    out.push(same(
        "moves-per-turn",
        g,
        "at most 5 moves are legal in one turn",
        "5".into(),
        most.to_string(),
        &format!("over the 204 reachable positions; e.g. at {}", at.code()),
    ));
    let succ = successor_codes(&std, "1312").unwrap_or_default();
    out.push(same(
        "successors-1312",
        g,
        "1312 leads to 2213, 1313, 2413, 0113 or 1222",
        "0113 1222 1313 2213 2413".into(),
        join(&succ),
        "sorted",
    ));
    let first = successor_codes(&std, "1111").unwrap_or_default();
    let second = successor_codes(&std, "1211").unwrap_or_default();
    out.push(same(
        "opening",
        g,
        "from 1111 the next position must be 1211, then 1212 or 1312",
        "1211 | 1212 1312".into(),
        format!("{} | {}", join(&first), join(&second)),
        "",
    ));
    out.extend(game_lengths(&graph));
    let c = census(&std, &mut |_| {}).ok();
    out.push(same(
        "positions",
        g,
        "625 codes, 225 functionally distinct positions, 204 reachable",
        "625 / 225 / 204".into(),
        c.map_or("?".into(), |c| {
            format!("{} / {} / {}", c.codes.unwrap_or(0), c.distinct, c.reachable)
        }),
        "reachable: every position some game from 1111 passes through, the start and the ends included",
    ));
    let seed_unreachable = "0000 0100 0200 0300 0400 1100 1101 1200 1300 1400 2200 2202 2300 2400 3300 3303 3400 3444 4400 4404 4444";
    let unr = unreachable(&std, &graph);
    out.push(same(
        "unreachable",
        g,
        "21 unreachable positions (listed): 15 with the player who just moved dead, 4 of the form [kk][0k], and 3444, 4444",
        format!("21: {seed_unreachable}"),
        format!("{}: {}", unr.len(), join(&unr)),
        "",
    ));
    let target = std.parse_position("3444").ok();
    let pred = target.map(|t| predecessors(&std, &t)).unwrap_or_default();
    out.push(same(
        "3444",
        g,
        "3444 is reached only from 4444, which is unreachable",
        "4444".into(),
        join(&pred),
        "predecessors of 3444 among all 225 positions",
    ));
    let mut ends: Vec<String> = graph
        .ends()
        .iter()
        .map(|&e| graph.positions[e as usize].code())
        .collect();
    ends.sort();
    out.push(same(
        "ends",
        g,
        "14 reachable end positions, 0001 … 0044: one for each live pair of the winner",
        "14: 0001 0002 0003 0004 0011 0012 0013 0014 0022 0023 0024 0033 0034 0044".into(),
        format!("{}: {}", ends.len(), join(&ends)),
        "",
    ));
    let odd = graph
        .ends()
        .iter()
        .filter(|&&e| graph.depth[e as usize] % 2 == 1)
        .count();
    out.push(same(
        "ends-first-player",
        g,
        "the first player wins 8 of the 14 ends, assuming games end in the fewest moves",
        "8".into(),
        odd.to_string(),
        "read as: the end is reached first after an odd number of moves (the first player made the last move)",
    ));
    out.extend(solved_claims(&std, &graph, &solution));
    out.extend(variant_claims());
    out.extend(general_claims());
    out
}

fn game_lengths(graph: &crate::chopsticks::Graph) -> Vec<Claim> {
    let g = "chopsticks";
    let depths: Vec<u32> = graph
        .ends()
        .iter()
        .map(|&e| graph.depth[e as usize])
        .collect();
    let shortest = depths.iter().copied().min().unwrap_or(0);
    let longest = depths.iter().copied().max().unwrap_or(0);
    let codes = |games: &[Vec<u32>]| -> Vec<String> {
        games
            .iter()
            .map(|p| {
                p.iter()
                    .map(|&i| graph.positions[i as usize].code())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    let short = codes(&graph.outward_games(shortest));
    let long = codes(&graph.outward_games(longest));
    let long_ends: BTreeSet<&str> = long.iter().filter_map(|p| p.rsplit(' ').next()).collect();
    let seed_long = [
        "1111 1211 1212 2212 2322 0223 0202 0402 0104 0001",
        "1111 1211 1212 2312 2323 0323 0303 0103 0401 0004",
    ];
    let listed = seed_long.iter().all(|s| long.iter().any(|p| p == s));
    vec![
        same(
            "shortest-game",
            g,
            "the shortest game has 5 moves, and there is one: 1111 1211 1312 0113 1401 0014",
            "5: 1111 1211 1312 0113 1401 0014".into(),
            format!("{shortest}: {}", short.join(" / ")),
            "",
        ),
        claim(
            "longest-outward-game",
            "003",
            g,
            "the longest game that moves farther from the start with every move has 9 moves; there are two cases (listed)",
            "9 moves, 2 cases",
            format!(
                "{longest} moves; {} games, ending in {} positions ({}); both listed games {}",
                long.len(),
                long_ends.len(),
                long_ends.iter().copied().collect::<Vec<_>>().join(", "),
                if listed { "among them" } else { "NOT among them" }
            ),
            if longest == 9 && long_ends.len() == 2 { Verdict::Reading } else { Verdict::Differs },
            "\"farther\" read as one move deeper in breadth-first distance from 1111: the two cases are the two end positions at distance 9; counted as distinct games there are more",
        ),
        claim(
            "unbounded-with-revisits",
            "003",
            g,
            "with positions revisited, a game can be arbitrarily long",
            "unbounded",
            if graph.has_cycle() { "unbounded (the reachable graph has a cycle)" } else { "bounded" },
            Verdict::of(true, graph.has_cycle()),
            "",
        ),
    ]
}

fn solved_claims(
    std: &Chop,
    graph: &crate::chopsticks::Graph,
    solution: &crate::chopsticks::Solution,
) -> Vec<Claim> {
    let g = "chopsticks";
    let look = one_move_lookahead(graph, solution);
    let horizon = lookahead_needed(graph, solution);
    let mut out = vec![
        same(
            "perfect-play",
            g,
            "two perfect players play for ever (the game is a draw)",
            "draw".into(),
            winner_text(solution.value(0)).into(),
            "retrograde analysis of the 204 reachable positions",
        ),
        claim(
            "one-move-lookahead",
            "003",
            g,
            "even very inexperienced players avoid losing by looking one move ahead",
            "one move suffices",
            format!(
                "one move does not suffice (trap: {}); looking {} moves ahead does",
                look.trap.clone().unwrap_or_default(),
                horizon.map_or("?".into(), |h| h.to_string())
            ),
            Verdict::of(true, look.first_safe && look.second_safe),
            "a player who only avoids moves after which the opponent wins at once can be forced into 0144 (any move loses); avoiding every position the opponent can win within 3 moves is enough, since no forced win in the game is longer than 3 moves",
        ),
    ];
    let mut suicide = *std;
    suicide.suicide = true;
    let example = suicide.parse_position("1201").ok().and_then(|p| {
        let graph = crate::chopsticks::Graph::explore(&suicide, p, 1 << 16).ok()?;
        Some(crate::chopsticks::Solution::retrograde(&graph).value(0))
    });
    let forced = successor_codes(&suicide, "0103").unwrap_or_default();
    out.push(same(
        "suicide-example",
        g,
        "with suicide, from 1201 the split 12–03 gives 0103, the opponent must play to 0401, and the first player wins at once",
        "0401 forced; first player wins".into(),
        format!(
            "{} forced; {}",
            join(&forced),
            example.map_or("?".into(), |v| value_text(v).replace("first player", "the mover"))
        ),
        "the value of 1201 for its mover, by retrograde analysis of the suicide game",
    ));
    out.iter_mut()
        .filter(|c| c.id == "suicide-example")
        .for_each(|c| {
            let ok = forced == ["0401"] && example == Some(Value::Win(3));
            c.verdict = Verdict::of(true, ok);
        });
    out
}

fn variant_claims() -> Vec<Claim> {
    let g = "chopsticks";
    let std = Chop::standard();
    let with = |f: &dyn Fn(&mut Chop)| {
        let mut r = std;
        f(&mut r);
        r
    };
    let meta = move_types(&with(&|r| r.meta = true));
    let meta_suicide = move_types(&with(&|r| {
        r.meta = true;
        r.suicide = true;
    }));
    let names = |t: &crate::chopsticks::analysis::MoveTypes, k: &str| -> String {
        t.splits
            .get(k)
            .map(|s| s.iter().cloned().collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    };
    let cutoff = with(&|r| r.overflow = Overflow::Cutoff);
    let cutoff_value = start_value(&cutoff);
    let strategy = solved(&cutoff)
        .map(|(g, _)| {
            (
                check_strategy(&g, 1, &[1, 2]),
                check_strategy(&g, 0, &[1, 2]),
            )
        })
        .ok();
    let halves = start_value(&with(&|r| r.splits = Splits::Halves { odd: false }));
    let halves_odd = start_value(&with(&|r| r.splits = Splits::Halves { odd: true }));
    let div_suicide = start_value(&with(&|r| {
        r.splits = Splits::DivisionsOnly;
        r.suicide = true;
    }));
    let swaps: Vec<String> = (1..=3)
        .map(|b| winner_text(start_value(&with(&|r| r.swaps = Some(b)))).to_string())
        .collect();
    vec![
        same(
            "meta-moves",
            g,
            "meta adds 2 moves (34–11, 44–12)",
            "34–11 44–12".into(),
            names(&meta, "meta"),
            "",
        ),
        same(
            "meta-suicide-moves",
            g,
            "meta with suicide adds 4 more (24–01, 33–01, 34–02, 44–03)",
            "24–01 33–01 34–02 44–03".into(),
            names(&meta_suicide, "meta-suicide"),
            "",
        ),
        claim(
            "meta-suicide-total",
            "003",
            g,
            "with meta and suicide there are at most 20 kinds of move",
            "20",
            format!(
                "{} (plain suicides: {})",
                meta_suicide.total(),
                names(&meta_suicide, "suicide")
            ),
            Verdict::Reading,
            "20 = 14 + 2 + 4 leaves out the four splits suicide allows by itself (11–02, 12–03, 13–04, 22–04); counting them gives 24",
        ),
        claim(
            "cutoff",
            "003",
            g,
            "with cutoff the first player can force a win, keeping [1211] then [ab12] after each of his moves",
            "first player wins",
            format!(
                "{}; the strategy (own hands [12]) forces a win: {}; (opponent's hands [12]): {}",
                value_text(cutoff_value),
                strategy.map_or("?".into(), |s| s.0.weak.to_string()),
                strategy.map_or("?".into(), |s| s.1.weak.to_string())
            ),
            Verdict::of("first player", winner_text(cutoff_value)),
            "cutoff = a hand reaching 5 or more dies; the strategy cannot even be followed: in 1312 (after 1111 1211 and an attack on his 1) no move leaves the first player [12]. Cutoff with suicide, transfers only or no splits is a second-player win; no reading tried gives the first player a win",
        ),
        claim(
            "halves",
            "003",
            g,
            "with halves (splits only into equal halves) the second player can force a win",
            "second player wins",
            format!(
                "even only: {}; odd as evenly as possible too: {}",
                winner_text(halves),
                winner_text(halves_odd)
            ),
            Verdict::of("second player", winner_text(halves)),
            "also a draw when halves may only revive a dead hand, and with cutoff",
        ),
        claim(
            "division-suicide",
            "003",
            g,
            "with divisions and suicide only the second player can force a win",
            "second player wins",
            winner_text(div_suicide),
            Verdict::of("second player", winner_text(div_suicide)),
            "transfers forbidden, divisions and suicidal splits allowed; also a draw with cutoff",
        ),
        claim(
            "swaps-draw",
            "003",
            g,
            "with swaps the game usually ends in a draw by repetition",
            "draw",
            format!("at most 1 / 2 / 3 swaps in a row: {}", swaps.join(" / ")),
            Verdict::of(true, swaps.iter().all(|s| s == "draw")),
            "",
        ),
        {
            let unreachable_suns = solved(&std)
                .map(|(g, _)| std.parse_position("4444").is_ok_and(|p| g.id(&p).is_none()))
                .unwrap_or(false);
            claim(
                "suns",
                "003",
                g,
                "suns start at 4444, a position unreachable in ordinary play",
                "unreachable",
                if unreachable_suns { "unreachable" } else { "reachable" },
                Verdict::of(true, unreachable_suns),
                "",
            )
        },
    ]
}

fn general_claims() -> Vec<Claim> {
    let g = "chopsticks";
    let mut out = Vec::new();
    let rows: Vec<(u64, u64, u64, u64)> = (3..=12u8)
        .filter_map(|r| {
            let c = census(&Chop::pr(2, r), &mut |_| {}).ok()?;
            Some((u64::from(r), c.codes.unwrap_or(0), c.distinct, c.reachable))
        })
        .collect();
    let seed_table: [(u64, u64, u64, u64); 10] = [
        (3, 81, 36, 26),
        (4, 256, 100, 85),
        (5, 625, 225, 204),
        (6, 1296, 441, 413),
        (7, 2401, 784, 748),
        (8, 4096, 1296, 1251),
        (9, 6561, 2025, 1970),
        (10, 10000, 3025, 2959),
        (11, 14641, 4356, 4278),
        (12, 20736, 6084, 5993),
    ];
    let distinct_ok = rows
        .iter()
        .all(|&(r, _, d, _)| d == (r * (r + 1) / 2).pow(2));
    out.push(claim(
        "distinct-formula",
        "003",
        g,
        "the (2, r) game has C(r+1, 2)² functionally distinct positions",
        "C(r+1,2)²",
        if distinct_ok {
            "C(r+1,2)² for r = 3..12"
        } else {
            "differs"
        },
        Verdict::of(true, distinct_ok),
        "",
    ));
    let differing: Vec<String> = rows
        .iter()
        .filter(|&&(r, _, _, reach)| reach != seed_reachable_formula(r))
        .map(|&(r, _, _, reach)| format!("r = {r}: {reach}"))
        .collect();
    out.push(claim(
        "reachable-formula",
        "003",
        g,
        "for r > 2 the (2, r) game has C(r+1,2)² − (C(r+1,2) + (r − 1) + 2) reachable positions",
        "the formula",
        if differing.is_empty() {
            "the formula".to_string()
        } else {
            format!("one fewer for even r ({})", differing.join(", "))
        },
        Verdict::of(0, differing.len()),
        "for even r the end position [00][r/2 r/2] is unreachable too: it can only follow [r/2 r/2][0 r/2], one of the seed's own unreachable [kk][0k]",
    ));
    for (row, seed) in rows.iter().zip(seed_table) {
        let (r, codes, distinct, reach) = *row;
        out.push(claim(
            "table-row",
            "003",
            g,
            &format!("(2, {r}) game: positions, distinct, reachable"),
            format!("{} / {} / {}", seed.1, seed.2, seed.3),
            format!("{codes} / {distinct} / {reach}"),
            Verdict::of((seed.1, seed.2, seed.3), (codes, distinct, reach)),
            if seed.3 == reach {
                ""
            } else {
                "the seed's row follows its formula; see reachable-formula"
            },
        ));
    }
    let three = |pass: bool, p: u8| {
        let mut r = Chop::pr(p, 5);
        r.out_players_pass = pass;
        census(&r, &mut |_| {}).map(|c| c.reachable).unwrap_or(0)
    };
    let (skip3, pass3) = (three(false, 3), three(true, 3));
    out.push(claim(
        "three-players",
        "003",
        g,
        "with 3 players there are 3337 positions",
        3337,
        format!("{pass3} when a player who is out keeps his turn and passes; {skip3} when he is skipped"),
        if pass3 == 3337 || skip3 == 3337 { Verdict::Reading } else { Verdict::Differs },
        "reachable positions of (3, 5) from 111111; an eliminated player's hands stay in the code as 00",
    ));
    let (skip4, pass4) = (three(false, 4), three(true, 4));
    out.push(claim(
        "four-players",
        "003",
        g,
        "with 4 players there are more than 25 000 positions",
        "> 25000",
        format!("{pass4} (out players pass) / {skip4} (skipped)"),
        Verdict::of(true, skip4 > 25_000 && pass4 > 25_000),
        "",
    ));
    let alone = [1, 0].map(|p| {
        let rules = Chop::pr(p, 5);
        rules.status(&rules.start())
    });
    out.push(claim(
        "fewer-than-two",
        "003",
        g,
        "with one player he wins at once, being the last left; with none nobody wins",
        "one: wins; none: no winner",
        format!(
            "one player: the start is over, {:?}; no players: {:?}",
            alone[0], alone[1]
        ),
        Verdict::of([Status::Won(0), Status::NoWinner], alone),
        "the end test of the engine (the last player standing wins) applied to the start",
    ));
    let r1 = Chop::pr(2, 1);
    out.push(claim(
        "rollover-1",
        "003",
        g,
        "rollover 1 is trivial: every hand is dead from the start",
        "trivial",
        format!("start is over: {:?}", r1.status(&r1.start())),
        Verdict::of(Status::NoWinner, r1.status(&r1.start())),
        "",
    ));
    let r2 = Chop::pr(2, 2);
    let mut r2c = r2;
    r2c.overflow = Overflow::Cutoff;
    let degenerate = solved(&r2)
        .ok()
        .zip(solved(&r2c).ok())
        .map(|((g, s), (gc, _))| {
            let splits = g.positions.iter().any(|p| {
                r2.moves(p)
                    .iter()
                    .any(|(m, _)| matches!(m, crate::chopsticks::Move::Split { .. }))
            });
            let lengths: BTreeSet<u32> = g.ends().iter().map(|&e| g.depth[e as usize]).collect();
            (splits, g.len() == gc.len(), s.value(0), lengths)
        });
    out.push(claim(
        "rollover-2",
        "003",
        g,
        "rollover 2 is degenerate: no splits, rollover and cutoff the same game, a first-player win",
        "no splits; same game; first player wins",
        degenerate.as_ref().map_or("?".into(), |(splits, same, v, lengths)| {
            format!(
                "splits: {}; same game: {same}; {}; every game lasts {:?} moves",
                if *splits { "some" } else { "none" },
                value_text(*v),
                lengths
            )
        }),
        Verdict::of(
            Some((false, true, "first player")),
            degenerate.as_ref().map(|(s, same, v, _)| (*s, *same, winner_text(*v))),
        ),
        "",
    ));
    let fib: Vec<(u8, Option<u32>, Option<u32>)> = (2..=30)
        .map(|r| (r, one_handed_length(r), fibonacci_length(r)))
        .collect();
    let fib_ok = fib.iter().all(|(_, a, b)| a == b);
    out.push(claim(
        "one-hand-fibonacci",
        "003",
        g,
        "with one hand each, the position after k moves is a pair of Fibonacci numbers mod r and the game length follows from when r divides a Fibonacci number",
        "Fibonacci mod r",
        format!(
            "length = α(r) − 2 for r = 2..30 ({})",
            fib.iter()
                .take(6)
                .map(|(r, a, _)| format!("r={r}: {}", a.unwrap_or(0)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Verdict::of(true, fib_ok),
        "α(r) = the first n with r | F(n); the seed's formula is garbled in the copy, this is the reading that the engine confirms",
    ));
    out
}
