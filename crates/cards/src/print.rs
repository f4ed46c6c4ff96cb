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

use num_traits::Zero;

use crate::analyze::{Analysis, LeakWitness};
use crate::model::{
    Action, ActionKind, Branch, Function, LayoutItem, Observation, PrivateChoice, Shuffle, Span,
};
use crate::protocol::{Protocol, ProtocolParts};

/// Renders symbols as glyphs, `♣♥…` (numbered cards as `#n`, unseparated).
pub fn glyphs(symbols: &[Symbol]) -> String {
    symbols.iter().map(|s| s.to_string()).collect()
}

/// Renders a view (a list of observations) as `♥♣ / ♣`; the empty view is `(nothing)`.
pub fn render_view(view: &[Observation]) -> String {
    if view.is_empty() {
        return "(nothing)".to_owned();
    }
    view.iter()
        .map(|o| glyphs(&o.symbols))
        .collect::<Vec<_>>()
        .join(" / ")
}

/// `line L, col C`, or `(built in code)` for a construct that has no source position.
pub fn source_position(span: Span) -> String {
    if span == Span::default() {
        "(built in code)".to_owned()
    } else {
        format!("line {}, col {}", span.line, span.col)
    }
}

/// An action as one line of text: the statement without its branches (`turn 1 2`,
/// `shuffle {id: 1/3, (1 2): 2/3}`, `result 3 4, 5 6`).
pub fn describe(kind: &ActionKind) -> String {
    match kind {
        ActionKind::Turn { positions: ps, .. } => {
            let ps: Vec<String> = ps.iter().map(|p| (p + 1).to_string()).collect();
            format!("turn {}", ps.join(" "))
        }
        other => other.to_string(),
    }
}

