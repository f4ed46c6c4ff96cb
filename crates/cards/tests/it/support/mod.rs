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
