//! The legal-play proof: a player who does not follow suit proves, at play time, that he holds
//! no card of the suit led. First the proof alone (honest, false, forged, tampered, replayed,
//! malformed), then at a table of engines after a real deal, where a revoke cannot be made and
//! every forged or replayed proof is rejected naming its owner.

use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use facedown_core::engine::{Blame, Engine};
use facedown_core::local::Delivery;
use facedown_core::rng::{party_rng, seeded_rng};
use facedown_core::table::{deal, FaceDownTable, Support, TableError};
use facedown_core::{DriveError, LocalDriver, PartyId, Perm, Symbol, TableOp};
use facedown_poker::elgamal::card_point;
use facedown_poker::encoding::ScalarBytes;
use facedown_poker::errors::{Item, PokerError, ProofKind};
use facedown_poker::keys::PublicKey;
use facedown_poker::legal::{
    prove_none_of_with_rng, verify_none_of, ClaimedCard, Excluded, NoneOfProof, NoneOfStatement,
};
use facedown_poker::messages::Message;
use facedown_poker::reveal::own_token;
use facedown_poker::{PokerEngine, ProofContext};
use rand_chacha::ChaCha20Rng;

use crate::common::{ctx, fixture, transcript, Fixture};

const SESSION: &[u8] = b"legal tests";
/// Cards per suit in Ninety-Nine's 36-card deck; card `k` is of suit `k / 9`.
const SUIT: u16 = 9;

/// Player 2's cards `codes` under the 3-player joint key, with `P` as the others' tokens give it.
fn hand(f: &Fixture, codes: &[u16]) -> Vec<ClaimedCard> {
    let mut rng = seeded_rng(70);
    codes
        .iter()
        .enumerate()
        .map(|(position, &code)| {
            let ct = f.key.encrypt(&card_point(code), &Scalar::random(&mut rng));
            let others: RistrettoPoint = [0, 2].iter().map(|&i| own_token(&f.sks[i], &ct)).sum();
            ClaimedCard {
                position,
                ct: (ct, ct.compress()),
                p: ct.c2 - others,
            }
        })
        .collect()
}

fn symbols(codes: impl IntoIterator<Item = u16>) -> Vec<Excluded> {
    codes
        .into_iter()
        .map(|code| Excluded {
            code,
            point: card_point(code),
        })
        .collect()
}

fn owner_key(f: &Fixture) -> PublicKey {
    *f.sks[1].public()
}

fn owner_ctx() -> ProofContext<'static> {
    ctx(SESSION, 7, 2)
}

fn prove(f: &Fixture, st: &NoneOfStatement<'_>, c: &ProofContext<'_>) -> NoneOfProof {
    prove_none_of_with_rng(&mut transcript(), c, &f.sks[1], st, &mut seeded_rng(71))
        .expect("a true claim")
}

fn verify(
    st: &NoneOfStatement<'_>,
    c: &ProofContext<'_>,
    proof: &NoneOfProof,
) -> Result<(), PokerError> {
    verify_none_of(&mut transcript(), c, st, proof)
}

fn invalid(player: u16) -> Result<(), PokerError> {
    Err(PokerError::InvalidProof {
        player: PartyId(player),
        kind: ProofKind::NoneOf,
    })
}

#[test]
fn an_honest_proof_that_a_hand_holds_no_club_verifies_at_160_bytes_an_inequality() {
    let f = fixture(3, 2, 72);
    // Hearts, spades and diamonds: no card of suit 0.
    let cards = hand(&f, &[9, 12, 20, 27, 35]);
    let (key, excluded) = (owner_key(&f), symbols(0..SUIT));
    let st = NoneOfStatement {
        key: &key,
        cards: &cards,
        excluded: &excluded,
    };
    let proof = prove(&f, &st, &owner_ctx());
    assert_eq!(proof.inequalities.len(), 5 * 9);
    assert_eq!(proof.size_bytes(), 5 * 9 * 160);
    assert_eq!(verify(&st, &owner_ctx(), &proof), Ok(()));
}

