//! Replay across hands, deals and games on the networked backends (the dealer, the encrypted
//! deck): player 3 keeps every frame he sent or received and sends one of them again where it
//! does not belong — a frame of hand 1 sent again in hand 2, a frame of an earlier game of the
//! same players sent in a new one, or player 1's frame passed to player 2 as his own.
//!
//! What binds a frame to its hand is not its hand tag ([`facedown::table_game`]'s hand channel
//! puts it there, and the sender can write any tag) but what it carries: every hand is a fresh
//! engine session whose id binds the hand ([`facedown::table_game`]'s hand context), every
//! hand's setup starts with the fresh-nonce round, and every signed broadcast is signed under a
//! context that binds the hand and that round. So the replayed frame is refused, the replayer
//! is named by an honest player, and no honest player is ever blamed.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use facedown::core::rng::Randomness;
use facedown::core::PartyId;
use facedown::games::game::Bot;
use facedown::games::ninety_nine::{HeuristicBot, Length, NinetyNine, Variant};
use facedown::net::wire::Wire;
use facedown::net::{Channel, Frame, Limits, MemoryChannel, NetError, WireStats};
use facedown::table_game::{play_threads_with, GameBackend, GameError, GameSpec, SeatReport};

const REPLAYER: PartyId = PartyId(3);

/// What the replayer sends instead of one of his own frames.
#[derive(Clone, Copy, Debug)]
enum Replay {
    /// His `k`-th frame of hand 1 to each peer is his `k`-th frame of hand 0 to that peer.
    EarlierHand(usize),
    /// His `k`-th frame of hand 0 to each peer is the `k`-th frame of an earlier game.
    EarlierGame(usize),
    /// His `k`-th message (an engine's message or a signed broadcast, not the driver's echo)
    /// of hand 1 to player 2 is the last message player 1 sent him so far.
    OtherSeat(usize),
}

/// Every frame the replayer sent (to, hand, index) and what he did with it.
#[derive(Default)]
struct Record {
    sent: BTreeMap<(u16, u32, usize), Vec<u8>>,
    earlier: BTreeMap<(u16, u32, usize), Vec<u8>>,
    /// Frames sent in place of his own, that differed from them.
    replayed: usize,
}

/// A player's channel; player 3's replays one frame as [`Replay`] says.
struct Replayer {
    inner: MemoryChannel,
    replay: Option<Replay>,
    counts: BTreeMap<(u16, u32), usize>,
    messages_to_2: usize,
    heard_from_1: Option<(u32, Vec<u8>)>,
    record: Arc<Mutex<Record>>,
}

fn split(payload: &[u8]) -> (u32, &[u8]) {
    let (tag, rest) = payload.split_at(4);
    (u32::from_be_bytes(tag.try_into().expect("4 bytes")), rest)
}

/// Whether a frame is a message of the game (an engine's message, a signed broadcast).
fn is_message(body: &[u8]) -> bool {
    matches!(
        Wire::from_bytes(body, REPLAYER),
        Ok(Wire::Engine(_) | Wire::Signed { .. })
    )
}

fn tagged(hand: u32, body: &[u8]) -> Vec<u8> {
    let mut v = hand.to_be_bytes().to_vec();
    v.extend_from_slice(body);
    v
}

impl Replayer {
    /// The frame to send in place of `body`, frame `k` of `hand` to `to`, if the replay says so.
    fn substitute(&self, to: PartyId, hand: u32, k: usize, record: &Record) -> Option<Vec<u8>> {
        match self.replay? {
            Replay::EarlierHand(j) if hand == 1 && k == j => {
                record.sent.get(&(to.0, 0, j)).map(|b| tagged(1, b))
            }
            Replay::EarlierGame(j) if hand == 0 && k == j => {
                record.earlier.get(&(to.0, 0, j)).map(|b| tagged(0, b))
            }
            Replay::OtherSeat(j) if hand == 1 && k == j && to == PartyId(2) => self
                .heard_from_1
                .as_ref()
                .filter(|(h, _)| *h == 1)
                .map(|(_, b)| tagged(1, b)),
            _ => None,
        }
    }
}

impl Channel for Replayer {
    fn me(&self) -> PartyId {
        self.inner.me()
    }

    fn players(&self) -> usize {
        self.inner.players()
    }

