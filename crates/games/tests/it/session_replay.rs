//! Replay across hands on the ideal table: player 2 keeps what he saw in hand 1 and sends it
//! again in hand 2.
//!
//! On the ideal table a message is a request to the trusted table ([`IdealSteps::offer`], and
//! over TCP [`Request::Apply`]): bound to its hand by the hand number and the fresh table of
//! each hand, to its step by the table's count of each player's steps, and — for a
//! commitment — to its author, who alone can lay its cards. An earlier hand's request is
//! refused to its sender alone; another seat's announcement laid again as if its author made
//! it is refused, naming the replayer; the honest players play on, unaffected.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use facedown_core::op::{CommitCards, TableOp};
use facedown_core::table::{Capabilities, FaceDownTable};
use facedown_core::{Blame, Cost, PartyId, Seen, Symbol};
use facedown_games::game::Bot;
use facedown_games::ninety_nine::{HeuristicBot, Length, NinetyNine, Variant};
use facedown_games::session::ideal::{IdealGame, IdealSteps, IdealTables, IdealViewError};
use facedown_games::session::ideal_table::{Refusal, Reply, Request, TableServer};
use facedown_games::session::ninety_nine::{play_game, GameReport, Seat, Tables};

const REPLAYER: PartyId = PartyId(2);
const AUTHOR: PartyId = PartyId(1);

/// What the replayer kept and what the table told him.
#[derive(Default)]
struct Kept {
    /// The cards of each of the author's commitments of hand 1, once turned.
    author_commits: Vec<Vec<Symbol>>,
    /// The refusals his replays met.
    refusals: Vec<IdealViewError>,
    /// Replays tried.
    tried: usize,
}

/// The replayer's view of one hand: in hand 1 he notes the author's commitments and the
/// cards turned on them; in hand 2 he lays each of the author's commitments himself with the
/// cards of the author's commitment of the same rank in hand 1, and when the table refuses,
/// he goes on honestly.
struct Replaying<T> {
    inner: T,
    hand: usize,
    commits: Vec<std::ops::Range<usize>>,
    turned: BTreeMap<usize, Symbol>,
    kept: Arc<Mutex<Kept>>,
}

impl<T: FaceDownTable<Error = IdealViewError>> Replaying<T> {
    fn replay(&mut self, op: &TableOp) -> Option<TableOp> {
        let TableOp::Commit { party, .. } = op else {
            return None;
        };
        let kept = self.kept.lock().ok()?;
        let cards = kept.author_commits.get(self.commits.len())?;
        (self.hand == 1 && *party == AUTHOR).then(|| TableOp::Commit {
            party: AUTHOR,
            cards: CommitCards::Known(cards.clone()),
        })
    }

    fn note(&mut self, op: &TableOp, seen: &Seen, start: usize) {
        match op {
            TableOp::Commit { party, .. } if *party == AUTHOR => {
                self.commits.push(start..self.inner.len());
            }
            TableOp::Open(o) => self.turned.extend(o.public.iter().zip(&seen.public)),
            _ => {}
        }
    }

    fn keep(&self) {
        let mut kept = self.kept.lock().expect("not poisoned");
        kept.author_commits = self
            .commits
            .iter()
            .filter_map(|r| r.clone().map(|p| self.turned.get(&p).copied()).collect())
            .collect();
    }
}

impl<T: FaceDownTable<Error = IdealViewError>> FaceDownTable for Replaying<T> {
    type Error = IdealViewError;

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn parties(&self) -> usize {
        self.inner.parties()
    }

    fn len(&self) -> usize {
        self.inner.len()
    }

    fn apply(&mut self, op: &TableOp) -> Result<Seen, IdealViewError> {
        let start = self.inner.len();
        if let Some(replayed) = self.replay(op) {
            self.kept.lock().expect("not poisoned").tried += 1;
            match self.inner.apply(&replayed) {
                Ok(seen) => {
                    self.note(op, &seen, start);
                    return Ok(seen);
                }
                Err(e) => self.kept.lock().expect("not poisoned").refusals.push(e),
            }
        }
        let seen = self.inner.apply(op)?;
        self.note(op, &seen, start);
        Ok(seen)
    }

