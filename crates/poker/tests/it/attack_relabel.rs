//! Relabelled reveal tokens: a genuine token (a decryption share `d_i = x_i·c1` with its
//! Chaum–Pedersen proof, made by an honest player) re-sent or forwarded under another label —
//! another card position, another opening (round), another author. Each must be refused, and
//! the verdict must name the player who sent the relabelled token, never the token's honest
//! author.
//!
//! Tokens travel in two flows: an opening, where each player sends its own tokens
//! (`engine/open.rs`), and a none-of proof, where the owner of a hand forwards the tokens the
//! others sent him when the cards were shown to him (`engine/legal.rs`). What binds a token to
//! its label is its proof's transcript: the session, the round and the author
//! ([`facedown_poker::ProofContext`]), and the position (`reveal.rs`); the statement binds the
//! author's key and the card's `c1`. Every verdict of every honest player is checked, not only
//! the first (`legal.rs` checks the first verdict of the forwarded-token edits).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use facedown_core::local::Delivery;
use facedown_core::rng::party_rng;
use facedown_core::table::{FaceDownTable, ShuffleSet};
use facedown_core::{DriveError, LocalDriver, PartyId, Symbol, TableOp};
use facedown_poker::errors::{PokerError, ProofKind};
use facedown_poker::messages::{Message, NoneOfMessage, RevealMessage};
use facedown_poker::PokerEngine;
use rand_chacha::ChaCha20Rng;

const SESSION: &[u8] = b"relabel attacks";
const CARDS: u16 = 6;

type Engines = Vec<PokerEngine<ChaCha20Rng>>;
type Verdict = DriveError<PokerError>;

fn engines(seed: u64) -> Engines {
    PartyId::all(3)
        .map(|p| PokerEngine::with_rng(p, 3, SESSION, party_rng(seed, 0, p)).expect("player"))
        .collect()
}

/// Every reveal message delivered so far: `(from, to, message)`.
type Log = Rc<RefCell<Vec<(PartyId, PartyId, RevealMessage)>>>;

/// A table whose reveal messages are logged, then rewritten by `edit` (given the log of the
/// earlier ones), and whose none-of messages are rewritten by `none_of`.
fn table(
    seed: u64,
    mut edit: impl FnMut(PartyId, PartyId, &mut RevealMessage, &Log) + 'static,
    mut none_of: impl FnMut(&mut NoneOfMessage) + 'static,
) -> (
    LocalDriver<PokerEngine<ChaCha20Rng>, impl FnMut(&mut Delivery) -> bool>,
    Log,
) {
    let log: Log = Rc::default();
    let seen = Rc::clone(&log);
    let tap = move |d: &mut Delivery| {
        match Message::from_bytes(d.from, &d.payload) {
            Ok(Message::Reveal(mut m)) => {
                seen.borrow_mut().push((d.from, d.to, m.clone()));
                edit(d.from, d.to, &mut m, &seen);
                d.payload = Message::Reveal(m).to_bytes().expect("encodes");
            }
            Ok(Message::NoneOf(mut m)) => {
                none_of(&mut m);
                d.payload = Message::NoneOf(m).to_bytes().expect("encodes");
            }
            _ => {}
        }
        true
    };
    let mut t = LocalDriver::tapped(engines(seed), tap).expect("setup");
    t.place(&(0..CARDS).map(Symbol::Card).collect::<Vec<_>>())
        .expect("place");
    // Rounds: the key shares are round 0, the three shuffle turns rounds 1 to 3.
    t.shuffle(&ShuffleSet::All).expect("shuffle");
    (t, log)
}

/// The tokens `from` sent `to`, in the `k`-th message between them logged so far.
fn logged(log: &Log, from: u16, to: u16, k: usize) -> RevealMessage {
    log.borrow()
        .iter()
        .filter(|(f, t, _)| *f == PartyId(from) && *t == PartyId(to))
        .nth(k)
        .map(|(_, _, m)| m.clone())
        .expect("a logged message")
}

/// Every verdict of the failed operation: the first, then the later ones.
fn verdicts<'a>(first: &'a Verdict, later: &'a [Verdict]) -> Vec<&'a Verdict> {
    std::iter::once(first).chain(later).collect()
}

