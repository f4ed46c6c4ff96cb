//! Honest deals: every card opens correctly, costs follow the accounting formula.

use std::collections::BTreeSet;

use facedown_core::rng::trial_rng;
use facedown_poker::deal::{deal_with_rng, run_deal_with_adversary_with_rng, DealParams, Honest};

/// [BS03] correctness: for N = 2..6 players, a deal that hands out the whole deck opens every
/// card exactly once, and each player sees the same public cards.
#[test]
fn bs03_honest_deals_open_every_card_for_2_to_6_players() {
    for players in 2..=6usize {
        let hand = 2;
        let public = 3;
        let cards = (players * hand + public) as u16;
        let params = DealParams {
            players,
            cards,
            hand,
            public,
        };
        let report = deal_with_rng(params, b"honest", &mut trial_rng(5, players as u64));
        assert!(report.audit.passed, "{:?}", report.audit);
        assert_eq!(report.audit.blame, None);
        assert_eq!(report.hands.len(), players);
        assert!(report.hands.iter().all(|h| h.len() == hand));
        assert_eq!(report.public.len(), public);
        let all: BTreeSet<u16> = report
            .hands
            .iter()
            .flatten()
            .chain(&report.public)
            .copied()
            .collect();
        assert_eq!(all, (0..cards).collect::<BTreeSet<_>>(), "every card once");
        // Accounting: a fresh nonce and the list of all nonces, a hello, a key share, a
        // shuffle, one set of tokens and two echoes (after the setup and after the shuffle)
        // from every player to every other; N + 6 rounds (nonces, the lists with the hellos,
        // keys, echo, N shuffles, echo, the opening).
        let n = players as u64;
        assert_eq!(report.cost.messages, 8 * n * (n - 1));
        assert_eq!(report.cost.rounds, n + 6);
    }
}

/// A full 52-card, 4-player hold'em deal: distinct cards, and a different seed gives a
/// different deal (the deal depends on the randomness, not on a fixed order).
#[test]
fn bs03_four_player_holdem_deal_of_52_cards() {
    let params = DealParams {
        players: 4,
        cards: 52,
        hand: 2,
        public: 5,
    };
    let a = deal_with_rng(params, b"holdem", &mut trial_rng(9, 0));
    let b = deal_with_rng(params, b"holdem", &mut trial_rng(9, 1));
    assert!(a.audit.passed && b.audit.passed);
    let cards: BTreeSet<u16> = a.hands.iter().flatten().chain(&a.public).copied().collect();
    assert_eq!(cards.len(), 13);
    assert!(cards.iter().all(|&c| c < 52));
    assert_ne!((a.hands, a.public), (b.hands, b.public));
}

/// Byte accounting is the sum of the real encoded message sizes: a deal's cost does not depend
/// on the seed (all messages have fixed-size encodings) and grows with the deck.
#[test]
fn accounting_counts_encoded_bytes() {
    let params = |cards| DealParams {
        players: 3,
        cards,
        hand: 1,
        public: 1,
    };
    let (r1, c1) =
        run_deal_with_adversary_with_rng(params(8), b"acc", &mut Honest, &mut trial_rng(1, 0));
    let (r2, c2) =
        run_deal_with_adversary_with_rng(params(8), b"acc", &mut Honest, &mut trial_rng(1, 1));
    let (r3, c3) =
        run_deal_with_adversary_with_rng(params(16), b"acc", &mut Honest, &mut trial_rng(1, 2));
    r1.expect("honest");
    r2.expect("honest");
    r3.expect("honest");
    assert_eq!(c1, c2);
    assert!(c3.bytes > c1.bytes);
    // Shuffle proof: 8 points + (3n + 4) scalars + bincode lengths; the deck: 64 bytes a card.
    // Per shuffle message: 1 (variant) + 2 (player) + 8 + 64n + 8·32 + 3·(8 + 32n) + 4·32 + 4.
    let shuffle_msg = |n: u64| 4 + 2 + 8 + 64 * n + 8 * 32 + 3 * (8 + 32 * n) + 4 * 32;
    assert_eq!(
        c3.bytes - c1.bytes,
        3 * 2 * (shuffle_msg(16) - shuffle_msg(8))
    );
}

/// Invalid parameters are refused before anything runs.
#[test]
fn deal_parameters_are_validated() {
    let bad = [
        DealParams {
            players: 1,
            cards: 10,
            hand: 1,
            public: 0,
        },
        DealParams {
            players: 3,
            cards: 1,
            hand: 0,
            public: 0,
        },
        DealParams {
            players: 3,
            cards: 10,
            hand: 3,
            public: 2,
        },
        DealParams {
            players: 3,
            cards: 10,
            hand: usize::MAX,
            public: 2,
        },
    ];
    for params in bad {
        let report = deal_with_rng(params, b"bad", &mut trial_rng(0, 0));
        assert!(!report.audit.passed);
        assert_eq!(report.audit.blame, None);
        assert!(params.validate().is_err());
    }
}