    fn cost(&self) -> Cost {
        self.inner.cost()
    }
}

struct ReplayingTables {
    inner: IdealTables,
    kept: Arc<Mutex<Kept>>,
}

impl Tables for ReplayingTables {
    type Table = Replaying<<IdealTables as Tables>::Table>;

    fn open(&mut self, hand: usize) -> Result<Self::Table, IdealViewError> {
        Ok(Replaying {
            inner: self.inner.open(hand)?,
            hand,
            commits: Vec::new(),
            turned: BTreeMap::new(),
            kept: Arc::clone(&self.kept),
        })
    }

    fn close(&mut self, table: Self::Table) -> Result<(), IdealViewError> {
        if table.hand == 0 {
            table.keep();
        }
        self.inner.close(table.inner)
    }
}

type Played = Result<GameReport, String>;

/// Two hands of three-player Ninety-Nine on the ideal table; player 2 replays when `replay`.
fn play(seed: u64, replay: bool) -> (Vec<Played>, Kept) {
    let game = IdealGame::new(3, seed);
    let kept = Arc::new(Mutex::new(Kept::default()));
    let handles: Vec<_> = PartyId::all(3)
        .map(|me| {
            let tables = game.tables(me, Duration::from_secs(20));
            let kept = Arc::clone(&kept);
            std::thread::spawn(move || {
                let bot: Box<dyn Bot<NinetyNine>> = Box::new(HeuristicBot);
                let mut seat = Seat {
                    me,
                    bot,
                    cheat: None,
                    cheated: false,
                };
                let mut rng = facedown_core::rng::trial_rng(seed, 1000 + u64::from(me.0));
                let length = Length::Deals(2);
                let result = if replay && me == REPLAYER {
                    let mut tables = ReplayingTables {
                        inner: tables,
                        kept,
                    };
                    play_game(&mut tables, &mut seat, Variant::Revised, length, &mut rng)
                } else {
                    let mut tables = tables;
                    play_game(&mut tables, &mut seat, Variant::Revised, length, &mut rng)
                };
                result.map_err(|e| e.to_string())
            })
        })
        .collect();
    let played = handles
        .into_iter()
        .map(|h| h.join().expect("no player panics"))
        .collect();
    let kept = std::mem::take(&mut *kept.lock().expect("not poisoned"));
    (played, kept)
}

#[test]
fn another_seats_announcement_laid_again_in_the_next_hand_is_refused_naming_the_replayer() {
    let (honest, _) = play(4, false);
    let (replayed, kept) = play(4, true);
    assert!(kept.tried > 0, "the replayer laid the author's commitments");
    assert_eq!(
        kept.refusals.len(),
        kept.tried,
        "every replay was refused: {replayed:?}"
    );
    for e in &kept.refusals {
        assert_eq!(e.blamed(), Some(REPLAYER), "{e}");
    }
    for (r, h) in replayed.iter().zip(&honest) {
        let (r, h) = (
            r.as_ref().expect("the game runs"),
            h.as_ref().expect("runs"),
        );
        assert!(r.verdict.clean(), "nobody is blamed: {:?}", r.verdict);
        assert_eq!(r.hands.len(), 2);
        for (a, b) in r.hands.iter().zip(&h.hands) {
            assert!(a.verdict.clean());
            assert_eq!((&a.setup, &a.said), (&b.setup, &b.said), "no effect");
        }
    }
}

fn apply(hand: u32, op: TableOp) -> Request {
    Request::Apply { hand, op }
}

fn place() -> TableOp {
    TableOp::Place((0..4).map(Symbol::Card).collect())
}