/// Each of `honest` reached exactly one verdict, its engine's `want`, and nobody else's
/// verdict names an honest player.
fn assert_verdicts(all: &[&Verdict], honest: &[u16], want: &PokerError) {
    for &p in honest {
        let mine: Vec<&Verdict> = all
            .iter()
            .copied()
            .filter(|v| {
                matches!(v, DriveError::Engine { party, .. } | DriveError::Echo { party, .. }
                    if *party == PartyId(p))
            })
            .collect();
        assert_eq!(mine.len(), 1, "player {p}: {all:?}");
        assert!(
            matches!(mine[0], DriveError::Engine { source, .. } if source == want),
            "player {p}: {all:?}"
        );
    }
}

fn invalid_token(player: u16) -> PokerError {
    PokerError::InvalidProof {
        player: PartyId(player),
        kind: ProofKind::RevealToken,
    }
}

// --- The opening: each player sends its own tokens.

#[test]
fn another_players_token_re_sent_as_ones_own_names_the_sender_not_its_author() {
    // Positions 0 and 1 are shown to player 1. Player 3 lets player 2's tokens (which reach
    // player 1 first) go through and sends player 1 copies of them as his own: genuine
    // tokens and proofs, for the right positions and round, by another author.
    let (mut t, _) = table(
        1,
        |from, to, m, log| {
            if from == PartyId(3) && to == PartyId(1) {
                m.tokens = logged(log, 2, 1, 0).tokens;
            }
        },
        |_| {},
    );
    let err = t.open_to(PartyId(1), &[0, 1]).expect_err("relabelled");
    let all = verdicts(&err, t.later_failures());
    assert_verdicts(&all, &[1], &invalid_token(3));
    assert_eq!(all.len(), 1, "players 2 and 3 await nothing: {all:?}");
}

#[test]
fn a_token_relabelled_to_another_position_names_its_sender() {
    // Player 3's genuine token for position 1, labelled position 0 and sent in its place.
    let (mut t, _) = table(
        2,
        |from, to, m, _| {
            if from == PartyId(3) && to == PartyId(1) {
                m.tokens[0] = facedown_poker::reveal::BatchableRevealToken {
                    position: m.tokens[0].position,
                    ..m.tokens[1]
                };
            }
        },
        |_| {},
    );
    let err = t.open_to(PartyId(1), &[0, 1]).expect_err("relabelled");
    assert_verdicts(&verdicts(&err, t.later_failures()), &[1], &invalid_token(3));
    // Only the label changed: the token of position 0 now claims position 1.
    let (mut t, _) = table(
        2,
        |from, to, m, _| {
            if from == PartyId(3) && to == PartyId(1) {
                m.tokens[0].position = m.tokens[1].position;
            }
        },
        |_| {},
    );
    let err = t.open_to(PartyId(1), &[0, 1]).expect_err("relabelled");
    let want = PokerError::UnexpectedMessage {
        player: PartyId(3),
        reason: "reveal tokens for the wrong positions",
    };
    assert_verdicts(&verdicts(&err, t.later_failures()), &[1], &want);
}

/// Position 0 is shown to player 1 (round 4), then turned face up (round 5) with `edit`
/// rewriting the second opening's tokens once `replay` is set.
fn shown_then_turned(
    seed: u64,
    mut edit: impl FnMut(PartyId, PartyId, &mut RevealMessage, &Log) + 'static,
    check: impl FnOnce(&Verdict),
) {
    let replay = Rc::new(Cell::new(false));
    let on = Rc::clone(&replay);
    let (mut t, _) = table(
        seed,
        move |from, to, m, log| {
            if on.get() {
                edit(from, to, m, log);
            }
        },
        |_| {},
    );
    t.open_to(PartyId(1), &[0]).expect("shown to player 1");
    replay.set(true);
    let err = t.turn(&[0]).expect_err("replayed");
    assert!(t.later_failures().is_empty(), "one player was lied to");
    check(&err);
}