    fn send(&mut self, to: PartyId, depth: u32, payload: &[u8]) -> Result<(), NetError> {
        let (hand, body) = split(payload);
        let count = self.counts.entry((to.0, hand)).or_default();
        let k = *count;
        *count += 1;
        let mut record = self.record.lock().expect("not poisoned");
        if self.me() == REPLAYER {
            record.sent.insert((to.0, hand, k), body.to_vec());
        }
        let k = match self.replay {
            Some(Replay::OtherSeat(_)) if to == PartyId(2) && hand == 1 && is_message(body) => {
                self.messages_to_2 += 1;
                self.messages_to_2 - 1
            }
            Some(Replay::OtherSeat(_)) => usize::MAX,
            _ => k,
        };
        let frame = match self.substitute(to, hand, k, &record) {
            Some(other) if other != payload => {
                record.replayed += 1;
                other
            }
            _ => payload.to_vec(),
        };
        drop(record);
        self.inner.send(to, depth, &frame)
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<Frame>, NetError> {
        let frame = self.inner.recv(timeout)?;
        if let Some(f) = frame.as_ref().filter(|f| f.from == PartyId(1)) {
            let (hand, body) = split(&f.payload);
            if is_message(body) {
                self.heard_from_1 = Some((hand, body.to_vec()));
            }
        }
        Ok(frame)
    }

    fn stats(&self) -> WireStats {
        self.inner.stats()
    }

    fn limits(&self) -> Limits {
        self.inner.limits()
    }

    fn broadcast_keys(&self) -> Option<facedown::core::echo::BroadcastKeys> {
        self.inner.broadcast_keys()
    }
}

fn spec(backend: GameBackend, seed: u64) -> GameSpec {
    GameSpec {
        backend,
        variant: Variant::Revised,
        length: Length::Deals(2),
        randomness: Randomness::Seed(seed),
        cheat: None,
        context: b"session-replay test roster".to_vec(),
        timeout: Duration::from_secs(3),
    }
}

fn heuristic(_: PartyId) -> Box<dyn Bot<NinetyNine> + Send> {
    Box::new(HeuristicBot)
}

type Results = Vec<Result<SeatReport, GameError>>;

/// Plays `spec` with player 3 replaying as `replay` from `record`.
fn play(spec: &GameSpec, replay: Option<Replay>, record: &Arc<Mutex<Record>>) -> Results {
    play_threads_with(spec, &heuristic, |inner| Replayer {
        replay: replay.filter(|_| inner.me() == REPLAYER),
        inner,
        counts: BTreeMap::new(),
        messages_to_2: 0,
        heard_from_1: None,
        record: Arc::clone(record),
    })
}

fn honest(spec: &GameSpec) -> Vec<SeatReport> {
    let record = Arc::new(Mutex::new(Record::default()));
    play(spec, None, &record)
        .into_iter()
        .map(|r| r.expect("an honest game runs"))
        .collect()
}

/// The replay was refused and its author named: no honest player is blamed, by a verdict or
/// by an error, and some honest player names the replayer — or the replay changed nothing and
/// every honest player saw the honest game.
fn assert_only_the_replayer_named(results: &Results, baseline: &[SeatReport], what: &str) {
    let mut named = false;
    for (r, base) in results.iter().zip(baseline).take(2) {
        match r {
            Ok(report) => {
                for hand in &report.game.hands {
                    assert!(
                        hand.verdict.offender.is_none_or(|p| p == REPLAYER),
                        "{what}: {:?}",
                        hand.verdict
                    );
                }
                named |= report.game.verdict.offender == Some(REPLAYER);
                let same = report.game.hands.len() == base.game.hands.len()
                    && report
                        .game
                        .hands
                        .iter()
                        .zip(&base.game.hands)
                        .all(|(a, b)| {
                            a.setup == b.setup && a.said == b.said && a.outcome == b.outcome
                        });
                assert!(
                    same || named,
                    "{what}: an honest game changed by the replay"
                );
            }
            Err(e) => {
                assert!(
                    e.blame.is_none_or(|p| p == REPLAYER.0),
                    "{what}: an honest player blamed: {e}"
                );
                named |= e.blame == Some(REPLAYER.0);
            }
        }
    }
    let unaffected = results.iter().take(2).all(Result::is_ok);
    assert!(named || unaffected, "{what}: nobody named the replayer");
    assert!(
        named || results.iter().all(Result::is_ok),
        "{what}: the game stopped and nobody was named: {:?}",
        results.iter().map(|r| r.as_ref().err()).collect::<Vec<_>>()
    );
}

/// Frames of a hand, to each peer: the fresh nonce (0), the nonce list (1), the signed hello
/// (2), the setup's echo (3), an engine message of the deal (6).
const FRAMES: [usize; 5] = [0, 1, 2, 3, 6];

fn replay_within_a_game(backend: GameBackend, replay: fn(usize) -> Replay, frames: &[usize]) {
    let s = spec(backend, 5);
    let baseline = honest(&s);
    assert_eq!(baseline[0].game.hands.len(), 2, "two hands are played");
    for &k in frames {
        let record = Arc::new(Mutex::new(Record::default()));
        let results = play(&s, Some(replay(k)), &record);
        let what = format!("{} {:?}", backend.name(), replay(k));
        assert!(
            record.lock().expect("not poisoned").replayed > 0,
            "{what}: nothing was replayed"
        );
        assert_only_the_replayer_named(&results, &baseline, &what);
    }
}

#[test]
fn a_frame_of_hand_1_sent_again_in_hand_2_is_refused_naming_its_sender_on_the_dealer() {
    replay_within_a_game(GameBackend::Dealer, Replay::EarlierHand, &FRAMES);
}

#[test]
fn a_frame_of_hand_1_sent_again_in_hand_2_is_refused_naming_its_sender_on_the_encrypted_deck() {
    replay_within_a_game(
        GameBackend::Poker,
        Replay::EarlierHand,
        &[0, 1, 2, 3, 6, 12],
    );
}

#[test]
fn another_seats_frame_passed_on_as_his_own_is_refused_naming_the_sender_on_both_backends() {
    // Once the setup is done he has heard from player 1.
    replay_within_a_game(GameBackend::Dealer, Replay::OtherSeat, &[2, 4, 8, 16]);
    replay_within_a_game(GameBackend::Poker, Replay::OtherSeat, &[2, 4, 8, 16]);
}

/// A game of the same roster and a new seed: every frame of the first game's first hand is
/// recorded, then sent again in the second.
fn replay_from_an_earlier_game(backend: GameBackend) {
    let record = Arc::new(Mutex::new(Record::default()));
    let first = play(&spec(backend, 5), None, &record);
    assert!(first.iter().all(Result::is_ok), "the first game runs");
    {
        let mut r = record.lock().expect("not poisoned");
        r.earlier = std::mem::take(&mut r.sent);
    }
    let s = spec(backend, 6);
    let baseline = honest(&s);
    for k in FRAMES {
        let mine = Arc::new(Mutex::new(Record {
            earlier: record.lock().expect("not poisoned").earlier.clone(),
            ..Record::default()
        }));
        let results = play(&s, Some(Replay::EarlierGame(k)), &mine);
        let what = format!("{} {:?}", backend.name(), Replay::EarlierGame(k));
        assert!(mine.lock().expect("not poisoned").replayed > 0, "{what}");
        assert_only_the_replayer_named(&results, &baseline, &what);
    }
}

#[test]
fn a_frame_of_an_earlier_game_of_the_same_roster_is_refused_naming_its_sender() {
    replay_from_an_earlier_game(GameBackend::Dealer);
    replay_from_an_earlier_game(GameBackend::Poker);
}

/// His 13th frame of hand 2 on the dealer is the echo of operation 6; his 13th of hand 1 was
/// the echo of operation 8. Sent again, that old echo is held for operation 8 (a faster peer's
/// next operation, as far as the driver can tell) and his true echo of operation 6 is missing:
/// the replay is an omission. It is never accepted (operation 8 never comes; had it come, the
/// old echo's entries, signed in hand 1, would name him), no honest player is blamed — and, as
/// for any missing echo ([`facedown::net::NetError::Unanswered`]), nobody is named.
#[test]
fn an_echo_of_hand_1_sent_in_place_of_one_of_hand_2_is_an_omission_that_blames_nobody_honest() {
    let s = spec(GameBackend::Dealer, 5);
    let record = Arc::new(Mutex::new(Record::default()));
    let results = play(&s, Some(Replay::EarlierHand(12)), &record);
    assert!(record.lock().expect("not poisoned").replayed > 0);
    for r in results.iter().take(2) {
        let e = r.as_ref().expect_err("hand 2 stops");
        assert_eq!(e.blame, None, "{e}");
        assert!(
            e.message.contains("echoes of player"),
            "a missing echo: {e}"
        );
    }
}
