//! Batched verification gives the verdicts of one-by-one verification: honest batches pass, and
//! a bad proof anywhere in a batch is found and its author named.

use crate::common;

use common::{ctx, fixture, transcript, Fixture};
use curve25519_dalek::constants::RISTRETTO_BASEPOINT_POINT;
use curve25519_dalek::ristretto::CompressedRistretto;
use facedown_core::rng::seeded_rng;
use facedown_core::PartyId;
use facedown_poker::batch::{
    verify_reveal_tokens, verify_reveal_tokens_one_by_one, verify_shuffles,
    verify_shuffles_one_by_one, ShuffleClaim, TokenClaim,
};
use facedown_poker::elgamal::Deck;
use facedown_poker::encoding::ScalarBytes;
use facedown_poker::errors::{Item, PokerError, ProofKind};
use facedown_poker::reveal::{
    batchable_reveal_token_with_rng, verify_batchable_reveal_token, BatchableRevealToken,
};
use facedown_poker::shuffle::{shuffle_with_rng, ShuffleProof};
use proptest::prelude::*;

const SESSION: &[u8] = b"batch tests";

/// The shuffles of a deal: player `k + 1` turns `decks[k]` into `decks[k + 1]` with
/// `proofs[k]`, in round `k + 1`.
struct Deal {
    f: Fixture,
    decks: Vec<Deck>,
    proofs: Vec<ShuffleProof>,
}

fn deal(players: usize, n: u16, seed: u64) -> Deal {
    let f = fixture(players, n, seed);
    let mut rng = seeded_rng(seed ^ 0xdea1);
    let mut decks = vec![f.open.clone()];
    let mut proofs = Vec::new();
    for k in 0..players {
        let c = ctx(SESSION, k as u64 + 1, k as u16 + 1);
        let (out, proof) =
            shuffle_with_rng(&mut transcript(), &c, &f.ck, &f.key, &decks[k], &mut rng)
                .expect("sizes fit");
        decks.push(out);
        proofs.push(proof);
    }
    Deal { f, decks, proofs }
}

impl Deal {
    /// The claims a verifier checks: every shuffle but those of `skip` (1-based players).
    fn claims(&self, skip: &[u16]) -> Vec<ShuffleClaim<'_>> {
        (0..self.proofs.len())
            .filter(|k| !skip.contains(&(*k as u16 + 1)))
            .map(|k| ShuffleClaim {
                transcript: transcript(),
                ctx: ctx(SESSION, k as u64 + 1, k as u16 + 1),
                input: &self.decks[k],
                output: &self.decks[k + 1],
                proof: &self.proofs[k],
            })
            .collect()
    }

    fn batched(&self, skip: &[u16]) -> Result<(), PokerError> {
        verify_shuffles(&self.f.ck, &self.f.key, self.claims(skip))
    }

    fn one_by_one(&self, skip: &[u16]) -> Result<(), PokerError> {
        verify_shuffles_one_by_one(&self.f.ck, &self.f.key, self.claims(skip))
    }

    /// Replaces player `p`'s output deck (the next player's input) by `deck`.
    fn replace_deck(&mut self, p: u16, deck: Deck) {
        self.decks[usize::from(p)] = deck;
    }
}

fn invalid(player: u16) -> PokerError {
    PokerError::InvalidProof {
        player: PartyId(player),
        kind: ProofKind::Shuffle,
    }
}

/// A scalar other than `s`: `s + 1`, or 0 when an earlier corruption left `s` non-canonical
/// (the random corruptions may hit one response twice).
fn bump(s: &ScalarBytes) -> ScalarBytes {
    use curve25519_dalek::scalar::Scalar;
    s.decode(PartyId(0), Item::Proof)
        .map_or(Scalar::ZERO, |v| v + Scalar::ONE)
        .into()
}

fn shift(p: &CompressedRistretto, by: i8) -> CompressedRistretto {
    let point = p.decompress().expect("valid point");
    if by >= 0 {
        (point + RISTRETTO_BASEPOINT_POINT).compress()
    } else {
        (point - RISTRETTO_BASEPOINT_POINT).compress()
    }
}

