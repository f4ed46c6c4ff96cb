//! The part of a source line a diagnostic shows: a long line (a file of one line of weights,
//! say) is cut to a window around the error, so that the report stays a few lines long
//! whatever the file.

use std::ops::Range;

/// The most characters of a source line shown under a diagnostic.
pub(super) const SHOWN_CHARS: usize = 120;

/// Characters shown before the error's start, when the line is cut.
const CONTEXT_BEFORE: usize = 40;

/// A window of one long source line, for [`ariadne`] to show in place of the whole source.
pub(super) struct Excerpt {
    /// The window, with `…` where the line was cut.
    pub text: String,
    /// The error's characters within `text`.
    pub label: Range<usize>,
    /// The column (from 1) at which the error starts in `text`.
    pub col: usize,
}

/// The window of the line holding `label` (character offsets into `chars`), or `None` when
/// that line is short enough to be shown whole.
pub(super) fn excerpt(chars: &[char], label: &Range<usize>) -> Option<Excerpt> {
    let start = label.start.min(chars.len());
    let line_start = chars[..start]
        .iter()
        .rposition(|&c| c == '\n')
        .map_or(0, |i| i + 1);
    let line_end = chars[start..]
        .iter()
        .position(|&c| c == '\n')
        .map_or(chars.len(), |i| start + i);
    if line_end - line_start <= SHOWN_CHARS {
        return None;
    }
    let from = line_start.max(start.saturating_sub(CONTEXT_BEFORE));
    let to = line_end.min(from + SHOWN_CHARS);
    let cut_before = usize::from(from > line_start);
    let mut text: String = if cut_before == 1 {
        "…".into()
    } else {
        String::new()
    };
    text.extend(&chars[from..to]);
    if to < line_end {
        text.push('…');
    }
    let first = start - from + cut_before;
    let last = label.end.clamp(start + 1, to.max(start + 1)) - from + cut_before;
    Some(Excerpt {
        text,
        label: first..last,
        col: first + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn a_short_line_is_shown_whole() {
        let src = chars("turn 1\nshuffle {id}\n");
        assert!(excerpt(&src, &(7..14)).is_none());
    }

    #[test]
    fn a_long_line_is_cut_around_the_error_and_marked() {
        let line = format!("{}X{}", "a".repeat(1_000), "b".repeat(1_000));
        let src = chars(&format!("first\n{line}\nlast"));
        let at = 6 + 1_000;
        let e = excerpt(&src, &(at..at + 1)).expect("cut");
        assert!(
            e.text.starts_with('…') && e.text.ends_with('…'),
            "{}",
            e.text
        );
        assert_eq!(e.text.chars().count(), SHOWN_CHARS + 2);
        let shown: Vec<char> = e.text.chars().collect();
        assert_eq!(shown[e.label.clone()], ['X']);
        assert_eq!(e.col, CONTEXT_BEFORE + 2);
    }

    #[test]
    fn a_huge_token_is_labelled_only_as_far_as_the_window() {
        let src = chars(&"9".repeat(100_000));
        let e = excerpt(&src, &(0..100_000)).expect("cut");
        assert_eq!(e.label, 0..SHOWN_CHARS);
        assert_eq!(e.col, 1);
        assert!(!e.text.starts_with('…') && e.text.ends_with('…'));
    }
}
