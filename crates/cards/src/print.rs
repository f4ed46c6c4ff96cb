//! The canonical `.cards` text of a [`Protocol`] and its pieces.
//!
//! [`Display`](fmt::Display) writes what [`crate::parse::parse`] reads: the four header lines in
//! the order `protocol`, `inputs`, `function`, `layout`, then one action per line, Unicode ♣/♥,
//! 1-indexed positions, permutations in cycle notation, shuffles in the form they were written
//! (`{…}`, `{P: w, …}`, `<…>`, `cut`, `bisect`), and branch blocks indented by two spaces:
//!
//! ```text
//! turn 2 {
//!   ♥: turn 1
//!   ♣: {
//!     shuffle {id, (1 3)}
//!     goto SC
//!   }
//! }
//! ```
//!
//! A standard-deck commitment prints as `a(#1 #2)` / `~a(#1 #2)` \[KSK19\].
//! A branch whose body is one action keeps it on the branch's line; an empty body is `{}`.
//! Comments and the spelling of symbols (`C`/`H`) are not kept, so printing a parsed file gives
//! the same protocol up to [`Span`]s: `parse(&p.to_string())` equals `p` after
//! [`Protocol::without_spans`] on both sides (see [`same_up_to_spans`]).

use std::fmt::{self, Write as _};

use facedown_core::Symbol;

use crate::model::{Action, ActionKind, Branch, Function, LayoutItem, Protocol, Shuffle, Span};

/// The observation `obs` as written in a branch: `♣♥`, or `#1 #2` for numbered cards.
pub fn observation_text(obs: &[Symbol]) -> String {
    let mut out = String::new();
    for (k, s) in obs.iter().enumerate() {
        if k > 0 && (matches!(s, Symbol::Card(_)) || matches!(obs[k - 1], Symbol::Card(_))) {
            out.push(' ');
        }
        let _ = write!(out, "{s}");
    }
    out
}

fn positions(f: &mut fmt::Formatter<'_>, ps: &[usize]) -> fmt::Result {
    for (k, p) in ps.iter().enumerate() {
        if k > 0 {
            f.write_str(" ")?;
        }
        write!(f, "{}", p + 1)?;
    }
    Ok(())
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Function::Named(n) => f.write_str(n.keyword()),
            Function::Table(t) => {
                for &b in t {
                    f.write_str(if b { "1" } else { "0" })?;
                }
                Ok(())
            }
            Function::Copy => f.write_str("copy"),
        }
    }
}

impl fmt::Display for LayoutItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutItem::Input { name, negated } => {
                if *negated {
                    f.write_str("~")?;
                }
                f.write_str(name)
            }
            LayoutItem::InputOn {
                name,
                negated,
                cards,
            } => {
                if *negated {
                    f.write_str("~")?;
                }
                write!(f, "{name}({} {})", cards[0], cards[1])
            }
            LayoutItem::Constant(b) => f.write_str(if *b { "1" } else { "0" }),
            LayoutItem::Card(s) => write!(f, "{s}"),
        }
    }
}

impl fmt::Display for Shuffle {
    /// `{P1, P2}`, `{P1: w1, P2: w2}`, `<G1, G2>`, `cut P…` or `bisect P… | Q…` (without the
    /// `shuffle` keyword).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shuffle::Set { perms, weights } => {
                f.write_str("{")?;
                for (k, p) in perms.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{p}")?;
                    if let Some(w) = weights.as_ref().and_then(|ws| ws.get(k)) {
                        write!(f, ": {w}")?;
                    }
                }
                f.write_str("}")
            }
            Shuffle::Generated(gens) => {
                f.write_str("<")?;
                for (k, g) in gens.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{g}")?;
                }
                f.write_str(">")
            }
            Shuffle::Cut(ps) => {
                f.write_str("cut ")?;
                positions(f, ps)
            }
            Shuffle::Bisect(l, r) => {
                f.write_str("bisect ")?;
                positions(f, l)?;
                f.write_str(" | ")?;
                positions(f, r)
            }
        }
    }
}

fn indent(f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
    for _ in 0..depth {
        f.write_str("  ")?;
    }
    Ok(())
}

