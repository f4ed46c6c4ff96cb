//! The Noise_KK transport on loopback: framing and chunking, wrong keys, corrupted and
//! replayed frames, timeouts and disconnections, each rejected with a typed error naming the
//! peer.

use crate::common;

use std::thread;
use std::time::Duration;

use facedown_core::PartyId;
use facedown_net::{Channel, NetError, StaticKeypair, TcpMesh, WireFault};

use common::{loopback, quick, tcp_meshes};

/// [`quick`] with a one-second connect deadline, for connections that can never succeed.
fn brief() -> facedown_net::Timeouts {
    facedown_net::Timeouts {
        connect: Duration::from_secs(1),
        ..quick()
    }
}

#[test]
fn frames_larger_than_a_noise_message_are_chunked_and_arrive_intact_in_order() {
    let mut m = tcp_meshes(3, 1);
    let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    m[2].send(PartyId(1), 7, &big).expect("send big");
    m[2].send(PartyId(1), 8, b"small").expect("send small");
    m[1].send(PartyId(1), 1, b"").expect("send empty");
    let mut got = vec![];
    for _ in 0..3 {
        got.push(
            m[0].recv(Duration::from_secs(5))
                .expect("recv")
                .expect("a frame"),
        );
    }
    let from3: Vec<_> = got.iter().filter(|f| f.from == PartyId(3)).collect();
    assert_eq!(from3.len(), 2);
    assert_eq!((from3[0].depth, from3[0].payload.len()), (7, big.len()));
    assert_eq!(from3[0].payload, big, "chunked frame reassembled");
    assert_eq!(from3[1].payload, b"small", "FIFO per link");
    assert!(got
        .iter()
        .any(|f| f.from == PartyId(2) && f.payload.is_empty()));
    // 200 000 bytes need 4 Noise messages and "small" one: 5 tags and length prefixes (18
    // bytes each) and two 8-byte headers, besides the handshakes.
    let s = m[2].stats();
    assert_eq!(s.payload_bytes_sent, 200_005);
    assert!(s.wire_bytes_sent >= 200_005 + 5 * 18 + 2 * 8);
    assert_eq!(m[0].recv(Duration::from_millis(50)).expect("recv"), None);
}

#[test]
fn a_wrong_static_key_fails_the_handshake_naming_the_peer() {
    let (roster, mut keys, listeners) = loopback(2, 2);
    // Player 2 holds a key that is not the roster's.
    keys[1] = StaticKeypair::from_private([9; 32]);
    let mut it = listeners.into_iter().zip(keys);
    let (l1, k1) = it.next().expect("player 1");
    let (l2, k2) = it.next().expect("player 2");
    let r1 = roster.clone();
    // Both sides keep trying until the connect deadline (a failed handshake may be a
    // stranger's), then report the handshake failure.
    let h1 = thread::spawn(move || TcpMesh::connect(&r1, PartyId(1), &k1, l1, brief()));
    let h2 = thread::spawn(move || TcpMesh::connect(&roster, PartyId(2), &k2, l2, brief()));
    match h1.join().expect("thread") {
        Err(NetError::Handshake { peer, .. }) => assert_eq!(peer, PartyId(2)),
        other => panic!("player 1 should reject player 2's handshake, got {other:?}"),
    }
    match h2.join().expect("thread") {
        Err(NetError::Handshake { peer, .. }) => assert_eq!(peer, PartyId(1)),
        other => panic!("player 2's handshake should fail, got {other:?}"),
    }
}

#[test]
fn another_session_fails_the_handshake() {
    let (roster, keys, listeners) = loopback(2, 3);
    let mut other = roster.clone();
    other.session[31] ^= 1;
    let mut it = listeners.into_iter().zip(keys);
    let (l1, k1) = it.next().expect("player 1");
    let (l2, k2) = it.next().expect("player 2");
    let h1 = thread::spawn(move || TcpMesh::connect(&roster, PartyId(1), &k1, l1, brief()));
    let h2 = thread::spawn(move || TcpMesh::connect(&other, PartyId(2), &k2, l2, brief()));
    assert!(matches!(
        h1.join().expect("thread"),
        Err(NetError::Handshake {
            peer: PartyId(2),
            ..
        })
    ));
    assert!(h2.join().expect("thread").is_err());
}

#[test]
fn a_corrupted_frame_is_rejected_naming_the_sender() {
    let mut m = tcp_meshes(2, 4);
    m[1].inject_fault(WireFault::Corrupt);
    m[1].send(PartyId(1), 1, b"attack at dawn").expect("send");
    match m[0].recv(Duration::from_secs(5)) {
        Err(NetError::Corrupted { peer, .. }) => assert_eq!(peer, PartyId(2)),
        other => panic!("expected a rejected frame, got {other:?}"),
    }
}

#[test]
fn a_replayed_frame_fails_decryption_because_of_the_noise_nonce() {
    let mut m = tcp_meshes(2, 5);
    m[1].inject_fault(WireFault::Replay);
    m[1].send(PartyId(1), 1, b"pay 10").expect("send");
    let first = m[0]
        .recv(Duration::from_secs(5))
        .expect("the original frame is fine")
        .expect("a frame");
    assert_eq!(first.payload, b"pay 10");
    match m[0].recv(Duration::from_secs(5)) {
        Err(NetError::Corrupted { peer, .. }) => assert_eq!(peer, PartyId(2)),
        other => panic!("the replay must be rejected, got {other:?}"),
    }
}

#[test]
fn silence_is_a_timeout_and_a_closed_link_names_the_peer() {
    let mut m = tcp_meshes(3, 6);
    assert_eq!(m[0].recv(Duration::from_millis(100)).expect("recv"), None);
    let third = m.pop().expect("player 3");
    drop(third);
    match m[0].recv(Duration::from_secs(5)) {
        Err(NetError::Disconnected { peer }) => assert_eq!(peer, PartyId(3)),
        other => panic!("expected player 3 to be reported gone, got {other:?}"),
    }
    // Sending to the departed player fails too (possibly after the kernel notices).
    let mut failed = false;
    for _ in 0..50 {
        if m[0].send(PartyId(3), 1, &[0; 1024]).is_err() {
            failed = true;
            break;
        }
        thread::sleep(Duration::from_millis(10));
    }
    assert!(failed, "writing to a closed link must fail");
}

#[test]
fn nobody_listening_is_a_connect_error_naming_the_peer() {
    let (roster, keys, mut listeners) = loopback(2, 7);
    // Player 1 never starts: player 2 dials it in vain.
    drop(listeners.remove(0));
    let l2 = listeners.pop().expect("player 2");
    let mut timeouts = quick();
    timeouts.connect = Duration::from_millis(300);
    match TcpMesh::connect(&roster, PartyId(2), &keys[1], l2, timeouts) {
        Err(NetError::Connect { peer, .. }) => assert_eq!(peer, PartyId(1)),
        other => panic!("expected a connect error, got {other:?}"),
    }
}
