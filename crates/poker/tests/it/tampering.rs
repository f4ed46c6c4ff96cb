//! Every kind of tampering is rejected with a typed error that names the cheating player.

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_POINT;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use facedown_core::rng::trial_rng;
use facedown_core::PartyId;
use facedown_poker::deal::{
    deal_with_adversary_with_rng, run_deal_with_adversary_with_rng, Adversary, DealParams, Honest,
};
use facedown_poker::elgamal::CompressedCiphertext;
use facedown_poker::encoding::ScalarBytes;
use facedown_poker::errors::{Item, PokerError, ProofKind};
use facedown_poker::keys::KeyShare;
use facedown_poker::messages::Message;

const PARAMS: DealParams = DealParams {
    players: 3,
    cards: 10,
    hand: 2,
    public: 2,
};

/// Rewrites messages with a closure.
struct Tamper<F: FnMut(&mut Message)>(F);

impl<F: FnMut(&mut Message)> Adversary for Tamper<F> {
    fn tamper_message(&mut self, msg: &mut Message) {
        (self.0)(msg)
    }
}

/// Rewrites encoded bytes with a closure.
struct TamperBytes<F: FnMut(PartyId, &mut Vec<u8>)>(F);

impl<F: FnMut(PartyId, &mut Vec<u8>)> Adversary for TamperBytes<F> {
    fn tamper_bytes(&mut self, sender: PartyId, bytes: &mut Vec<u8>) {
        (self.0)(sender, bytes)
    }
}

fn run<A: Adversary>(adversary: &mut A) -> PokerError {
    run_session(b"session A", adversary)
}

fn run_session<A: Adversary>(session: &[u8], adversary: &mut A) -> PokerError {
    let (result, _) =
        run_deal_with_adversary_with_rng(PARAMS, session, adversary, &mut trial_rng(77, 0));
    match result {
        Ok(_) => panic!("tampering went unnoticed"),
        Err(e) => e,
    }
}

/// Tampers with player `who`'s shuffle message.
fn on_shuffle_of(
    who: u16,
    mut f: impl FnMut(&mut Vec<CompressedCiphertext>, &mut facedown_poker::shuffle::ShuffleProof),
) -> impl FnMut(&mut Message) {
    move |msg| {
        if let Message::Shuffle(m) = msg {
            if m.player == PartyId(who) {
                f(&mut m.deck, &mut m.proof);
            }
        }
    }
}

fn invalid(player: u16, kind: ProofKind) -> PokerError {
    PokerError::InvalidProof {
        player: PartyId(player),
        kind,
    }
}

#[test]
fn honest_run_passes_the_same_harness() {
    let (result, _) =
        run_deal_with_adversary_with_rng(PARAMS, b"session A", &mut Honest, &mut trial_rng(77, 0));
    result.expect("no tampering, no error");
}

/// A wrong permutation: two output cards swapped after proving.
#[test]
fn swapped_cards_are_rejected_naming_the_shuffler() {
    let err = run(&mut Tamper(on_shuffle_of(2, |deck, _| deck.swap(0, 3))));
    assert_eq!(err, invalid(2, ProofKind::Shuffle));
}

/// A duplicated card (one card copied over another) is not a permutation.
#[test]
fn duplicated_card_is_rejected_naming_the_shuffler() {
    let err = run(&mut Tamper(on_shuffle_of(1, |deck, _| deck[4] = deck[2])));
    assert_eq!(err, invalid(1, ProofKind::Shuffle));
}

/// A wrong re-randomisation: one card's `c2` shifted by `G` (it now hides another point).
#[test]
fn wrong_rerandomisation_is_rejected_naming_the_shuffler() {
    let err = run(&mut Tamper(on_shuffle_of(3, |deck, _| {
        let c2 = deck[1].c2.decompress().expect("valid point") + RISTRETTO_BASEPOINT_POINT;
        deck[1].c2 = c2.compress();
    })));
    assert_eq!(err, invalid(3, ProofKind::Shuffle));
}

