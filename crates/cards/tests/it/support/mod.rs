//! Helpers shared by this crate's integration tests.

/// Applies `edits` to `src`, for the parser's no-panic property tests: each `(at, kind, pick)`
/// acts at character `at` (modulo the length) and, by `kind % 4`, deletes it, inserts
/// `alphabet[pick]` before it, replaces it by `alphabet[pick]`, or duplicates up to `max_copy`
/// characters starting there.
pub fn mutate(
    src: &str,
    edits: &[(usize, u8, usize)],
    alphabet: &[char],
    max_copy: usize,
) -> String {
    let mut chars: Vec<char> = src.chars().collect();
    for &(at, kind, pick) in edits {
        if chars.is_empty() {
            break;
        }
        let i = at % chars.len();
        match kind % 4 {
            0 => {
                chars.remove(i);
            }
            1 => chars.insert(i, alphabet[pick % alphabet.len()]),
            2 => chars[i] = alphabet[pick % alphabet.len()],
            _ => {
                let j = (i + pick % max_copy.max(1)).min(chars.len());
                let copy: Vec<char> = chars[i..j].to_vec();
                chars.splice(i..i, copy);
            }
        }
    }
    chars.into_iter().collect()
}

/// Parses a protocol that must parse (the source is shown when it does not).
pub fn protocol(src: &str) -> facedown_cards::Protocol {
    facedown_cards::parse::parse(src).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// Checks that `p` states a complete claim and that the analysis agrees with it.
pub fn assert_analyses_as_claimed(p: &facedown_cards::Protocol) {
    let claim = p.claim().cloned().expect("states a claim");
    assert!(claim.is_complete(), "{}", p.name());
    let analysis = facedown_cards::analyze::analyze(p).expect("analyses");
    let c = facedown_cards::claim::check(analysis, Some(&claim), None);
    assert!(c.holds(), "{}: {:?}", p.name(), c.mismatches);
}

/// Checks that `count` runs of `runs` are within five standard errors of the exact probability
/// `prob` (a Monte-Carlo frequency against the analyzer); `what` names the view and input.
pub fn assert_frequency_near(count: u64, runs: u64, prob: f64, what: &str) {
    let freq = count as f64 / runs as f64;
    let se = (prob * (1.0 - prob) / runs as f64).sqrt();
    assert!(
        (freq - prob).abs() <= 5.0 * se + 1e-9,
        "{what}: {freq} against exact {prob}"
    );
}

/// Checks that every player's own view is at total-variation distance `tv` (an integer: 0 for
/// perfect, 1 for a view that can tell two inputs apart) and that there is one per input.
pub fn assert_every_player_at_distance(a: &facedown_cards::analyze::Analysis, tv: i64) {
    assert_eq!(
        a.players.len(),
        a.inputs.len().trailing_zeros() as usize,
        "{}",
        a.name
    );
    let want = facedown_cards::model::Q::from_integer(tv.into());
    for leak in &a.players {
        assert_eq!(
            leak.tv_distance,
            Some(want.clone()),
            "{}: {}",
            a.name,
            leak.player
        );
    }
}

/// The outcomes of the shards `1/count … count/count` of `q`.
pub fn shards(
    q: &facedown_cards::search::SearchQuery,
    count: usize,
) -> Vec<facedown_cards::search::SearchOutcome> {
    (1..=count)
        .map(|i| {
            let mut part = q.clone();
            part.shard = Some(facedown_cards::search::Shard::new(i, count).expect("a valid shard"));
            facedown_cards::search::search(&part).expect("the shard runs")
        })
        .collect()
}