/// The observation `obs` as written in a branch: `♣♥`, or `#1 #2` for numbered cards.
pub fn observation_text(obs: &[Symbol]) -> String {
    let mut out = String::new();
    for (k, s) in obs.iter().enumerate() {
        let spaced = |s: &Symbol| matches!(s, Symbol::Card(_) | Symbol::Kind(2..));
        if k > 0 && (spaced(s) || spaced(&obs[k - 1])) {
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
            Function::AddMod => f.write_str("add-mod"),
            Function::Several(outputs) => {
                for (j, o) in outputs.iter().enumerate() {
                    let sep = if j == 0 { "" } else { " " };
                    write!(f, "{sep}{}={}", o.name, o.function)?;
                }
                Ok(())
            }
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
            LayoutItem::Number { name, modulus } => write!(f, "{name}{{{modulus}}}"),
            LayoutItem::OneCard { name, negated } => {
                let tilde = if *negated { "~" } else { "" };
                write!(f, "{tilde}{name}[1]")
            }
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
        ActionKind::ResultNumber(positions) => {
            f.write_str("result")?;
            for p in positions {
                write!(f, " {}", p + 1)?;
            }
            Ok(())
        }
        ActionKind::ResultCard(p) => write!(f, "result {}", p + 1),
        ActionKind::Label(l) => write!(f, "label {l}"),
        ActionKind::Goto(l) => write!(f, "goto {l}"),
        ActionKind::Restart => f.write_str("restart"),
        private => write_private(f, private),
    }
}

/// A private action in its canonical form: `private a perm P0 | P1 [by r]`, `private a cut …`,
/// `private a bisect … | …`, `private a shuffle S`, `private a look …`, `private a reverse …
/// by r`, `private a reverse random …`, each draw or look with `as r` when it names its bit.
fn write_private(f: &mut fmt::Formatter<'_>, kind: &ActionKind) -> fmt::Result {
    let named = |f: &mut fmt::Formatter<'_>, bit: &Option<String>| match bit {
        Some(b) => write!(f, " as {b}"),
        None => Ok(()),
    };
    match kind {
        ActionKind::PrivatePerm { input, perms, by } => {
            write!(f, "private {input} perm {} | {}", perms[0], perms[1])?;
            match by {
                Some(b) => write!(f, " by {b}"),
                None => Ok(()),
            }
        }
        ActionKind::PrivateShuffle {
            input,
            shuffle,
            bit,
        } => {
            match shuffle {
                Shuffle::Cut(_) | Shuffle::Bisect(..) => write!(f, "private {input} {shuffle}")?,
                _ => write!(f, "private {input} shuffle {shuffle}")?,
            }
            named(f, bit)
        }
        ActionKind::PrivateLook {
            input,
            positions: ps,
            bit,
        } => {
            write!(f, "private {input} look ")?;
            positions(f, ps)?;
            named(f, bit)
        }
        ActionKind::PrivateReverse {
            input,
            positions: ps,
            choice,
        } => {
            write!(f, "private {input} reverse ")?;
            match choice {
                PrivateChoice::By(by) => {
                    positions(f, ps)?;
                    write!(f, " by {}", by.as_deref().unwrap_or(input))
                }
                PrivateChoice::Random(bit) => {
                    f.write_str("random ")?;
                    positions(f, ps)?;
                    named(f, bit)
                }
            }
        }
        public => write_action(f, public, 0),
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

/// Writes the header lines: `protocol`, `inputs`, `outputs` for several outputs, `function`,
/// `layout`, and `claim` when there is one.
pub(crate) fn write_header(f: &mut dyn fmt::Write, p: &ProtocolParts) -> fmt::Result {
    writeln!(f, "protocol {}", p.name)?;
    writeln!(f, "inputs {}", p.inputs.join(" "))?;
    match &p.function {
        Function::Several(outputs) => {
            let names: Vec<&str> = outputs.iter().map(|o| o.name.as_str()).collect();
            let functions: Vec<String> = outputs.iter().map(|o| o.function.to_string()).collect();
            writeln!(f, "outputs {}", names.join(" "))?;
            writeln!(f, "function {}", functions.join(" "))?;
        }
        single => writeln!(f, "function {single}")?,
    }
    f.write_str("layout")?;
    for item in &p.layout {
        write!(f, " {item}")?;
    }
    f.write_str("\n")?;
    match &p.claim {
        Some(claim) if !claim.is_empty() => writeln!(f, "claim {claim}"),
        _ => Ok(()),
    }
}

impl fmt::Display for ProtocolParts {
    /// The canonical `.cards` text, ending with a newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_header(f, self)?;
        for a in &self.body {
            write_action(f, &a.kind, 0)?;
            f.write_str("\n")?;
        }
        Ok(())
    }
}

impl fmt::Display for Protocol {
    /// The canonical `.cards` text, ending with a newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.parts().fmt(f)
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
    /// The protocol as written with every [`Span`] reset to `0:0` (as if built in code), for
    /// comparing protocols that were written differently.
    pub fn without_spans(&self) -> ProtocolParts {
        ProtocolParts {
            body: clear_spans(self.body()),
            ..self.parts().clone()
        }
    }
}

/// Whether `a` and `b` are the same protocol, ignoring where their actions were written.
pub fn same_up_to_spans(a: &Protocol, b: &Protocol) -> bool {
    a.without_spans() == b.without_spans()
}

/// How many inputs an input label names: one character per bit (`01`), or one `name=value`
/// per input (`x=1,y=2`, with number inputs).
fn inputs_in_label(label: &str) -> usize {
    match label.contains('=') {
        true => label.split(',').count(),
        false => label.len(),
    }
}

/// The analysis as text, one verdict per line, then the per-branch probabilities, the
/// errors and the notes (what `facedown cards analyze` prints).
pub fn analysis_text(a: &Analysis) -> String {
    let mut out = String::new();
    let opt = |x: &Option<crate::model::Q>| x.as_ref().map_or("—".to_owned(), ToString::to_string);
    let _ = writeln!(out, "protocol            {}", a.name);
    let _ = writeln!(
        out,
        "function            {} of {} input(s), {} cards",
        a.function,
        a.inputs.first().map_or(0, |l| inputs_in_label(l)),
        a.cards
    );
    let _ = writeln!(out, "correct             {}", a.correct);
    let committed = match a.endings {
        crate::analyze::Endings::Committed => " (committed)",
        crate::analyze::Endings::NonCommitted => " (non-committed: alike = same output)",
        crate::analyze::Endings::Mixed => {
            " (mixed endings: committed views alike, non-committed ones given the outputs)"
        }
    };
    let _ = writeln!(out, "security            {}{committed}", a.security);
    let _ = writeln!(out, "runtime             {}", a.runtime);
    let _ = writeln!(out, "expected shuffles   {}", opt(&a.expected_shuffles));
    let _ = writeln!(
        out,
        "min / max shuffles  {} / {}",
        a.min_shuffles.map_or("—".to_owned(), |m| m.to_string()),
        a.max_shuffles
            .map_or("unbounded".to_owned(), |m| m.to_string())
    );
    leak_lines(&mut out, a);
    player_lines(&mut out, a);
    branch_lines(&mut out, a);
    for e in a.errors() {
        let _ = writeln!(out, "error: {e}");
    }
    for n in &a.notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}

fn leak_lines(out: &mut String, a: &Analysis) {
    if let Some(tv) = &a.tv_distance {
        let f = crate::analyze::q_f64(tv);
        let _ = writeln!(out, "TV distance         {tv} (≈ {f:.6})");
        if let Some(w) = a.tv_worst.as_ref().filter(|_| !tv.is_zero()) {
            worst_pair_line(out, "  worst pair       ", w);
        }
    }
    if let Some(k) = &a.tv_from_uniform_shuffles {
        let _ = writeln!(
            out,
            "TV from uniform     {k} (each input's view vs. the same protocol with uniform \
             shuffles)"
        );
    }
    if let Some(mi) = a.mutual_information_bits {
        let _ = writeln!(out, "I(X;V)              {mi:.6} bits");
    }
    if let Some(mi) = a.leak_beyond_output_bits {
        let _ = writeln!(out, "I(X;V | f(X))       {mi:.6} bits");
    }
}

/// The pair of inputs whose views are furthest apart, after `label`.
fn worst_pair_line(out: &mut String, label: &str, w: &LeakWitness) {
    let _ = writeln!(
        out,
        "{label} inputs {} vs {} on view {}: {} vs {}",
        w.inputs[0],
        w.inputs[1],
        render_view(&w.view),
        w.probabilities[0],
        w.probabilities[1]
    );
}

/// In the private model, one line per player: the TV distance of his own view (exact) and
/// what it reveals beyond his input and the output (bits), then his worst pair.
fn player_lines(out: &mut String, a: &Analysis) {
    if a.players.is_empty() {
        return;
    }
    let given = if a.committed { "" } else { ", f(X)" };
    let _ = writeln!(
        out,
        "per player (each on his own view; the figures above are the public view's):"
    );
    for p in &a.players {
        let tv = p.tv_distance.as_ref().map_or("—".to_owned(), |tv| {
            format!("{tv} (≈ {:.6})", crate::analyze::q_f64(tv))
        });
        let bits = p
            .leak_bits
            .map_or("—".to_owned(), |b| format!("{b:.6} bits"));
        let _ = writeln!(
            out,
            "  {:<17} TV {tv}, I(X;V | {}{given}) {bits}",
            p.player, p.player
        );
        if let Some(w) = &p.tv_worst {
            worst_pair_line(out, "    worst pair     ", w);
        }
    }
}

fn branch_lines(out: &mut String, a: &Analysis) {
    let _ = writeln!(
        out,
        "branches (Pr[observation | reached], per input {}):",
        a.inputs.join(" ")
    );
    for b in &a.branches {
        let probs: Vec<String> = b
            .probability
            .iter()
            .map(|p| p.as_ref().map_or("—".to_owned(), ToString::to_string))
            .collect();
        let after = if b.after.is_empty() {
            String::new()
        } else {
            format!(" after {}", render_view(&b.after))
        };
        let at = format!("{}:{}", b.span.line, b.span.col);
        let _ = writeln!(
            out,
            "  [{}] {at:>6}{after}: {:<6} {}",
            b.node,
            glyphs(&b.observation),
            probs.join(" ")
        );
    }
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