/// Writes `kind` starting at the current column; continuation lines are indented by `depth`
/// levels. Writes no final newline.
fn write_action(f: &mut fmt::Formatter<'_>, kind: &ActionKind, depth: usize) -> fmt::Result {
    match kind {
        ActionKind::Perm(p) => write!(f, "perm {p}"),
        ActionKind::Shuffle(s) => write!(f, "shuffle {s}"),
        ActionKind::Turn {
            positions: ps,
            branches,
        } => {
            f.write_str("turn ")?;
            positions(f, ps)?;
            match branches {
                None => Ok(()),
                Some(bs) if bs.is_empty() => f.write_str(" {}"),
                Some(bs) => {
                    f.write_str(" {\n")?;
                    for b in bs {
                        indent(f, depth + 1)?;
                        write_branch(f, b, depth + 1)?;
                        f.write_str("\n")?;
                    }
                    indent(f, depth)?;
                    f.write_str("}")
                }
            }
        }
        ActionKind::Result(pairs) => {
            f.write_str("result ")?;
            for (k, (p, q)) in pairs.iter().enumerate() {
                if k > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{} {}", p + 1, q + 1)?;
            }
            Ok(())
        }
        ActionKind::Label(l) => write!(f, "label {l}"),
        ActionKind::Goto(l) => write!(f, "goto {l}"),
        ActionKind::Restart => f.write_str("restart"),
    }
}

fn write_branch(f: &mut fmt::Formatter<'_>, b: &Branch, depth: usize) -> fmt::Result {
    write!(f, "{}: ", observation_text(&b.observation))?;
    match b.body.as_slice() {
        [] => f.write_str("{}"),
        [single] => write_action(f, &single.kind, depth),
        body => {
            f.write_str("{\n")?;
            for a in body {
                indent(f, depth + 1)?;
                write_action(f, &a.kind, depth + 1)?;
                f.write_str("\n")?;
            }
            indent(f, depth)?;
            f.write_str("}")
        }
    }
}

impl fmt::Display for ActionKind {
    /// The action as one statement (branch blocks span several lines).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_action(f, self, 0)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_action(f, &self.kind, 0)
    }
}

impl fmt::Display for Branch {
    /// `OBS: BODY`, the body on the same line when it is one action.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_branch(f, self, 0)
    }
}

impl fmt::Display for Protocol {
    /// The canonical `.cards` text, ending with a newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "protocol {}", self.name)?;
        writeln!(f, "inputs {}", self.inputs.join(" "))?;
        writeln!(f, "function {}", self.function)?;
        f.write_str("layout")?;
        for item in &self.layout {
            write!(f, " {item}")?;
        }
        f.write_str("\n")?;
        for a in &self.body {
            write_action(f, &a.kind, 0)?;
            f.write_str("\n")?;
        }
        Ok(())
    }
}

fn clear_spans(body: &[Action]) -> Vec<Action> {
    body.iter()
        .map(|a| Action {
            kind: match &a.kind {
                ActionKind::Turn {
                    positions,
                    branches,
                } => ActionKind::Turn {
                    positions: positions.clone(),
                    branches: branches.as_ref().map(|bs| {
                        bs.iter()
                            .map(|b| Branch {
                                observation: b.observation.clone(),
                                body: clear_spans(&b.body),
                                span: Span::default(),
                            })
                            .collect()
                    }),
                },
                other => other.clone(),
            },
            span: Span::default(),
        })
        .collect()
}

impl Protocol {
    /// The same protocol with every [`Span`] reset to `0:0` (as if built in code), for comparing
    /// protocols that were written differently.
    pub fn without_spans(&self) -> Protocol {
        Protocol {
            body: clear_spans(&self.body),
            ..self.clone()
        }
    }
}

/// Whether `a` and `b` are the same protocol, ignoring where their actions were written.
pub fn same_up_to_spans(a: &Protocol, b: &Protocol) -> bool {
    a.without_spans() == b.without_spans()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    #[test]
    fn weighted_shuffles_and_branches_print_canonically() {
        let src = "protocol p\ninputs a b\nfunction 0001\nlayout a C b\nturn 2 { c: { shuffle \
                   {id: 1/3, (1 2)(3 4): 2/3}; goto L }\nH: label L }\n";
        let p = parse(src).expect("parses");
        assert_eq!(
            p.to_string(),
            "protocol p\ninputs a b\nfunction 0001\nlayout a ♣ b\nturn 2 {\n  ♣: {\n    \
             shuffle {id: 1/3, (1 2)(3 4): 2/3}\n    goto L\n  }\n  ♥: label L\n}\n"
        );
    }

    #[test]
    fn numbered_cards_are_separated_in_observations() {
        assert_eq!(
            observation_text(&[Symbol::Card(1), Symbol::Card(12), Symbol::Club]),
            "#1 #12 ♣"
        );
        assert_eq!(observation_text(&[Symbol::Heart, Symbol::Club]), "♥♣");
    }
}