/// The honest deck with a tampered proof scalar.
#[test]
fn tampered_shuffle_proof_is_rejected() {
    let err = run(&mut Tamper(on_shuffle_of(2, |_, proof| {
        proof.a_bar[0] = ScalarBytes([7; 32]);
    })));
    assert_eq!(err, invalid(2, ProofKind::Shuffle));
}

/// A truncated deck (a card dropped) is a length error, not a panic.
#[test]
fn dropped_card_is_a_length_error() {
    let err = run(&mut Tamper(on_shuffle_of(2, |deck, _| {
        deck.pop();
    })));
    assert!(
        matches!(
            err,
            PokerError::WrongLength {
                player: PartyId(2),
                ..
            }
        ),
        "{err}"
    );
}

/// Non-canonical point bytes in a deck, and a non-canonical scalar in a proof.
#[test]
fn non_canonical_encodings_are_rejected_naming_the_sender() {
    let err = run(&mut Tamper(on_shuffle_of(1, |deck, _| {
        deck[0].c1 = CompressedRistretto([0xff; 32]);
    })));
    assert_eq!(
        err,
        PokerError::NonCanonical {
            player: PartyId(1),
            item: Item::Ciphertext
        }
    );
    // A field element with its low bit set is a "negative" ristretto encoding.
    let mut neg = [0u8; 32];
    neg[0] = 1;
    let err = run(&mut Tamper(on_shuffle_of(3, |_, proof| {
        proof.c_a = CompressedRistretto(neg);
    })));
    assert_eq!(
        err,
        PokerError::NonCanonical {
            player: PartyId(3),
            item: Item::Proof
        }
    );
    // ℓ itself is not a canonical scalar.
    let ell = curve25519_dalek::scalar::Scalar::ZERO - curve25519_dalek::scalar::Scalar::ONE;
    let mut ell_bytes = ell.to_bytes();
    ell_bytes[0] += 1;
    let err = run(&mut Tamper(on_shuffle_of(2, |_, proof| {
        proof.tau_bar = ScalarBytes(ell_bytes);
    })));
    assert_eq!(
        err,
        PokerError::NonCanonical {
            player: PartyId(2),
            item: Item::Proof
        }
    );
}

/// The identity as a public key share.
#[test]
fn identity_key_is_rejected_naming_the_player() {
    let err = run(&mut Tamper(|msg: &mut Message| {
        if let Message::KeyShare(s) = msg {
            if s.player == PartyId(2) {
                s.key = CompressedRistretto::default();
            }
        }
    }));
    assert_eq!(
        err,
        PokerError::IdentityPoint {
            player: PartyId(2),
            item: Item::PublicKey
        }
    );
}

/// Every player's key share in an honest run of session A (the same seed gives the same keys
/// in every run).
fn honest_key_shares() -> Vec<KeyShare> {
    let mut shares: Vec<KeyShare> = Vec::new();
    let mut capture = Tamper(|msg: &mut Message| {
        if let Message::KeyShare(s) = msg {
            if !shares.iter().any(|k| k.player == s.player) {
                shares.push(*s);
            }
        }
    });
    let (result, _) =
        run_deal_with_adversary_with_rng(PARAMS, b"session A", &mut capture, &mut trial_rng(77, 0));
    result.expect("honest session A");
    shares.sort_by_key(|k| k.player);
    shares
}

/// [BS03] rogue key: the last player announces `Y* − Σ others` (so that the joint key is a
/// `Y*` it can decrypt under alone). It cannot prove knowledge of that key's discrete log.
#[test]
fn rogue_key_is_rejected_by_the_proof_of_knowledge() {
    let y_star = RISTRETTO_BASEPOINT_POINT * curve25519_dalek::scalar::Scalar::from(12345u64);
    let shares = honest_key_shares();
    let others: RistrettoPoint = shares[..2]
        .iter()
        .map(|s| s.key.decompress().expect("honest key"))
        .sum();
    let rogue = y_star - others;
    let err = run(&mut Tamper(|msg: &mut Message| {
        if let Message::KeyShare(s) = msg {
            if s.player == PartyId(3) {
                s.key = rogue.compress();
            }
        }
    }));
    // The attack premise: with this key, the joint key would be Y*.
    assert_eq!(others + rogue, y_star);
    assert_eq!(err, invalid(3, ProofKind::KeyOwnership));
}