#[test]
fn a_player_holding_a_card_of_the_suit_cannot_prove_and_a_proof_for_another_card_is_rejected() {
    let f = fixture(3, 2, 73);
    let cards = hand(&f, &[9, 3, 20]);
    let (key, excluded) = (owner_key(&f), symbols(0..SUIT));
    let st = NoneOfStatement {
        key: &key,
        cards: &cards,
        excluded: &excluded,
    };
    // The edge case: card 3 is one of the excluded symbols.
    let err = prove_none_of_with_rng(
        &mut transcript(),
        &owner_ctx(),
        &f.sks[1],
        &st,
        &mut seeded_rng(74),
    );
    assert_eq!(
        err,
        Err(PokerError::HoldsExcluded {
            player: PartyId(2),
            position: 1
        })
    );
    // The forger proves about a card he pretends to hold (18 instead of 3): the proof of that
    // statement verifies, and is rejected for the real one, naming him.
    let mut pretended = cards.clone();
    pretended[1].p += card_point(18) - card_point(3);
    let fake = NoneOfStatement {
        cards: &pretended,
        ..st
    };
    let proof = prove(&f, &fake, &owner_ctx());
    assert_eq!(verify(&fake, &owner_ctx(), &proof), Ok(()));
    assert_eq!(verify(&st, &owner_ctx(), &proof), invalid(2));
}

/// A claim's parts: the owner's key, the cards and the symbols.
struct Claim {
    key: PublicKey,
    cards: Vec<ClaimedCard>,
    excluded: Vec<Excluded>,
}

impl Claim {
    fn statement(&self) -> NoneOfStatement<'_> {
        NoneOfStatement {
            key: &self.key,
            cards: &self.cards,
            excluded: &self.excluded,
        }
    }
}

/// A valid proof of a 3-card hand against 4 symbols, and its claim.
fn honest(f: &Fixture) -> (Claim, NoneOfProof) {
    let claim = Claim {
        key: owner_key(f),
        cards: hand(f, &[10, 19, 30]),
        excluded: symbols(0..4),
    };
    let proof = prove(f, &claim.statement(), &owner_ctx());
    (claim, proof)
}

type Edit<'a> = Box<dyn Fn(&mut NoneOfProof) + 'a>;

#[test]
fn a_tampered_proof_is_rejected_naming_the_owner() {
    let f = fixture(3, 2, 75);
    let (claim, proof) = honest(&f);
    let (st, excluded) = (claim.statement(), &claim.excluded);
    let other = RistrettoPoint::random(&mut seeded_rng(76)).compress();
    let bump = |s: &ScalarBytes| {
        ScalarBytes::from(Scalar::from_canonical_bytes(s.0).expect("canonical") + Scalar::ONE)
    };
    let edits: Vec<Edit<'_>> = vec![
        Box::new(|p| p.inequalities[0].z = other),
        Box::new(|p| p.inequalities[4].t1 = other),
        Box::new(|p| p.inequalities[11].t2 = other),
        Box::new(|p| p.inequalities[5].s_alpha = bump(&p.inequalities[5].s_alpha)),
        Box::new(|p| p.inequalities[6].s_beta = bump(&p.inequalities[6].s_beta)),
        Box::new(|p| p.inequalities.swap(1, 2)),
    ];
    for edit in edits {
        let mut forged = proof.clone();
        edit(&mut forged);
        assert_eq!(verify(&st, &owner_ctx(), &forged), invalid(2));
    }
    // A card or a symbol left out of the statement, or an inequality left out of the proof.
    let fewer = NoneOfStatement {
        excluded: &excluded[1..],
        ..st
    };
    assert!(matches!(
        verify(&fewer, &owner_ctx(), &proof),
        Err(PokerError::WrongLength {
            player: PartyId(2),
            expected: 9,
            got: 12,
            ..
        })
    ));
    let mut short = proof.clone();
    short.inequalities.pop();
    assert!(matches!(
        verify(&st, &owner_ctx(), &short),
        Err(PokerError::WrongLength {
            player: PartyId(2),
            ..
        })
    ));
    // Another symbol set of the same size.
    let shifted = symbols(1..5);
    let moved = NoneOfStatement {
        excluded: &shifted,
        ..st
    };
    assert_eq!(verify(&moved, &owner_ctx(), &proof), invalid(2));
}