#[test]
fn a_request_of_an_earlier_hand_sent_again_is_refused_to_its_sender_alone() {
    let mut table = TableServer::new(2, 9);
    for hand in [0, 1] {
        for p in PartyId::all(2) {
            let answers = table.receive(p, 0, apply(hand, place()));
            assert!(answers.iter().all(|a| a.to == p), "{answers:?}");
            assert!(matches!(answers[0].reply, Reply::Shown(_)));
        }
    }
    let replayed = table.receive(REPLAYER, 0, apply(0, place()));
    assert_eq!(replayed.len(), 1);
    assert_eq!(replayed[0].to, REPLAYER, "only the replayer hears of it");
    assert!(matches!(
        replayed[0].reply,
        Reply::Refused(Refusal::OutOfOrder(_))
    ));
    let counts = table.counts();
    assert_eq!((counts.hands, counts.applied, counts.refused), (2, 2, 1));
    // Hand 2 goes on for both as if nothing had been sent.
    let open = TableOp::Open(facedown_core::op::Opening {
        public: vec![0],
        private: Vec::new(),
    });
    let mut answers = table.receive(PartyId(1), 0, apply(1, open.clone()));
    answers.extend(table.receive(PartyId(2), 0, apply(1, open)));
    assert_eq!(answers.len(), 2, "both are answered once both asked");
    assert!(answers.iter().all(|a| matches!(a.reply, Reply::Shown(_))));
}

/// The table process over TCP: the author's commitment of hand 1, laid again in hand 2 by
/// another player before the author, is refused naming that player; the author's own is
/// then laid, and every player sees it as he should.
#[test]
fn the_table_process_refuses_another_players_commitment_naming_the_replayer() {
    let mut table = TableServer::new(3, 9);
    let cards = vec![Symbol::Heart, Symbol::Club];
    let commit = |cards: &[Symbol]| TableOp::Commit {
        party: AUTHOR,
        cards: CommitCards::Known(cards.to_vec()),
    };
    let replayed = table.receive(REPLAYER, 0, apply(1, commit(&cards)));
    assert_eq!(replayed.len(), 1);
    assert_eq!(replayed[0].to, REPLAYER);
    let Reply::Refused(refusal) = replayed[0].reply.clone() else {
        panic!("accepted: {replayed:?}");
    };
    assert_eq!(refusal.into_error(REPLAYER).blamed(), Some(REPLAYER));
    assert_eq!(table.counts().applied, 0, "nothing was laid");
    let hidden = commit(&cards).seen_by(REPLAYER);
    assert!(table
        .receive(REPLAYER, 0, apply(1, hidden.clone()))
        .is_empty());
    assert!(table.receive(PartyId(3), 0, apply(1, hidden)).is_empty());
    let laid = table.receive(AUTHOR, 0, apply(1, commit(&[Symbol::Club, Symbol::Heart])));
    assert_eq!(
        laid.len(),
        3,
        "the author and both waiting players are answered"
    );
    assert!(laid.iter().all(|a| matches!(a.reply, Reply::Shown(_))));
}

/// The trusted table's record in memory: the same refusal, and the author's commitment then
/// laid as he made it.
#[test]
fn the_shared_table_lays_a_commitment_only_from_its_author() {
    let mut steps = IdealSteps::new(3, facedown_core::rng::trial_rng(1, 0));
    let mine = TableOp::Commit {
        party: AUTHOR,
        cards: CommitCards::Known(vec![Symbol::Club, Symbol::Heart]),
    };
    let forged = TableOp::Commit {
        party: AUTHOR,
        cards: CommitCards::Known(vec![Symbol::Heart, Symbol::Club]),
    };
    let refused = steps.offer(REPLAYER, 0, &forged).expect_err("refused");
    assert_eq!(refused.blamed(), Some(REPLAYER), "{refused}");
    assert_eq!(steps.applied(), 0);
    assert!(steps.offer(AUTHOR, 0, &mine).expect("laid").is_some());
    let turn = TableOp::Open(facedown_core::op::Opening {
        public: vec![0, 1],
        private: Vec::new(),
    });
    for p in [REPLAYER, AUTHOR] {
        assert_eq!(steps.offer(p, 1, &turn).expect("asked"), None);
    }
    let seen = steps.offer(PartyId(3), 1, &turn).expect("turned");
    assert_eq!(
        seen.map(|s| s.public),
        Some(vec![Symbol::Club, Symbol::Heart])
    );
}
