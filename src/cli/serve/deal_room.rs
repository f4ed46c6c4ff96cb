//! The deal room's JSON endpoints: the permutation-sharing dealer's deal laid open for teaching
//! (every message of every opening, each player's secret layer as the audit opens it, what each
//! player was told), what each coalition learns, and the same deal on the encrypted deck with its
//! messages and proofs.
//!
//! The layers and helper halves shown are the ones the end-of-deal audit makes public: the room
//! shows after the fact what every player can check, not a view any player has during play.

use facedown::core::rng::seeded_rng;
use facedown::core::PartyId;
use facedown::dealer::rank::unrank;
use facedown::dealer::{play_with_rng, Body, Recipient, Route, Scheme, Slot, Transcript};
use facedown::leakage::collusion::{collusion_table, Method};
use facedown::leakage::Schedule;
use facedown::poker::deal::{deal_with_adversary_with_rng, Adversary, DealParams};
use facedown::poker::messages::Message;
use serde_json::{json, Value};

use super::http::{Call, Refusal};
use crate::cli::output::Doc;

/// Most players at the dealer's table in the room.
pub const MAX_PLAYERS: u64 = 8;
/// Most cards in the room's deck.
pub const MAX_CARDS: u64 = 52;
/// Largest deck whose coalition table is enumerated exactly (larger ones use the closed form).
const EXACT_COLLUSION_CARDS: usize = 8;

/// The shape of a deal as the room's parameters give it.
struct Shape {
    players: usize,
    cards: usize,
    hand: usize,
    public: usize,
    seed: u64,
}

fn shape(call: &Call) -> Result<Shape, Refusal> {
    let players = call.int_param("players", 3, 3..=MAX_PLAYERS)? as usize;
    let cards = call.int_param("cards", 6, 3..=MAX_CARDS)? as usize;
    let hand = call.int_param("hand", 1, 0..=MAX_CARDS)? as usize;
    let public = call.int_param("public", 1, 0..=MAX_CARDS)? as usize;
    let seed = call.int_param("seed", 0, 0..=u64::MAX)?;
    if hand * players + public > cards {
        return Err(Refusal::bad(format!(
            "{players} hands of {hand} and {public} public cards need {} cards; the deck has {cards}",
            hand * players + public
        )));
    }
    Ok(Shape {
        players,
        cards,
        hand,
        public,
        seed,
    })
}

/// `GET /api/deal?players=N&cards=C&hand=H&public=P&seed=S`: one audited dealer deal, opening
/// by opening.
pub fn deal(call: &Call) -> Result<Value, Refusal> {
    let s = shape(call)?;
    let scheme = Scheme::general(s.players, s.cards).map_err(|e| Refusal::bad(e.to_string()))?;
    let game = play_with_rng(
        scheme.clone(),
        s.hand,
        s.public,
        None,
        &mut seeded_rng(s.seed),
    )
    .map_err(|e| Refusal::new(422, e.to_string()))?;
    let t = &game.finished.transcript;
    let audit = &game.finished.audit;
    let body = json!({
        "players": s.players,
        "cards": s.cards,
        "hands": game.hands,
        "public": game.public,
        "helper_pairs": scheme.pairs.iter().map(|p| json!({
            "outer": p.outer_name, "outer_holder": p.outer_holder.0,
            "inner": p.inner_name, "inner_holder": p.inner_holder.0,
        })).collect::<Vec<_>>(),
        "openings": openings(t, &scheme),
        "layers": layers(t, &scheme)?,
        "told": told(t, s.players),
        "audit": { "passed": audit.passed, "blame": audit.blame.map(|p| p.0) },
        "cost": game.total(),
    });
    document(Doc::new("serve deal").seed(s.seed), &s, &body)
}

/// Every opening: its position, its route, who learns the card, and the chain of values.
fn openings(t: &Transcript, scheme: &Scheme) -> Vec<Value> {
    t.operations
        .iter()
        .map(|op| {
            let hops: Vec<Value> = t
                .envelopes
                .iter()
                .filter_map(|e| match e.body {
                    Body::Value { op: id, hop, value } if id == op.id => Some(json!({
                        "hop": hop, "from": e.from.0, "to": recipient(e.to), "value": value,
                    })),
                    _ => None,
                })
                .collect();
            let (route, learner) = match op.route {
                Route::Public => ("public".to_owned(), Value::from("everyone")),
                Route::Direct => ("direct".to_owned(), Value::from(scheme.players)),
                Route::Helper(k) => {
                    let pair = &scheme.pairs[usize::from(k)];
                    (
                        format!("via {}/{}", pair.outer_name, pair.inner_name),
                        Value::from(pair.outer_holder.0),
                    )
                }
            };
            json!({ "position": op.position, "route": route, "learner": learner, "hops": hops })
        })
        .collect()
}

fn recipient(r: Recipient) -> Value {
    match r {
        Recipient::Party(p) => Value::from(p.0),
        Recipient::All => Value::from("everyone"),
    }
}