#[test]
fn a_proof_replayed_in_another_round_session_or_by_another_prover_is_rejected() {
    let f = fixture(3, 2, 77);
    let (claim, proof) = honest(&f);
    let (st, cards, excluded) = (claim.statement(), &claim.cards, &claim.excluded);
    assert_eq!(verify(&st, &owner_ctx(), &proof), Ok(()));
    assert_eq!(verify(&st, &ctx(SESSION, 8, 2), &proof), invalid(2));
    assert_eq!(verify(&st, &ctx(b"another game", 7, 2), &proof), invalid(2));
    assert_eq!(verify(&st, &ctx(SESSION, 7, 3), &proof), invalid(3));
    // Player 3's statement about the same ciphertexts (his key, his P) with player 2's proof.
    let key3 = *f.sks[2].public();
    let theirs: Vec<ClaimedCard> = cards
        .iter()
        .map(|c| ClaimedCard {
            p: c.ct.0.c2 - own_token(&f.sks[0], &c.ct.0) - own_token(&f.sks[1], &c.ct.0),
            ..*c
        })
        .collect();
    let st3 = NoneOfStatement {
        key: &key3,
        cards: &theirs,
        excluded,
    };
    assert_eq!(verify(&st3, &ctx(SESSION, 7, 3), &proof), invalid(3));
}

#[test]
fn non_canonical_and_identity_encodings_are_typed_errors_naming_the_owner() {
    let f = fixture(3, 2, 78);
    let (claim, proof) = honest(&f);
    let st = claim.statement();
    let non_canonical = CompressedRistretto([0xff; 32]);
    let noncanonical = Err(PokerError::NonCanonical {
        player: PartyId(2),
        item: Item::Proof,
    });
    for k in 0..3 {
        let mut forged = proof.clone();
        let ineq = &mut forged.inequalities[3];
        match k {
            0 => ineq.z = non_canonical,
            1 => ineq.t1 = non_canonical,
            _ => ineq.t2 = non_canonical,
        }
        assert_eq!(verify(&st, &owner_ctx(), &forged), noncanonical);
    }
    let mut forged = proof.clone();
    forged.inequalities[2].s_beta = ScalarBytes([0xff; 32]);
    assert_eq!(verify(&st, &owner_ctx(), &forged), noncanonical);
    // Z = α·(M − M_s) is the identity exactly when the card is the symbol.
    let mut forged = proof;
    forged.inequalities[2].z = CompressedRistretto::default();
    assert_eq!(
        verify(&st, &owner_ctx(), &forged),
        Err(PokerError::IdentityPoint {
            player: PartyId(2),
            item: Item::Proof
        })
    );
}

// --- At a table of engines, after a deal of Ninety-Nine's 36 cards, 12 to each of 3 players.

type Engines = Vec<PokerEngine<ChaCha20Rng>>;

fn engines(seed: u64) -> Engines {
    PartyId::all(3)
        .map(|p| PokerEngine::with_rng(p, 3, SESSION, party_rng(seed, 0, p)).expect("valid player"))
        .collect()
}

/// Player 2's hand (positions 12..24) after a deal, as `(position, card)`.
fn deal_hand<T: FaceDownTable>(t: &mut T) -> Vec<(usize, u16)>
where
    T::Error: From<TableError> + std::fmt::Debug,
{
    let dealt = deal(t, 36, 12, 0).expect("an honest deal");
    let cards = dealt.hands[1].clone().expect("player 2's hand");
    (12..24)
        .zip(cards)
        .map(|(i, s)| match s {
            Symbol::Card(k) => (i, k),
            other => panic!("a numbered card, not {other}"),
        })
        .collect()
}