#[test]
fn a_token_replayed_from_an_earlier_opening_names_the_sender_not_its_author() {
    // The same card, the same ciphertext, so the same `d_i`: only the round differs. Player 3
    // sends player 1, for the public opening, his token of the private one.
    let edit = |from, to, m: &mut RevealMessage, log: &Log| {
        if from == PartyId(3) && to == PartyId(1) {
            *m = logged(log, 3, 1, 0);
        }
    };
    shown_then_turned(3, edit, |v| {
        assert!(
            matches!(v, DriveError::Engine { party: PartyId(1), source } if *source == invalid_token(3)),
            "{v}"
        )
    });
    // Player 1 sends player 3, as his own, the token player 2 sent him in the private
    // opening: another round and another author. Player 1 is named, player 2 is not.
    let edit = |from, to, m: &mut RevealMessage, log: &Log| {
        if from == PartyId(1) && to == PartyId(3) {
            m.tokens = logged(log, 2, 1, 0).tokens;
        }
    };
    shown_then_turned(3, edit, |v| {
        assert!(
            matches!(v, DriveError::Engine { party: PartyId(3), source } if *source == invalid_token(1)),
            "{v}"
        )
    });
}

// --- The none-of proof: the owner forwards the others' tokens.

/// Positions 2 and 3 are shown to player 2 (round 4); he then claims (round 5) that neither
/// is one of the four other cards, his forwarded tokens rewritten by `edit`; `check` is given
/// every verdict (none if the claim passed).
fn forwarded(
    seed: u64,
    edit: impl FnMut(&mut NoneOfMessage) + 'static,
    check: impl FnOnce(&[&Verdict]),
) {
    let (mut t, _) = table(seed, |_, _, _, _| {}, edit);
    let hand = t.open_to(PartyId(2), &[2, 3]).expect("shown to player 2");
    let excluded = (0..CARDS)
        .map(Symbol::Card)
        .filter(|s| !hand.contains(s))
        .collect();
    let claim = TableOp::ProveNoneOf {
        owner: PartyId(2),
        positions: vec![2, 3],
        excluded,
    };
    match t.apply(&claim) {
        Ok(_) => check(&[]),
        Err(first) => check(&verdicts(&first, t.later_failures())),
    }
}

#[test]
fn the_honest_claim_passes_the_same_harness() {
    forwarded(10, |_| {}, |all| assert!(all.is_empty(), "{all:?}"));
}

/// A rewriting of the owner's none-of message.
type Edit = fn(&mut NoneOfMessage);

#[test]
fn forwarded_tokens_relabelled_to_another_author_position_card_or_round_name_the_owner() {
    let forged = PokerError::InvalidProof {
        player: PartyId(2),
        kind: ProofKind::NoneOf,
    };
    let edits: Vec<(&str, Edit)> = vec![
        // Player 1's token in player 3's place and the reverse.
        ("another author", |m| m.cards[0].tokens.swap(0, 1)),
        // Player 1's token for one card, labelled with the other card's position.
        ("another position", |m| {
            m.cards[0].tokens[0].position = m.cards[1].tokens[0].position
        }),
        // Player 1's token for the other card, label and all.
        ("another card", |m| {
            m.cards[0].tokens[0] = m.cards[1].tokens[0]
        }),
        // Round 3, a past round (a shuffle turn), not the opening's.
        ("another past round", |m| m.cards[0].round = 3),
    ];
    for (k, (what, edit)) in edits.into_iter().enumerate() {
        forwarded(11 + k as u64, edit, |all| {
            assert!(!all.is_empty(), "{what}: accepted");
            assert_verdicts(all, &[1, 3], &forged);
        });
    }
    // A round that is not a past one (the claim's own, a later one, or the key shares').
    let unexpected = PokerError::UnexpectedMessage {
        player: PartyId(2),
        reason: "forwarded reveal tokens of a round that is not a past one",
    };
    let rounds: Vec<(&str, Edit)> = vec![
        ("the claim's round", |m| m.cards[1].round = 5),
        ("a later round", |m| m.cards[1].round = 6),
        ("round 0", |m| m.cards[1].round = 0),
    ];
    for (k, (what, edit)) in rounds.into_iter().enumerate() {
        forwarded(15 + k as u64, edit, |all| {
            assert!(!all.is_empty(), "{what}: accepted");
            assert_verdicts(all, &[1, 3], &unexpected);
        });
    }
}