#[test]
fn each_players_batch_of_the_other_shuffles_of_a_4_player_deal_passes() {
    let d = deal(4, 12, 1);
    for p in 1..=4 {
        assert_eq!(d.batched(&[p]), Ok(()), "player {p}'s view");
    }
    assert_eq!(d.batched(&[]), Ok(()), "all four");
    assert_eq!(verify_shuffles(&d.f.ck, &d.f.key, Vec::new()), Ok(()));
}

#[test]
fn a_tampered_proof_inside_a_batch_names_its_author() {
    for cheater in 1..=4u16 {
        let mut d = deal(4, 10, 2);
        let k = usize::from(cheater - 1);
        d.proofs[k].a_bar[3] = bump(&d.proofs[k].a_bar[3]);
        let verifier = if cheater == 1 { 2 } else { 1 };
        assert_eq!(d.batched(&[verifier]), Err(invalid(cheater)));
        assert_eq!(d.one_by_one(&[verifier]), Err(invalid(cheater)));
    }
}

#[test]
fn a_false_deck_is_blamed_on_the_player_who_published_it() {
    // Player 2 swaps two cards after proving: its proof fails, and so does player 3's (made on
    // the honest deck); the batch names the first, player 2.
    let mut d = deal(4, 10, 3);
    let mut cts = d.decks[2].ciphertexts().to_vec();
    cts.swap(0, 7);
    d.replace_deck(2, Deck::from_ciphertexts(cts));
    assert_eq!(d.batched(&[1]), Err(invalid(2)));
    assert_eq!(d.batched(&[2]), Err(invalid(3)));
}

/// Proofs of a batch share its decks' coefficients (the output of one shuffle is the next
/// one's input, one slot in the sum): a proof presented with a deck of another proof of the
/// same batch — or two proofs with their statements exchanged — must not pass through that
/// sharing, and the first false claim is named.
#[test]
fn decks_swapped_between_proofs_of_a_batch_are_rejected_naming_the_first() {
    let d = deal(4, 9, 7);
    let claim = |k: usize, input: usize, output: usize| ShuffleClaim {
        transcript: transcript(),
        ctx: ctx(SESSION, k as u64 + 1, k as u16 + 1),
        input: &d.decks[input],
        output: &d.decks[output],
        proof: &d.proofs[k],
    };
    let batch = |claims: Vec<ShuffleClaim<'_>>| verify_shuffles(&d.f.ck, &d.f.key, claims);
    // Player 3's proof given player 2's input deck, which is also in the batch.
    let shifted = vec![claim(1, 1, 2), claim(2, 1, 3), claim(3, 3, 4)];
    assert_eq!(batch(shifted), Err(invalid(3)));
    // Players 2 and 3 with each other's statements: every deck is still in the batch once.
    let exchanged = vec![claim(1, 2, 3), claim(2, 1, 2), claim(3, 3, 4)];
    assert_eq!(batch(exchanged), Err(invalid(2)));
    // The honest batch of the same decks passes.
    assert_eq!(
        batch(vec![claim(1, 1, 2), claim(2, 2, 3), claim(3, 3, 4)]),
        Ok(())
    );
}