/// A suit player 2 holds (the suit of his first card), and the positions of his other cards.
fn revoke_setup(hand: &[(usize, u16)]) -> (u16, Vec<usize>, Vec<usize>) {
    let suit = hand[0].1 / SUIT;
    let (of_suit, others): (Vec<_>, Vec<_>) = hand.iter().partition(|(_, k)| k / SUIT == suit);
    let positions = |v: Vec<&(usize, u16)>| v.into_iter().map(|(i, _)| *i).collect();
    (suit, positions(of_suit), positions(others))
}

fn claim(positions: Vec<usize>, suit: u16) -> TableOp {
    TableOp::ProveNoneOf {
        owner: PartyId(2),
        positions,
        excluded: (suit * SUIT..(suit + 1) * SUIT).map(Symbol::Card).collect(),
    }
}

#[test]
fn a_player_proves_at_play_time_that_his_other_cards_hold_none_of_the_suit() {
    assert_eq!(
        <PokerEngine<ChaCha20Rng> as Engine>::capabilities(3).prove_none_of,
        Support::Secure
    );
    let mut t = LocalDriver::new(engines(80)).expect("setup");
    let hand = deal_hand(&mut t);
    let (suit, _, others) = revoke_setup(&hand);
    let before = t.cost();
    t.apply(&claim(others.clone(), suit)).expect("a true claim");
    let cost = t.cost();
    // One broadcast of the proof, then the echo round: 2 + 6 messages, 2 rounds.
    assert_eq!(cost.messages - before.messages, 2 + 6);
    assert_eq!(cost.rounds - before.rounds, 2);
    // The claim still holds after the hand is rearranged in public: the tokens the owner
    // forwards carry the position they were made for.
    let n = t.len();
    let reversed = Perm::from_images((0..n).rev().collect()).expect("a permutation");
    t.rearrange(&reversed).expect("rearrange");
    let moved: Vec<usize> = others.iter().map(|&i| n - 1 - i).collect();
    t.apply(&claim(moved, suit)).expect("a true claim, moved");
}

#[test]
fn a_revoke_cannot_be_made_the_owners_engine_refuses_and_nobody_else_is_blamed() {
    let mut t = LocalDriver::new(engines(81)).expect("setup");
    let hand = deal_hand(&mut t);
    let (suit, of_suit, _) = revoke_setup(&hand);
    let err = t
        .apply(&claim(of_suit.clone(), suit))
        .expect_err("he holds the suit");
    assert!(
        matches!(
            &err,
            DriveError::Engine {
                party: PartyId(2),
                source: PokerError::HoldsExcluded { player: PartyId(2), position },
            } if of_suit.contains(position)
        ),
        "{err}"
    );
    assert_eq!(err.source_blamed(), Some(PartyId(2)));
    assert!(t
        .later_failures()
        .iter()
        .all(|e| matches!(e.source_blamed(), None | Some(PartyId(2)))));
}

/// The blame an error carries, whichever layer it comes from.
trait SourceBlamed {
    fn source_blamed(&self) -> Option<PartyId>;
}

impl SourceBlamed for DriveError<PokerError> {
    fn source_blamed(&self) -> Option<PartyId> {
        match self {
            DriveError::Engine { source, .. } => source.blamed(),
            DriveError::Echo { source, .. } => source.blamed(),
            _ => None,
        }
    }
}

/// Rewrites every none-of message in transit (the same way for every recipient).
fn tapping(
    seed: u64,
    edit: impl FnMut(&mut facedown_poker::messages::NoneOfMessage) + 'static,
) -> LocalDriver<PokerEngine<ChaCha20Rng>, impl FnMut(&mut Delivery) -> bool> {
    let mut edit = edit;
    let tap = move |d: &mut Delivery| {
        if let Ok(Message::NoneOf(mut m)) = Message::from_bytes(d.from, &d.payload) {
            edit(&mut m);
            d.payload = Message::NoneOf(m).to_bytes().expect("encodes");
        }
        true
    };
    LocalDriver::tapped(engines(seed), tap).expect("setup")
}