/// A key share (with its proof) replayed under another player's name.
#[test]
fn key_share_replayed_as_another_player_is_rejected() {
    // Player 1's share of this very session, from an honest run with the same seed (the
    // order in which the players' shares are delivered is not the point).
    let mut first: Option<KeyShare> = None;
    let mut capture = Tamper(|msg: &mut Message| {
        if let Message::KeyShare(s) = msg {
            if s.player == PartyId(1) {
                first = Some(*s);
            }
        }
    });
    let (result, _) =
        run_deal_with_adversary_with_rng(PARAMS, b"session A", &mut capture, &mut trial_rng(77, 0));
    result.expect("honest session");
    let f = first.expect("player 1 announced its key");
    let err = run(&mut Tamper(move |msg: &mut Message| {
        if let Message::KeyShare(s) = msg {
            if s.player == PartyId(2) {
                *s = KeyShare {
                    player: PartyId(2),
                    ..f
                };
            }
        }
    }));
    assert_eq!(err, invalid(2, ProofKind::KeyOwnership));
}

/// A key share replayed from another session (same player).
#[test]
fn key_share_replayed_from_another_session_is_rejected() {
    let mut captured: Option<KeyShare> = None;
    let mut capture = Tamper(|msg: &mut Message| {
        if let Message::KeyShare(s) = msg {
            if s.player == PartyId(2) {
                captured = Some(*s);
            }
        }
    });
    let (result, _) =
        run_deal_with_adversary_with_rng(PARAMS, b"session B", &mut capture, &mut trial_rng(1, 1));
    result.expect("honest session B");
    let old = captured.expect("player 2 announced its key");
    let err = run_session(
        b"session A",
        &mut Tamper(move |msg: &mut Message| {
            if let Message::KeyShare(s) = msg {
                if s.player == PartyId(2) {
                    *s = old;
                }
            }
        }),
    );
    assert_eq!(err, invalid(2, ProofKind::KeyOwnership));
}

/// A shuffle proof replayed from another session on the same decks fails: the session is in
/// the transcript. (Same seed, so the same keys and decks arise in both sessions.)
#[test]
fn shuffle_replayed_from_another_session_is_rejected() {
    let mut captured = None;
    let mut capture = Tamper(|msg: &mut Message| {
        if let Message::Shuffle(m) = msg {
            if m.player == PartyId(1) {
                captured = Some(m.clone());
            }
        }
    });
    let (result, _) =
        run_deal_with_adversary_with_rng(PARAMS, b"session B", &mut capture, &mut trial_rng(77, 0));
    result.expect("honest session B");
    let old = captured.expect("player 1 shuffled");
    let mut replay = Tamper(move |msg: &mut Message| {
        if let Message::Shuffle(m) = msg {
            if m.player == PartyId(1) {
                *m = old.clone();
            }
        }
    });
    let err = run_session(b"session A", &mut replay);
    assert_eq!(err, invalid(1, ProofKind::Shuffle));
}

/// Reveal tokens swapped between two positions (each token and proof is genuine, for the
/// other position).
#[test]
fn reveal_token_for_another_position_is_rejected() {
    let err = run(&mut Tamper(|msg: &mut Message| {
        if let Message::Reveal(m) = msg {
            if m.player == PartyId(2) {
                let (a, b) = (m.tokens[0], m.tokens[1]);
                m.tokens[0] = facedown_poker::reveal::BatchableRevealToken {
                    position: a.position,
                    ..b
                };
                m.tokens[1] = facedown_poker::reveal::BatchableRevealToken {
                    position: b.position,
                    ..a
                };
            }
        }
    }));
    assert_eq!(err, invalid(2, ProofKind::RevealToken));
}

/// A reveal token that is the identity, or simply wrong.
#[test]
fn wrong_reveal_token_is_rejected() {
    let err = run(&mut Tamper(|msg: &mut Message| {
        if let Message::Reveal(m) = msg {
            if m.player == PartyId(3) {
                let last = m.tokens.len() - 1;
                m.tokens[last].token = CompressedRistretto::default();
            }
        }
    }));
    assert_eq!(err, invalid(3, ProofKind::RevealToken));
}

