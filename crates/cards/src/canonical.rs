//! Canonical formatting of `.cards` source, comments kept (`facedown cards fmt`).
//!
//! The statements are written as [`crate::Protocol`]'s `Display` writes them (header lines in the
//! order `protocol`, `inputs`, `outputs`, `function`, `layout`, `claim`; one action per line; branch
//! blocks indented by two spaces; ♣/♥ glyphs; claim items in their canonical order), so a file
//! without comments formats to exactly `parse(text)?.to_string()`. Comments are kept:
//!
//! * a comment on a line of its own stays before the statement that follows it, indented as
//!   that statement; comments before the first statement stay at the top of the file, comments
//!   after the last one at the end;
//! * a comment after a statement on the same line stays at the end of that statement's line
//!   (after the last statement, when several share the line);
//! * one blank line is kept where the source had one or more before a statement or its
//!   comments.
//!
//! Formatting is idempotent and never changes the protocol: `parse(format(t))` equals
//! `parse(t)` up to spans, with the same comments in the same order (tests check both).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::model::{Action, ActionKind, Branch, Span};
use crate::parse::{source_layout, Comment, ParseError};
use crate::print::{describe, observation_text};
use crate::protocol::ProtocolParts;

/// Formats `.cards` source in the canonical form, keeping its comments.
pub fn format_source(src: &str) -> Result<String, ParseError> {
    let layout = source_layout(src)?;
    let mut starts: Vec<Span> = layout.headers.iter().map(|&(_, s)| s).collect();
    collect_starts(&layout.parts.body, &mut starts);
    starts.sort();
    let first = starts.first().copied().unwrap_or(END);
    let (preamble, rest): (Vec<Comment>, Vec<Comment>) = layout
        .comments
        .into_iter()
        .partition(|c| c.own_line && c.span < first);
    let mut f = Writer {
        attached: attach(&rest, &starts),
        blank_lines: layout.blank_lines,
        out: String::new(),
        trailing_end: Vec::new(),
        last_line: 0,
    };
    for c in &preamble {
        f.out.push_str(&c.text);
        f.out.push('\n');
        f.last_line = c.span.line;
    }
    f.trailing_end = f
        .attached
        .remove(&END)
        .map(|a| a.before)
        .unwrap_or_default();
    f.header(&layout.parts, &layout.headers);
    for a in &layout.parts.body {
        f.action(a, 0);
    }
    let end = std::mem::take(&mut f.trailing_end);
    for c in end {
        f.out.push_str(&c);
        f.out.push('\n');
    }
    Ok(f.out)
}

/// Whether `src` is already in canonical form.
pub fn is_canonical(src: &str) -> Result<bool, ParseError> {
    Ok(format_source(src)? == src)
}

/// The comments of a statement: those on lines of their own before it, and the one after it
/// on its line.
#[derive(Debug, Default)]
struct Attached {
    before: Vec<String>,
    trailing: Option<String>,
    /// The line where the statement's leading part (its first comment, or itself) starts.
    first_line: usize,
}

/// The key of comments after the last statement.
const END: Span = Span {
    line: usize::MAX,
    col: 0,
};

fn collect_starts(actions: &[Action], out: &mut Vec<Span>) {
    for a in actions {
        out.push(a.span);
        if let ActionKind::Turn {
            branches: Some(bs), ..
        } = &a.kind
        {
            for b in bs {
                out.push(b.span);
                collect_starts(&b.body, out);
            }
        }
    }
}

/// Attaches every comment to a statement start (`starts` sorted).
fn attach(comments: &[Comment], starts: &[Span]) -> BTreeMap<Span, Attached> {
    let mut out: BTreeMap<Span, Attached> = BTreeMap::new();
    for c in comments {
        if c.own_line {
            let next = starts.iter().copied().find(|s| *s > c.span).unwrap_or(END);
            let slot = out.entry(next).or_default();
            if slot.before.is_empty() {
                slot.first_line = c.span.line;
            }
            slot.before.push(c.text.clone());
        } else {
            let on_line = starts
                .iter()
                .copied()
                .rfind(|s| s.line == c.span.line && *s < c.span);
            match on_line {
                Some(s) => {
                    let slot = out.entry(s).or_default();
                    slot.trailing = Some(match slot.trailing.take() {
                        Some(t) => format!("{t} {}", c.text),
                        None => c.text.clone(),
                    });
                }
                // A comment after a piece of a statement that starts on an earlier line (a
                // multi-line shuffle set, say): keep it before the next statement.
                None => {
                    let next = starts.iter().copied().find(|s| *s > c.span).unwrap_or(END);
                    let slot = out.entry(next).or_default();
                    if slot.before.is_empty() {
                        slot.first_line = c.span.line;
                    }
                    slot.before.push(c.text.clone());
                }
            }
        }
    }
    out
}

