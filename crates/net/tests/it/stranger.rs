//! Issue 14, item 8: a stranger on a player's listening port — claiming a roster id and then
//! sending garbage, holding many connections open in silence, or replaying a recorded first
//! handshake message — must neither abort the connect nor get the claimed player blamed: its
//! connections are dropped and the listener keeps accepting until the connect deadline.

use crate::common;

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::thread;
use std::time::Duration;

use facedown_core::PartyId;
use facedown_net::tcp::{prologue, NOISE_PARAMS};
use facedown_net::{Channel, NetError, Roster, StaticKeypair, TcpMesh, Timeouts};

use common::{loopback, quick};

/// The clear hello a dialler sends: `"FDN1" ‖ from ‖ to`.
fn hello(from: u16, to: u16) -> Vec<u8> {
    let mut h = b"FDN1".to_vec();
    h.extend_from_slice(&from.to_be_bytes());
    h.extend_from_slice(&to.to_be_bytes());
    h
}

/// A length-prefixed Noise message.
fn noise(msg: &[u8]) -> Vec<u8> {
    let mut out = (msg.len() as u16).to_be_bytes().to_vec();
    out.extend_from_slice(msg);
    out
}

/// Runs `attack` against player 1's port (before anyone dials, so its connections are first
/// in the queue), then connects all three players; every connect must succeed and a frame
/// from player 2 must reach player 1.
fn survives(
    seed: u64,
    attack: impl FnOnce(SocketAddr, &Roster, &[StaticKeypair]) -> Vec<TcpStream>,
) {
    let (roster, keys, listeners) = loopback(3, seed);
    let held = attack(roster.parties[0].address, &roster, &keys);
    let handles: Vec<_> = listeners
        .into_iter()
        .zip(keys)
        .enumerate()
        .map(|(j, (l, k))| {
            let roster = roster.clone();
            thread::spawn(move || TcpMesh::connect(&roster, PartyId::from_index(j), &k, l, quick()))
        })
        .collect();
    let mut meshes: Vec<TcpMesh> = handles
        .into_iter()
        .enumerate()
        .map(|(j, h)| match h.join().expect("thread") {
            Ok(m) => m,
            Err(e) => panic!("player {} could not connect: {e}", j + 1),
        })
        .collect();
    meshes[1].send(PartyId(1), 1, b"honest").expect("send");
    let f = meshes[0]
        .recv(Duration::from_secs(5))
        .expect("recv")
        .expect("a frame");
    assert_eq!((f.from, f.payload.as_slice()), (PartyId(2), &b"honest"[..]));
    drop(held);
}

#[test]
fn issue_14_a_stranger_claiming_a_roster_id_then_sending_garbage_is_dropped() {
    survives(80, |addr, _, _| {
        let mut s = TcpStream::connect(addr).expect("connect");
        s.write_all(&hello(2, 1)).expect("hello");
        s.write_all(&noise(&[0x42; 48])).expect("garbage");
        vec![s]
    });
}

#[test]
fn issue_14_a_stranger_holding_silent_connections_does_not_stop_the_honest() {
    // More silent connections than the listener handshakes at once: the honest dialler is
    // turned away until they time out, and retries.
    survives(81, |addr, _, _| {
        (0..20)
            .map(|_| {
                let mut s = TcpStream::connect(addr).expect("connect");
                s.write_all(&hello(3, 1)).expect("hello");
                s
            })
            .collect()
    });
}

#[test]
fn issue_14_a_replayed_first_handshake_message_is_not_taken_for_its_sender() {
    // The attacker recorded player 2's first handshake message; it replays it on a connection
    // of its own but cannot confirm the keys. Without the confirmation it would pass for
    // player 2's link and displace the real one.
    survives(82, |addr, roster, keys| {
        let params = NOISE_PARAMS.parse().expect("params");
        let pro = prologue(&roster.session, PartyId(2), PartyId(1));
        let mut hs = snow::Builder::new(params)
            .local_private_key(&keys[1].private)
            .and_then(|b| b.remote_public_key(&roster.parties[0].public_key))
            .and_then(|b| b.prologue(&pro))
            .and_then(|b| b.build_initiator())
            .expect("initiator");
        let mut buf = vec![0u8; 1024];
        let n = hs.write_message(&[], &mut buf).expect("first message");
        let mut s = TcpStream::connect(addr).expect("connect");
        s.write_all(&hello(2, 1)).expect("hello");
        s.write_all(&noise(&buf[..n])).expect("replay");
        vec![s]
    });
}

#[test]
fn issue_14_when_the_real_player_never_comes_the_strangers_attempts_are_only_a_diagnostic() {
    // Player 2 never starts; a stranger claims to be it. Player 1 waits until its deadline and
    // then names player 2 — absent either way — with the failed attempts as the reason.
    let (roster, keys, mut listeners) = loopback(2, 83);
    let mut s = TcpStream::connect(roster.parties[0].address).expect("connect");
    s.write_all(&hello(2, 1)).expect("hello");
    s.write_all(&noise(&[7; 64])).expect("garbage");
    let timeouts = Timeouts {
        connect: Duration::from_millis(800),
        ..quick()
    };
    match TcpMesh::connect(&roster, PartyId(1), &keys[0], listeners.remove(0), timeouts) {
        Err(NetError::Handshake { peer, reason }) => {
            assert_eq!(peer, PartyId(2));
            assert!(reason.contains("claiming to be it failed"), "{reason}");
        }
        other => panic!("expected a handshake error at the deadline, got {other:?}"),
    }
    drop(s);
}
