//! A person at the table: one seat of Ninety-Nine whose moves are read from a terminal.
//!
//! [`TerminalBot`] is a [`Bot`] like any other, so the session treats a person exactly as it
//! treats a program: at his turn it shows him what his view holds — his hand, his bid cards,
//! the trick on the table, the tricks won, the cards everybody can see — and the legal moves,
//! then reads one line. A move is written as the cards it names (`QH` to play the queen of
//! hearts, `8D JS 9D` to bid), as its words (`declare`, `claim`, `silent`, `pass`), or as its
//! number in the list of legal moves. A line that is none of these gets a message saying why
//! and the question again. When the input ends, the heuristic bot plays the rest of his moves,
//! and he is told so.

use std::io::{BufRead, Read, Write};

use rand::RngCore;

use crate::cards::{parse_cards, Card};
use crate::game::Bot;
use crate::ninety_nine::state::{Move, Phase, View};
use crate::ninety_nine::{HeuristicBot, Offer};

/// Longest line read for one move, in bytes: anything beyond is not a move.
pub const MAX_LINE: u64 = 1024;

/// Most legal moves listed one by one (a bid has up to 220; they are described instead).
const LISTED: usize = 24;

/// A seat played by a person: moves read from `input`, the table shown on `output`.
pub struct TerminalBot<R, W> {
    input: R,
    output: W,
    closed: bool,
}

impl<R: BufRead, W: Write> TerminalBot<R, W> {
    /// A seat reading moves from `input` and writing what it shows to `output`.
    pub fn new(input: R, output: W) -> Self {
        TerminalBot {
            input,
            output,
            closed: false,
        }
    }

    /// One line of input, or `None` at its end (a line longer than [`MAX_LINE`] is cut).
    fn read_line(&mut self) -> Option<String> {
        let mut bytes = Vec::new();
        let read = (&mut self.input)
            .take(MAX_LINE)
            .read_until(b'\n', &mut bytes)
            .ok()?;
        if read == 0 {
            return None;
        }
        if bytes.last() != Some(&b'\n') && read as u64 == MAX_LINE {
            // Skip the rest of an overlong line.
            let mut rest = Vec::new();
            let _ = self.input.read_until(b'\n', &mut rest);
        }
        Some(String::from_utf8_lossy(&bytes).trim().to_owned())
    }
}

fn cards(cards: &[Card]) -> String {
    let mut sorted = cards.to_vec();
    sorted.sort();
    let names: Vec<String> = sorted.iter().map(ToString::to_string).collect();
    names.join(" ")
}

/// What a person at this seat is shown before his move: his view and the legal moves.
pub fn show(view: &View, legal: &[Move]) -> String {
    let mut out = format!(
        "\n— {} (you), {:?} phase, dealer {} —\n",
        view.player, view.phase, view.dealer
    );
    match view.trump {
        Some(Some(suit)) => out += &format!("trumps: {suit}\n"),
        Some(None) => out += "no trumps\n",
        None => {}
    }
    if let Some(up) = view.turned {
        out += &format!("turned up: {up}\n");
    }
    out += &format!("your hand: {}\n", cards(&view.hand));
    if let Some(bid) = view.bid {
        out += &format!("your bid cards: {}\n", cards(&bid));
    }
    for (seat, hand) in view.open_hands.iter().enumerate() {
        if let Some(hand) = hand {
            out += &format!("seat {} shows: {}\n", seat + 1, cards(hand));
        }
    }
    for (seat, bid) in view.shown_bids.iter().enumerate() {
        if let Some(bid) = bid {
            out += &format!("seat {} shows his bid: {}\n", seat + 1, cards(bid));
        }
    }
    if view.phase == Phase::Play {
        let trick: Vec<String> = view
            .current
            .iter()
            .map(|(seat, c)| format!("{c} (seat {})", seat + 1))
            .collect();
        out += &format!(
            "trick {}: {}\n",
            view.tricks.len() + 1,
            if trick.is_empty() {
                "you lead".to_owned()
            } else {
                trick.join(", ")
            }
        );
        out += &format!("tricks won per seat: {:?}\n", view.won);
    }
    out + &list(legal)
}

