//! "Did you mean …?": the closest known word to a misspelt one.

/// The candidate closest to `word` in edit distance (transpositions count as one edit), if it
/// is close enough to be a likely misspelling: at most a third of the longer word's length
/// away, and at least one edit is always allowed.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| {
            (
                strsim::damerau_levenshtein(word, c.trim_end_matches('=')),
                c,
            )
        })
        .filter(|&(d, c)| d <= (word.chars().count().max(c.chars().count()) / 3).max(1))
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn a_near_miss_is_suggested_and_a_stranger_is_not() {
        let names = ["five-card-trick", "mks-four-card-and", "ms09-copy"];
        assert_eq!(closest("five-card-tric", names), Some("five-card-trick"));
        assert_eq!(closest("ms09-cpoy", names), Some("ms09-copy"));
        assert_eq!(closest("poker", names), None);
        assert_eq!(closest("suffle", ["shuffle", "turn"]), Some("shuffle"));
    }
}