/// Each committed permutation as the audit opens it: every player's layer, and the drawn half
/// of each helper pair (the other half follows from it and the last player's layer).
fn layers(t: &Transcript, scheme: &Scheme) -> Result<Vec<Value>, Refusal> {
    let mut out = Vec::new();
    for e in &t.envelopes {
        let Body::Reveal { openings } = &e.body else {
            continue;
        };
        for o in openings {
            let perm =
                unrank(scheme.cards, &o.rank).map_err(|e| Refusal::new(500, e.to_string()))?;
            out.push(json!({
                "slot": slot_name(o.slot, scheme),
                "holder": e.from.0,
                "perm": perm.images().collect::<Vec<_>>(),
            }));
        }
    }
    Ok(out)
}

fn slot_name(slot: Slot, scheme: &Scheme) -> String {
    let pair = |k: u16| scheme.pairs.get(usize::from(k));
    match slot {
        Slot::Deal(p) => format!("A{} (player {}'s layer)", p.0, p.0),
        Slot::Outer(k) => pair(k).map_or(format!("outer half {k}"), |p| {
            format!(
                "{} (helper, outer half; applied by player {})",
                p.outer_name, p.outer_holder.0
            )
        }),
        Slot::Inner(k) => pair(k).map_or(format!("inner half {k}"), |p| {
            format!(
                "{} (helper, inner half; applied by player {})",
                p.inner_name, p.inner_holder.0
            )
        }),
    }
}

/// Per player, the messages it received (privately or as a broadcast), by kind.
fn told(t: &Transcript, players: usize) -> Vec<Value> {
    PartyId::all(players)
        .map(|p| {
            let mut kinds = std::collections::BTreeMap::<&str, usize>::new();
            for e in t.envelopes.iter().filter(|e| e.from != p) {
                let to_p = matches!(e.to, Recipient::All) || e.to == Recipient::Party(p);
                if to_p {
                    *kinds.entry(e.body.kind()).or_default() += 1;
                }
            }
            json!({ "player": p.0, "received": kinds })
        })
        .collect()
}

/// `GET /api/collusion?players=N&cards=C&hand=H&public=P`: what each coalition of curious
/// players learns from the deal, as `dealer collusion --json` rows.
pub fn collusion(call: &Call) -> Result<Value, Refusal> {
    let s = shape(call)?;
    let scheme = Scheme::general(s.players, s.cards).map_err(|e| Refusal::bad(e.to_string()))?;
    let schedule =
        Schedule::new(&scheme, s.hand, s.public).map_err(|e| Refusal::bad(e.to_string()))?;
    let method = if s.cards <= EXACT_COLLUSION_CARDS {
        Method::Exact
    } else {
        Method::ClosedForm
    };
    let rows = collusion_table(&schedule, method).map_err(|e| Refusal::new(422, e.to_string()))?;
    let body = json!({ "rows": rows, "exact": method == Method::Exact });
    document(Doc::new("dealer collusion"), &s, &body)
}

/// The kind of an encrypted-deck message (`Shuffle`, `Reveal`, …): its serde tag.
pub fn message_kind(msg: &Message) -> &'static str {
    match msg {
        Message::KeyShare(_) => "KeyShare",
        Message::Shuffle(_) => "Shuffle",
        Message::Reveal(_) => "Reveal",
        Message::RestrictedShuffle(_) => "RestrictedShuffle",
        Message::Hello(_) => "Hello",
        Message::NoneOf(_) => "NoneOf",
    }
}

/// Records every message of the encrypted deck's deal (its kind, sender and size) and
/// changes nothing.
#[derive(Default)]
struct Log {
    messages: Vec<(u16, String)>,
    sizes: Vec<usize>,
}

impl Adversary for Log {
    fn tamper_message(&mut self, msg: &mut Message) {
        self.messages
            .push((msg.sender().0, message_kind(msg).to_owned()));
    }

    fn tamper_bytes(&mut self, _sender: PartyId, bytes: &mut Vec<u8>) {
        self.sizes.push(bytes.len());
    }
}

/// `GET /api/poker-deal?players=N&cards=C&hand=H&public=P&seed=S`: the same deal on the
/// encrypted deck, with every delivery's kind, sender and size.
pub fn poker_deal(call: &Call) -> Result<Value, Refusal> {
    let s = shape(call)?;
    let params = DealParams {
        players: s.players,
        cards: s.cards as u16,
        hand: s.hand,
        public: s.public,
    };
    // The session string of `facedown poker deal`, so the room deals what the CLI deals.
    let session = format!("facedown poker deal seed={}", s.seed);
    let mut log = Log::default();
    let report = deal_with_adversary_with_rng(
        params,
        session.as_bytes(),
        &mut log,
        &mut seeded_rng(s.seed),
    );
    let deliveries: Vec<Value> = log
        .messages
        .iter()
        .zip(&log.sizes)
        .map(|((from, kind), bytes)| json!({ "from": from, "kind": kind, "bytes": bytes }))
        .collect();
    let body = json!({ "report": report, "deliveries": deliveries });
    document(Doc::new("poker deal").seed(s.seed), &s, &body)
}

fn document(doc: Doc, s: &Shape, body: &Value) -> Result<Value, Refusal> {
    doc.parameters(json!({
        "players": s.players, "cards": s.cards, "hand": s.hand, "public": s.public,
    }))
    .build(body)
    .map_err(|e| Refusal::new(500, format!("cannot write the answer: {e}")))
}