fn list(legal: &[Move]) -> String {
    if legal.len() > LISTED {
        return format!(
            "{} legal moves: write the three cards you lay aside (e.g. `{}`), or a number \
             1–{}\n",
            legal.len(),
            legal
                .first()
                .map(|m| m.to_string().trim_start_matches("bid ").to_owned())
                .unwrap_or_default(),
            legal.len()
        );
    }
    let mut out = String::from("legal moves:\n");
    for (k, m) in legal.iter().enumerate() {
        out += &format!("  {:>2}. {m}\n", k + 1);
    }
    out
}

/// The legal move `text` names, or why it names none.
pub fn parse_move(text: &str, legal: &[Move]) -> Result<Move, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("nothing written: write a move".into());
    }
    if let Ok(k) = text.parse::<usize>() {
        return k
            .checked_sub(1)
            .and_then(|i| legal.get(i))
            .copied()
            .ok_or_else(|| format!("there is no move {k}: choose 1–{}", legal.len()));
    }
    if let Some(m) = by_words(text, legal) {
        return Ok(m);
    }
    let named = parse_cards(text.trim_start_matches("bid ").trim_start_matches("play "))
        .map_err(|e| format!("`{text}` is neither a move nor cards ({e})"))?;
    by_cards(&named, legal)
}

/// The move whose words begin with `text` (`declare`, `claim`, `silent`, `pass`, …).
fn by_words(text: &str, legal: &[Move]) -> Option<Move> {
    let text = text.to_lowercase();
    let alias = |m: &Move| match m {
        Move::Premium(Offer::Pass) => Some("pass"),
        Move::Silent => Some("silent"),
        _ => None,
    };
    legal
        .iter()
        .find(|m| m.to_string().starts_with(&text) || alias(m) == Some(text.as_str()))
        .copied()
}

fn by_cards(named: &[Card], legal: &[Move]) -> Result<Move, String> {
    let wanted = |m: &Move| match m {
        Move::Play(c) => named == [*c],
        Move::Bid(b) => {
            let (mut a, mut b) = (named.to_vec(), b.to_vec());
            a.sort();
            b.sort();
            a == b
        }
        _ => false,
    };
    if let Some(m) = legal.iter().find(|m| wanted(m)) {
        return Ok(*m);
    }
    let bidding = legal.iter().any(|m| matches!(m, Move::Bid(_)));
    Err(match (bidding, named.len()) {
        (true, 3) => format!(
            "you cannot lay aside {}: bid three different cards of your hand",
            cards(named)
        ),
        (true, n) => format!("a bid is three cards, not {n}"),
        (false, 1) => format!(
            "you cannot play {} now: it is not in the hand you play from, or you must follow \
             the suit led",
            named[0]
        ),
        (false, n) => format!("play one card, not {n}"),
    })
}

impl<R: BufRead, W: Write> Bot<crate::ninety_nine::NinetyNine> for TerminalBot<R, W> {
    fn name(&self) -> &str {
        "terminal"
    }

    fn choose(&mut self, view: &View, legal: &[Move], rng: &mut dyn RngCore) -> Move {
        if !self.closed {
            let _ = write!(self.output, "{}", show(view, legal));
        }
        while !self.closed {
            let _ = write!(self.output, "your move> ");
            let _ = self.output.flush();
            let Some(line) = self.read_line() else {
                self.closed = true;
                let _ = writeln!(
                    self.output,
                    "\ninput closed: the heuristic bot plays your moves from here"
                );
                break;
            };
            match parse_move(&line, legal) {
                Ok(m) => {
                    let _ = writeln!(self.output, "you: {m}");
                    return m;
                }
                Err(why) => {
                    let _ = writeln!(self.output, "not a legal move: {why}");
                }
            }
        }
        HeuristicBot.choose(view, legal, rng)
    }
}