/// Reveal tokens for too few positions.
#[test]
fn missing_reveal_tokens_are_a_length_error() {
    let err = run(&mut Tamper(|msg: &mut Message| {
        if let Message::Reveal(m) = msg {
            if m.player == PartyId(1) {
                m.tokens.pop();
            }
        }
    }));
    assert!(
        matches!(
            err,
            PokerError::WrongLength {
                player: PartyId(1),
                ..
            }
        ),
        "{err}"
    );
}

/// Truncated bytes, trailing garbage, and a message that claims another sender.
#[test]
fn truncated_and_forged_messages_are_rejected_naming_the_sender() {
    for cut in [1usize, 10, 100] {
        let err = run(&mut TamperBytes(|sender: PartyId, bytes: &mut Vec<u8>| {
            if sender == PartyId(2) && bytes.len() > cut {
                bytes.truncate(bytes.len() - cut);
            }
        }));
        assert!(
            matches!(
                err,
                PokerError::Malformed {
                    player: PartyId(2),
                    ..
                }
            ),
            "{err}"
        );
    }
    let err = run(&mut TamperBytes(|sender: PartyId, bytes: &mut Vec<u8>| {
        if sender == PartyId(3) {
            bytes.push(0);
        }
    }));
    assert!(
        matches!(
            err,
            PokerError::Malformed {
                player: PartyId(3),
                ..
            }
        ),
        "{err}"
    );
    let err = run(&mut Tamper(|msg: &mut Message| {
        if let Message::KeyShare(s) = msg {
            if s.player == PartyId(1) {
                s.player = PartyId(2);
            }
        }
    }));
    assert!(
        matches!(
            err,
            PokerError::UnexpectedMessage {
                player: PartyId(1),
                ..
            }
        ),
        "{err}"
    );
}

/// The report-level view of a failure: audit failed, blame on the cheater, nothing dealt.
#[test]
fn failed_audit_blames_the_cheater_in_the_report() {
    let report = deal_with_adversary_with_rng(
        PARAMS,
        b"session A",
        &mut Tamper(on_shuffle_of(2, |deck, _| deck.swap(0, 1))),
        &mut trial_rng(77, 0),
    );
    assert!(!report.audit.passed);
    assert_eq!(report.audit.blame, Some(PartyId(2)));
    assert!(report.hands.is_empty() && report.public.is_empty());
    assert!(report.cost.messages > 0);
}

/// What a cheating last shuffler learns from the broadcasts before its turn: enough to make a
/// *valid* shuffle proof of a deck of its choice, bound to its own round and session.
#[derive(Default)]
struct Eavesdropper {
    hellos: Vec<facedown_poker::messages::HelloMessage>,
    shares: Vec<KeyShare>,
    first_deck: Option<Vec<CompressedCiphertext>>,
    forged: Option<facedown_poker::messages::ShuffleMessage>,
}

