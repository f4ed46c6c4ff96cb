//! The KWH state tree \[KWH15\] as Graphviz DOT.
//!
//! Each vertex is a state of the exact analysis ([`crate::analyze`]): every card sequence that
//! can lie on the table with its per-input probabilities `Pr[sequence | input, view so far]`,
//! and the probability of having reached the vertex from its segment's start (`reached`). ⊥
//! sequences (carried by inputs with different outputs) are marked `⊥`. Edges carry the action
//! and, after a turn, the observation; `goto` and falling through a label point back to the
//! label's vertex, so loops of Las Vegas protocols appear as cycles.
//!
//! Render with `facedown cards tree NAME --dot | dot -Tsvg > tree.svg`.

use std::fmt::Write as _;

use crate::analyze::{explore, is_bottom, AnalysisError, AnalysisOptions, StateTree};
use crate::print::glyphs;
use crate::protocol::Protocol;

/// Explores `protocol` and returns its state tree and the input labels (the columns of every
/// probability vector). Vertices holding ⊥ sequences say so in their `kind`.
pub fn state_tree(protocol: &Protocol) -> Result<(StateTree, Vec<String>), AnalysisError> {
    let opts = AnalysisOptions {
        record_tree: true,
        ..AnalysisOptions::default()
    };
    let ex = explore(protocol, &opts)?;
    let outputs = ex.outputs.clone();
    let inputs = ex.inputs.clone();
    let mut tree = ex.tree.unwrap_or_default();
    // Annotate ⊥ in the kind line so that DOT and other consumers see it.
    for v in &mut tree.vertices {
        let bottoms = v.state.bottom_sequences(&outputs).len();
        if bottoms > 0 {
            v.kind = format!("{} ⊥×{bottoms}", v.kind).trim().to_owned();
        }
    }
    Ok((tree, inputs))
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The state tree of `protocol` as a Graphviz DOT digraph.
pub fn to_dot(protocol: &Protocol) -> Result<String, AnalysisError> {
    let opts = AnalysisOptions {
        record_tree: true,
        ..AnalysisOptions::default()
    };
    let ex = explore(protocol, &opts)?;
    let tree = ex.tree.clone().unwrap_or_default();
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", escape(protocol.name()));
    let _ = writeln!(
        out,
        "  node [shape=box, fontname=\"monospace\"];\n  label=\"{} — columns: inputs {}\";\n  labelloc=t;",
        escape(protocol.name()),
        ex.inputs.join(" ")
    );
    for (id, v) in tree.vertices.iter().enumerate() {
        let mut label = String::new();
        if !v.kind.is_empty() {
            let _ = writeln!(label, "{}", v.kind);
        }
        let reached: Vec<String> = v.mass.iter().map(ToString::to_string).collect();
        let _ = writeln!(label, "reached: {}", reached.join(" "));
        for (seq, probs) in v.state.rows() {
            let ps: Vec<String> = probs.iter().map(ToString::to_string).collect();
            let mark = if is_bottom(probs, &ex.outputs) {
                "  ⊥"
            } else {
                ""
            };
            let _ = writeln!(label, "{}  {}{mark}", glyphs(seq), ps.join(" "));
        }
        let label = escape(label.trim_end()).replace('\n', "\\l") + "\\l";
        let _ = writeln!(out, "  v{id} [label=\"{label}\"];");
    }
    for e in &tree.edges {
        let _ = writeln!(
            out,
            "  v{} -> v{} [label=\"{}\"];",
            e.from,
            e.to,
            escape(&e.label)
        );
    }
    out.push_str("}\n");
    Ok(out)
}

/// The state tree of `protocol` as JSON: its name, the input columns, every vertex with its
/// kind, the probability of reaching it and its sequences (row, per-input probabilities as
/// exact rationals, whether the row is ⊥), and every edge with its label.
pub fn to_json(protocol: &Protocol) -> Result<serde_json::Value, AnalysisError> {
    let opts = AnalysisOptions {
        record_tree: true,
        ..AnalysisOptions::default()
    };
    let ex = explore(protocol, &opts)?;
    let tree = ex.tree.clone().unwrap_or_default();
    fn text<T: ToString>(qs: &[T]) -> Vec<String> {
        qs.iter().map(ToString::to_string).collect()
    }
    let vertices: Vec<serde_json::Value> = tree
        .vertices
        .iter()
        .enumerate()
        .map(|(id, v)| {
            let sequences: Vec<serde_json::Value> = v
                .state
                .rows()
                .map(|(seq, probs)| {
                    serde_json::json!({
                        "row": glyphs(seq),
                        "probabilities": text(probs),
                        "bottom": is_bottom(probs, &ex.outputs),
                    })
                })
                .collect();
            serde_json::json!({
                "id": id,
                "kind": v.kind,
                "reached": text(&v.mass),
                "sequences": sequences,
            })
        })
        .collect();
    let edges: Vec<serde_json::Value> = tree
        .edges
        .iter()
        .map(|e| serde_json::json!({ "from": e.from, "to": e.to, "label": e.label }))
        .collect();
    Ok(serde_json::json!({
        "name": protocol.name(),
        "inputs": ex.inputs,
        "vertices": vertices,
        "edges": edges,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::find;

    #[test]
    fn five_card_trick_tree_has_the_ten_rows() {
        let p = find("five-card-trick").expect("built in").protocol();
        let dot = to_dot(&p).expect("dot");
        assert!(dot.starts_with("digraph \"five-card-trick\""));
        // Start, after the cut, and one vertex per observation (10 rows).
        assert_eq!(dot.matches("turn 1 2 3 4 5 →").count(), 10);
        assert!(dot.contains("1/5"));
        assert!(dot.trim_end().ends_with('}'));
    }

    #[test]
    fn las_vegas_tree_has_loops() {
        let p = find("four-card-las-vegas-and")
            .expect("built in")
            .protocol();
        let (tree, inputs) = state_tree(&p).expect("tree");
        assert_eq!(inputs.len(), 4);
        let back = tree
            .edges
            .iter()
            .filter(|e| e.label.starts_with("goto"))
            .count();
        assert_eq!(back, 2);
        let dot = to_dot(&p).expect("dot");
        assert!(dot.contains("label SC") && dot.contains("label SH"));
    }
}