struct Writer {
    attached: BTreeMap<Span, Attached>,
    blank_lines: std::collections::BTreeSet<usize>,
    out: String,
    trailing_end: Vec<String>,
    /// The source line of the statement (or preamble comment) written last.
    last_line: usize,
}

impl Writer {
    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    /// Writes the comments before the statement at `span` (and a blank line where the source
    /// had one), then its indentation.
    fn open(&mut self, span: Span, depth: usize) -> Option<String> {
        let attached = self.attached.remove(&span).unwrap_or_default();
        let first = if attached.before.is_empty() {
            span.line
        } else {
            attached.first_line
        };
        let after_open = self.out.is_empty() || self.out.ends_with("{\n");
        let same_line = first == self.last_line;
        if !after_open && !same_line && first > 1 && self.blank_lines.contains(&(first - 1)) {
            self.out.push('\n');
        }
        self.last_line = span.line;
        for c in &attached.before {
            self.indent(depth);
            self.out.push_str(c);
            self.out.push('\n');
        }
        self.indent(depth);
        attached.trailing
    }

    /// Ends the current line, with the statement's trailing comment.
    fn close(&mut self, trailing: Option<String>) {
        if let Some(t) = trailing {
            self.out.push_str("  ");
            self.out.push_str(&t);
        }
        self.out.push('\n');
    }

    fn header(&mut self, p: &ProtocolParts, spans: &[(&'static str, Span)]) {
        let mut text = String::new();
        // The canonical header, one line per keyword, in the order it prints.
        let _ = crate::print::write_header(&mut text, p);
        let mut order: Vec<(&'static str, Span)> = spans.to_vec();
        let rank = |k: &str| {
            [
                "protocol", "inputs", "outputs", "function", "layout", "claim",
            ]
            .iter()
            .position(|h| *h == k)
            .unwrap_or(6)
        };
        order.sort_by_key(|&(k, _)| rank(k));
        for (line, (_, span)) in text.lines().zip(order) {
            let trailing = self.open(span, 0);
            self.out.push_str(line);
            self.close(trailing);
        }
    }

    fn action(&mut self, a: &Action, depth: usize) {
        let trailing = self.open(a.span, depth);
        self.action_body(a, depth, trailing);
    }

    /// Writes an action from the current column (the indentation or a branch's `OBS: `).
    fn action_body(&mut self, a: &Action, depth: usize, trailing: Option<String>) {
        match &a.kind {
            ActionKind::Turn {
                branches: Some(bs), ..
            } if !bs.is_empty() => {
                let _ = write!(self.out, "{} {{", describe(&a.kind));
                self.close(trailing);
                for b in bs {
                    self.branch(b, depth + 1);
                }
                self.indent(depth);
                self.out.push_str("}\n");
            }
            kind => {
                self.out.push_str(&kind.to_string());
                self.close(trailing);
            }
        }
    }

    fn branch(&mut self, b: &Branch, depth: usize) {
        let trailing = self.open(b.span, depth);
        let _ = write!(self.out, "{}: ", observation_text(&b.observation));
        match b.body.as_slice() {
            [] => {
                self.out.push_str("{}");
                self.close(trailing);
            }
            [single] => {
                // The action shares the branch's line: its comments join the branch's.
                let inner = self.attached.remove(&single.span).unwrap_or_default();
                let mut trailing = trailing;
                if let Some(t) = inner.trailing {
                    trailing = Some(trailing.map_or(t.clone(), |b| format!("{b} {t}")));
                }
                if !inner.before.is_empty() {
                    // Comments inside a one-action block: keep them, above the branch line's
                    // continuation, by opening the block.
                    self.out.push('{');
                    self.close(trailing);
                    for c in &inner.before {
                        self.indent(depth + 1);
                        self.out.push_str(c);
                        self.out.push('\n');
                    }
                    self.indent(depth + 1);
                    self.action_body(single, depth + 1, None);
                    self.indent(depth);
                    self.out.push_str("}\n");
                    return;
                }
                self.action_body(single, depth, trailing);
            }
            body => {
                self.out.push('{');
                self.close(trailing);
                for a in body {
                    self.action(a, depth + 1);
                }
                self.indent(depth);
                self.out.push_str("}\n");
            }
        }
    }
}