impl Eavesdropper {
    /// Player 3's turn as a shuffle of player 1's deck (skipping player 2's), validly proved.
    fn forge(&self) -> facedown_poker::messages::ShuffleMessage {
        use facedown_core::session::{Hello, Hellos};
        use facedown_poker::engine::{commitment_key, BACKEND, TRANSCRIPT_LABEL};
        use facedown_poker::ProofContext;
        let hello = |h: &facedown_poker::messages::HelloMessage| Hello {
            nonce: h.nonce,
            key: None,
        };
        let mut hellos = Hellos::new(PartyId(1), 3, hello(&self.hellos[0]));
        for h in &self.hellos[1..] {
            hellos.receive(h.player, hello(h)).expect("distinct hellos");
        }
        let session = hellos.session(BACKEND, b"session A").expect("every hello");
        let base = merlin::Transcript::new(TRANSCRIPT_LABEL);
        let ctx = |round, player| ProofContext {
            session: &session,
            round,
            player,
        };
        let keys: Vec<_> = self
            .shares
            .iter()
            .map(|s| s.verify(&mut base.clone(), &ctx(0, s.player)))
            .collect::<Result<_, _>>()
            .expect("honest shares");
        let joint = facedown_poker::keys::joint_key(&keys).expect("a joint key");
        let wire = self.first_deck.clone().expect("player 1's deck");
        let input = facedown_poker::elgamal::Deck::decode(wire, PartyId(1)).expect("a deck");
        let ck = commitment_key(input.len());
        let (out, proof) = facedown_poker::shuffle::shuffle_with_rng(
            &mut base.clone(),
            &ctx(3, PartyId(3)),
            &ck,
            &joint,
            &input,
            &mut trial_rng(5, 5),
        )
        .expect("a shuffle");
        // The forgery is sound about the deck it names: only its input is not the agreed one.
        facedown_poker::shuffle::verify_shuffle(
            &mut base.clone(),
            &ctx(3, PartyId(3)),
            &ck,
            &joint,
            &input,
            &out,
            &proof,
        )
        .expect("a valid proof of a shuffle of player 1's deck");
        facedown_poker::messages::ShuffleMessage {
            player: PartyId(3),
            deck: out.wire().to_vec(),
            proof,
        }
    }
}

impl Adversary for Eavesdropper {
    fn tamper_message(&mut self, msg: &mut Message) {
        match msg {
            Message::Hello(h) if !self.hellos.iter().any(|k| k.player == h.player) => {
                self.hellos.push(*h);
                self.hellos.sort_by_key(|k| k.player);
            }
            Message::KeyShare(s) if !self.shares.iter().any(|k| k.player == s.player) => {
                self.shares.push(*s);
                self.shares.sort_by_key(|k| k.player);
            }
            Message::Shuffle(m) if m.player == PartyId(1) => {
                self.first_deck.get_or_insert_with(|| m.deck.clone());
            }
            Message::Shuffle(m) if m.player == PartyId(3) => {
                if self.forged.is_none() {
                    self.forged = Some(self.forge());
                }
                if let Some(forged) = &self.forged {
                    **m = forged.clone();
                }
            }
            _ => {}
        }
    }
}

/// A verifier reuses the deck it decoded from one turn as the next turn's input. A next shuffler
/// who proves, validly and in its own round, a shuffle of *another* deck (player 1's, undoing
/// player 2's shuffle) is named; the player whose deck it skipped is never blamed.
#[test]
fn a_valid_proof_of_a_shuffle_of_another_deck_names_the_shuffler_not_the_decks_author() {
    let mut cheat = Eavesdropper::default();
    let err = run(&mut cheat);
    assert!(cheat.forged.is_some(), "the cheat ran");
    assert_eq!(err, invalid(3, ProofKind::Shuffle), "{err}");
}

/// Players who verify every proof on its own name the same cheater as batching players: a
/// shuffle with two cards swapped, and a false reveal token.
#[test]
fn players_verifying_one_by_one_name_the_same_cheaters() {
    use facedown_poker::batch::Verification;
    use facedown_poker::deal::run_deal_verifying;
    fn verdict<A: Adversary>(adversary: &mut A, v: Verification) -> Option<PokerError> {
        run_deal_verifying(PARAMS, b"session A", adversary, v, &mut trial_rng(77, 0))
            .0
            .err()
    }
    let false_token = |msg: &mut Message| {
        if let Message::Reveal(m) = msg {
            if m.player == PartyId(3) {
                let last = m.tokens.len() - 1;
                m.tokens[last].token = CompressedRistretto::default();
            }
        }
    };
    for v in [Verification::Batched, Verification::OneByOne] {
        let swapped = verdict(&mut Tamper(on_shuffle_of(2, |deck, _| deck.swap(0, 3))), v);
        assert_eq!(swapped, Some(invalid(2, ProofKind::Shuffle)), "{v:?}");
        let token = verdict(&mut Tamper(false_token), v);
        assert_eq!(token, Some(invalid(3, ProofKind::RevealToken)), "{v:?}");
        assert_eq!(verdict(&mut Honest, v), None, "{v:?}: an honest deal");
    }
}