fn assert_owner_blamed(err: &DriveError<PokerError>, kind: ProofKind) {
    assert!(
        matches!(
            err,
            DriveError::Engine {
                source: PokerError::InvalidProof { player: PartyId(2), kind: k },
                ..
            } if *k == kind
        ),
        "{err}"
    );
}

#[test]
fn a_tampered_proof_or_forwarded_token_is_rejected_at_the_table_naming_the_owner() {
    let edits: Vec<fn(&mut facedown_poker::messages::NoneOfMessage)> = vec![
        |m| m.proof.inequalities[3].s_alpha = ScalarBytes::from(Scalar::ONE),
        |m| m.cards[0].tokens.swap(0, 1),
        |m| m.cards[1].tokens[0].position += 1,
        |m| m.cards[0].tokens[1] = m.cards[1].tokens[1],
    ];
    for (k, edit) in edits.into_iter().enumerate() {
        let mut t = tapping(82 + k as u64, edit);
        let hand = deal_hand(&mut t);
        let (suit, _, others) = revoke_setup(&hand);
        let err = t.apply(&claim(others, suit)).expect_err("tampered");
        assert_owner_blamed(&err, ProofKind::NoneOf);
    }
    // Tokens of another round than the opening's, or missing ones.
    let mut t = tapping(86, |m| m.cards[0].round += 1);
    let hand = deal_hand(&mut t);
    let (suit, _, others) = revoke_setup(&hand);
    let err = t.apply(&claim(others, suit)).expect_err("tampered");
    assert!(
        matches!(
            err,
            DriveError::Engine {
                source: PokerError::InvalidProof {
                    player: PartyId(2),
                    ..
                } | PokerError::UnexpectedMessage {
                    player: PartyId(2),
                    ..
                },
                ..
            }
        ),
        "{err}"
    );
    let mut t = tapping(87, |m| {
        m.cards[2].tokens.pop();
    });
    let hand = deal_hand(&mut t);
    let (suit, _, others) = revoke_setup(&hand);
    let err = t.apply(&claim(others, suit)).expect_err("tampered");
    assert!(
        matches!(
            err,
            DriveError::Engine {
                source: PokerError::WrongLength {
                    player: PartyId(2),
                    expected: 2,
                    got: 1,
                    ..
                },
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_proof_replayed_from_an_earlier_claim_is_rejected_naming_the_owner() {
    use std::cell::RefCell;
    use std::rc::Rc;
    // The first none-of message is recorded; every later one is replaced by it.
    let first: Rc<RefCell<Option<facedown_poker::messages::NoneOfMessage>>> = Rc::default();
    let seen = Rc::clone(&first);
    let mut t = tapping(88, move |m| {
        let mut seen = seen.borrow_mut();
        match seen.as_ref() {
            None => *seen = Some(m.clone()),
            Some(old) => *m = old.clone(),
        }
    });
    let hand = deal_hand(&mut t);
    let (suit, _, others) = revoke_setup(&hand);
    t.apply(&claim(others.clone(), suit))
        .expect("the first claim");
    // The same claim in a later round: without the round in the transcript it would pass.
    let err = t.apply(&claim(others, suit)).expect_err("replayed");
    assert_owner_blamed(&err, ProofKind::NoneOf);
    assert!(first.borrow().is_some());
}

#[test]
fn a_claim_about_a_card_not_shown_to_the_owner_is_refused_without_blame() {
    let mut t = LocalDriver::new(engines(89)).expect("setup");
    let _ = deal_hand(&mut t);
    // Position 0 is player 1's.
    let err = t.apply(&claim(vec![0], 0)).expect_err("not his card");
    assert!(
        matches!(
            &err,
            DriveError::Engine {
                party: PartyId(2),
                source: PokerError::InvalidParameters(_)
            }
        ),
        "{err}"
    );
    assert_eq!(err.source_blamed(), None);
}