#[test]
fn malformed_proofs_in_a_batch_get_the_one_by_one_error() {
    let mut d = deal(3, 8, 4);
    d.proofs[2].b_tilde[1] = ScalarBytes([0xff; 32]);
    let expected = PokerError::NonCanonical {
        player: PartyId(3),
        item: Item::Proof,
    };
    assert_eq!(d.batched(&[1]), Err(expected));
    d.proofs[1].a_tilde.pop();
    let err = d.batched(&[1]).expect_err("a short proof is rejected");
    assert!(
        matches!(
            err,
            PokerError::WrongLength {
                player: PartyId(2),
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn a_proof_claimed_for_another_round_or_player_is_rejected() {
    let d = deal(3, 8, 5);
    let mut claims = d.claims(&[1]);
    claims[1].ctx = ctx(SESSION, 2, 3);
    assert_eq!(
        verify_shuffles(&d.f.ck, &d.f.key, claims),
        Err(invalid(3)),
        "player 3's proof presented for round 2"
    );
    let mut claims = d.claims(&[1]);
    claims[0].ctx = ctx(SESSION, 2, 1);
    assert_eq!(
        verify_shuffles(&d.f.ck, &d.f.key, claims),
        Err(invalid(1)),
        "player 2's proof presented as player 1's"
    );
}

/// Player 2 adds `G` to its `E_0.c1` after proving, player 3 subtracts it from its own. (Proofs
/// whose offsets are absorbed consistently, and so would cancel in an unweighted sum, are built
/// with a prover hook in the unit tests of `batch.rs`.)
#[test]
fn opposite_shifts_of_two_proofs_commitments_are_caught() {
    let mut d = deal(4, 8, 6);
    d.proofs[1].e0.c1 = shift(&d.proofs[1].e0.c1, 1);
    d.proofs[2].e0.c1 = shift(&d.proofs[2].e0.c1, -1);
    assert_eq!(d.batched(&[1]), Err(invalid(2)));
}

/// Opposite shifts of two commitments of one proof (`c_d + G` in the product argument,
/// `A_0 − G` in the multi-exponentiation argument) are caught.
#[test]
fn opposite_shifts_inside_one_proof_are_caught() {
    let mut d = deal(3, 8, 7);
    d.proofs[1].c_d = shift(&d.proofs[1].c_d, 1);
    d.proofs[1].c_a0 = shift(&d.proofs[1].c_a0, -1);
    assert_eq!(d.batched(&[1]), Err(invalid(2)));
    assert_eq!(d.one_by_one(&[1]), Err(invalid(2)));
}

/// A round of batchable reveal tokens: players `2..=players` each open `positions` of a
/// shuffled deck.
struct Round {
    f: Fixture,
    deck: Deck,
    tokens: Vec<BatchableRevealToken>,
    owners: Vec<u16>,
}

fn round(players: usize, n: u16, positions: &[u32], seed: u64) -> Round {
    let f = fixture(players, n, seed);
    let mut rng = seeded_rng(seed ^ 0x70c);
    let (deck, _) = shuffle_with_rng(
        &mut transcript(),
        &ctx(SESSION, 1, 1),
        &f.ck,
        &f.key,
        &f.open,
        &mut rng,
    )
    .expect("sizes fit");
    let (mut tokens, mut owners) = (Vec::new(), Vec::new());
    for p in 2..=players as u16 {
        for &pos in positions {
            let i = pos as usize;
            tokens.push(batchable_reveal_token_with_rng(
                &mut transcript(),
                &ctx(SESSION, 9, p),
                &f.sks[usize::from(p - 1)],
                pos,
                (&deck.ciphertexts()[i], &deck.wire()[i]),
                &mut rng,
            ));
            owners.push(p);
        }
    }
    Round {
        f,
        deck,
        tokens,
        owners,
    }
}

impl Round {
    fn claims(&self) -> Vec<TokenClaim<'_>> {
        self.tokens
            .iter()
            .zip(&self.owners)
            .map(|(t, &p)| {
                let i = t.position as usize;
                TokenClaim {
                    transcript: transcript(),
                    ctx: ctx(SESSION, 9, p),
                    pk: self.f.sks[usize::from(p - 1)].public(),
                    ct: (&self.deck.ciphertexts()[i], &self.deck.wire()[i]),
                    token: t,
                }
            })
            .collect()
    }
}

fn invalid_token(player: u16) -> PokerError {
    PokerError::InvalidProof {
        player: PartyId(player),
        kind: ProofKind::RevealToken,
    }
}

#[test]
fn an_honest_round_of_tokens_passes_and_opens_the_same_points() {
    let r = round(4, 12, &[0, 1, 5, 6, 7, 8, 9], 8);
    let batched = verify_reveal_tokens(r.claims()).expect("honest tokens verify");
    let alone = verify_reveal_tokens_one_by_one(r.claims()).expect("honest tokens verify");
    assert_eq!(batched, alone);
    assert_eq!(batched.len(), 21);
    // Each token opens the card with every player's share: test-oracle decryption agrees.
    let cards = r.f.decrypt(&r.deck);
    for &pos in &[0usize, 5, 9] {
        let mut shares: Vec<_> = r
            .tokens
            .iter()
            .zip(&batched)
            .filter(|(t, _)| t.position as usize == pos)
            .map(|(_, d)| *d)
            .collect();
        shares.push(facedown_poker::reveal::own_token(
            &r.f.sks[0],
            &r.deck.ciphertexts()[pos],
        ));
        let card =
            facedown_poker::reveal::open_card(&r.f.cards, pos, &r.deck.ciphertexts()[pos], &shares);
        assert_eq!(card, Ok(cards[pos]));
    }
    assert_eq!(verify_reveal_tokens(Vec::new()), Ok(Vec::new()));
}

#[test]
fn a_false_token_inside_a_round_names_its_author() {
    let mut r = round(4, 10, &[0, 1, 2, 3], 9);
    // Player 3 sends player 2's token for position 2 as its own.
    let (from, to) = (2, 4 + 2);
    r.tokens[to].token = r.tokens[from].token;
    assert_eq!(verify_reveal_tokens(r.claims()), Err(invalid_token(3)));
    assert_eq!(
        verify_reveal_tokens_one_by_one(r.claims()),
        Err(invalid_token(3))
    );
}

#[test]
fn opposite_shifts_of_token_commitments_are_caught() {
    // Player 2's A1 + G and player 4's A1 − G, altered after proving.
    let mut r = round(4, 10, &[0, 1], 10);
    r.tokens[0].proof.a1 = shift(&r.tokens[0].proof.a1, 1);
    r.tokens[5].proof.a1 = shift(&r.tokens[5].proof.a1, -1);
    assert_eq!(verify_reveal_tokens(r.claims()), Err(invalid_token(2)));
    // Inside one token: A1 + G against A2 − G.
    let mut r = round(3, 10, &[4], 11);
    r.tokens[1].proof.a1 = shift(&r.tokens[1].proof.a1, 1);
    r.tokens[1].proof.a2 = shift(&r.tokens[1].proof.a2, -1);
    assert_eq!(verify_reveal_tokens(r.claims()), Err(invalid_token(3)));
}

#[test]
fn a_token_presented_for_another_position_is_rejected() {
    let r = round(3, 10, &[1, 2], 12);
    let mut claims = r.claims();
    claims[3].ct = (&r.deck.ciphertexts()[1], &r.deck.wire()[1]);
    assert_eq!(verify_reveal_tokens(claims), Err(invalid_token(3)));
    let mut t = transcript();
    let alone = verify_batchable_reveal_token(
        &mut t,
        &ctx(SESSION, 9, 3),
        r.f.sks[2].public(),
        (&r.deck.ciphertexts()[1], &r.deck.wire()[1]),
        &r.tokens[3],
    );
    assert_eq!(alone, Err(invalid_token(3)));
}

/// How a test corrupts one proof of a batch.
#[derive(Clone, Copy, Debug)]
enum Tamper {
    Honest,
    Response(usize),
    LastResponse,
    Commitment,
    NonCanonical(usize),
    Truncated,
    SwapOutput(usize, usize),
    WrongRound,
}

fn tamper() -> impl Strategy<Value = Tamper> {
    prop_oneof![
        4 => Just(Tamper::Honest),
        1 => (0usize..8).prop_map(Tamper::Response),
        1 => Just(Tamper::LastResponse),
        1 => Just(Tamper::Commitment),
        1 => (0usize..8).prop_map(Tamper::NonCanonical),
        1 => Just(Tamper::Truncated),
        1 => (0usize..8, 0usize..8).prop_map(|(i, j)| Tamper::SwapOutput(i, j)),
        1 => Just(Tamper::WrongRound),
    ]
}

fn apply(d: &mut Deal, k: usize, how: Tamper, rounds: &mut [u64]) {
    let n = d.decks[0].len();
    let p = &mut d.proofs[k];
    match how {
        Tamper::Honest => {}
        Tamper::Response(i) => p.a_tilde[i % n] = bump(&p.a_tilde[i % n]),
        Tamper::LastResponse => p.tau_bar = bump(&p.tau_bar),
        Tamper::Commitment => p.c_b = shift(&p.c_b, 1),
        Tamper::NonCanonical(i) => p.a_bar[i % n] = ScalarBytes([0xee; 32]),
        Tamper::Truncated => {
            p.b_tilde.pop();
        }
        Tamper::SwapOutput(i, j) => {
            let mut cts = d.decks[k + 1].ciphertexts().to_vec();
            cts.swap(i % n, j % n);
            d.decks[k + 1] = Deck::from_ciphertexts(cts);
        }
        Tamper::WrongRound => rounds[k] += 10,
    }
}

/// A deal's claims with the rounds `rounds` (some maybe wrong), without player `skip`'s.
fn claims<'a>(d: &'a Deal, rounds: &[u64], skip: u16) -> Vec<ShuffleClaim<'a>> {
    let mut claims = d.claims(&[]);
    for (c, r) in claims.iter_mut().zip(rounds) {
        c.ctx.round = *r;
    }
    claims.retain(|c| c.ctx.player != PartyId(skip));
    claims
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// On random deals with random corruptions, the batch's verdict is the one-by-one verdict,
    /// error included (so the same player is blamed).
    #[test]
    fn batched_shuffle_verdicts_equal_one_by_one_verdicts(
        players in 2usize..=4,
        n in 2u16..=6,
        seed in any::<u64>(),
        tampers in proptest::collection::vec(tamper(), 4),
        skip in 1u16..=4,
    ) {
        let mut d = deal(players, n, seed);
        let mut rounds: Vec<u64> = (1..=players as u64).collect();
        for (k, how) in tampers.iter().enumerate().take(players) {
            apply(&mut d, k, *how, &mut rounds);
        }
        let batched = verify_shuffles(&d.f.ck, &d.f.key, claims(&d, &rounds, skip));
        let alone = verify_shuffles_one_by_one(&d.f.ck, &d.f.key, claims(&d, &rounds, skip));
        prop_assert_eq!(batched, alone);
    }

    /// The same for rounds of reveal tokens.
    #[test]
    fn batched_token_verdicts_equal_one_by_one_verdicts(
        players in 2usize..=4,
        seed in any::<u64>(),
        corrupt in proptest::collection::vec((0usize..4, 0usize..12), 0..3),
    ) {
        let mut r = round(players, 8, &[0, 3, 7], seed);
        let count = r.tokens.len();
        for (how, which) in corrupt {
            let (k, other) = (which % count, (which + 1) % count);
            let stolen = r.tokens[other].token;
            let t = &mut r.tokens[k];
            match how {
                0 => t.proof.s = bump(&t.proof.s),
                1 => t.proof.a2 = shift(&t.proof.a2, 1),
                2 => t.token = stolen,
                _ => t.proof.s = ScalarBytes([0xff; 32]),
            }
        }
        let batched = verify_reveal_tokens(r.claims());
        let alone = verify_reveal_tokens_one_by_one(r.claims());
        prop_assert_eq!(batched, alone);
    }
}

/// The case the random corruptions once found: a response set to non-canonical bytes, then
/// bumped. The batch still names the player the one-by-one check names.
#[test]
fn a_response_made_non_canonical_then_bumped_gets_the_one_by_one_verdict() {
    let mut r = round(4, 8, &[0, 3, 7], 0);
    let k = 9 % r.tokens.len();
    r.tokens[k].proof.s = ScalarBytes([0xff; 32]);
    r.tokens[k].proof.s = bump(&r.tokens[k].proof.s);
    let batched = verify_reveal_tokens(r.claims());
    assert!(batched.is_err(), "a corrupted token is refused");
    assert_eq!(batched, verify_reveal_tokens_one_by_one(r.claims()));
}

/// Proofs over decks of different sizes (under a key for the largest) batch together.
#[test]
fn a_batch_of_different_deck_sizes_passes_and_a_bad_one_is_named() {
    let f = fixture(3, 9, 13);
    let mut rng = seeded_rng(14);
    let small = Deck::open_deck(&facedown_poker::elgamal::CardEncoding::new(5));
    let mut proofs = Vec::new();
    for (k, input) in [&small, &f.open].into_iter().enumerate() {
        let c = ctx(SESSION, k as u64 + 1, k as u16 + 1);
        let (out, proof) = shuffle_with_rng(&mut transcript(), &c, &f.ck, &f.key, input, &mut rng)
            .expect("sizes fit");
        proofs.push((input, out, proof));
    }
    assert_eq!(
        verify_shuffles(&f.ck, &f.key, sized_claims(&proofs)),
        Ok(())
    );
    proofs[1].2.r_bar = bump(&proofs[1].2.r_bar);
    assert_eq!(
        verify_shuffles(&f.ck, &f.key, sized_claims(&proofs)),
        Err(invalid(2))
    );
}

fn sized_claims<'a>(proofs: &'a [(&'a Deck, Deck, ShuffleProof)]) -> Vec<ShuffleClaim<'a>> {
    proofs
        .iter()
        .enumerate()
        .map(|(k, (input, output, proof))| ShuffleClaim {
            transcript: transcript(),
            ctx: ctx(SESSION, k as u64 + 1, k as u16 + 1),
            input,
            output,
            proof,
        })
        .collect()
}

/// At a table of engines, which verify a deal's shuffles in one batch once the last turn is in:
/// a bad shuffle by `bad` is found, every verifier names `bad`, and the honest players who
/// shuffled after it (on the deck it published) are blamed by nobody.
#[test]
fn a_bad_shuffle_in_an_engines_batch_names_its_player_and_nobody_else() {
    use facedown_core::local::Delivery;
    use facedown_core::rng::party_rng;
    use facedown_core::table::{FaceDownTable, ShuffleSet};
    use facedown_core::{DriveError, LocalDriver, Symbol};
    use facedown_poker::messages::Message;
    use facedown_poker::PokerEngine;

    for bad in [1u16, 2, 3] {
        let swap_after_proving = move |d: &mut Delivery| {
            if let Ok(Message::Shuffle(mut m)) = Message::from_bytes(d.from, &d.payload) {
                if d.from == PartyId(bad) {
                    m.deck.swap(0, 1);
                    d.payload = Message::Shuffle(m).to_bytes().expect("encodes");
                }
            }
            true
        };
        let engines = PartyId::all(4)
            .map(|p| PokerEngine::with_rng(p, 4, SESSION, party_rng(50, 0, p)).expect("a player"))
            .collect();
        let mut t = LocalDriver::tapped(engines, swap_after_proving).expect("setup");
        let deck: Vec<Symbol> = (0..12).map(Symbol::Card).collect();
        t.place(&deck).expect("place");
        let err = t.shuffle(&ShuffleSet::All).expect_err("a bad shuffle");
        let blamed = |e: &DriveError<PokerError>| match e {
            DriveError::Engine { source, .. } => source.blamed(),
            DriveError::Echo { source, .. } => facedown_core::Blame::blamed(source),
            _ => None,
        };
        assert!(
            matches!(
                &err,
                DriveError::Engine {
                    source: PokerError::InvalidProof {
                        player,
                        kind: ProofKind::Shuffle
                    },
                    ..
                } if *player == PartyId(bad)
            ),
            "{err}"
        );
        for e in t.later_failures() {
            assert!(
                blamed(e).is_none() || blamed(e) == Some(PartyId(bad)),
                "bad = {bad}: {e}"
            );
        }
        // Every other player reached the same verdict.
        let named = t
            .later_failures()
            .iter()
            .filter(|e| blamed(e) == Some(PartyId(bad)))
            .count();
        assert_eq!(named + 1, 3, "bad = {bad}");
    }
}

/// Players who verify every proof on their own (the bench's baseline) deal exactly what
/// batching players deal from the same randomness: the same hands, public cards and messages.
#[test]
fn players_verifying_one_by_one_deal_the_same_cards_and_messages_as_batching_players() {
    use facedown_poker::batch::Verification;
    use facedown_poker::deal::{run_deal_verifying, DealParams, Honest};
    let params = DealParams {
        players: 4,
        cards: 16,
        hand: 2,
        public: 3,
    };
    let run = |v| run_deal_verifying(params, SESSION, &mut Honest, v, &mut seeded_rng(5));
    let (batched, batched_cost) = run(Verification::Batched);
    let (alone, alone_cost) = run(Verification::OneByOne);
    let dealt = batched.expect("an honest deal");
    assert_eq!(dealt.hands.len(), 4);
    assert_eq!(dealt.public.len(), 3);
    assert_eq!(Some(dealt), alone.ok());
    assert_eq!(batched_cost, alone_cost);
}
