//! Helpers shared by the integration tests (not a test target itself).
#![allow(dead_code)]

use std::net::TcpListener;
use std::time::Duration;

use facedown_core::rng::trial_rng;
use facedown_core::PartyId;
use facedown_net::{Party, Roster, StaticKeypair, Timeouts};

/// A roster of `n` players on 127.0.0.1 with their keys and already-bound listeners.
pub fn loopback(n: usize, seed: u64) -> (Roster, Vec<StaticKeypair>, Vec<TcpListener>) {
    let mut rng = trial_rng(seed, 0);
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("bind loopback"))
        .collect();
    let keys: Vec<StaticKeypair> = (0..n)
        .map(|_| StaticKeypair::generate_with_rng(&mut rng))
        .collect();
    let parties = listeners
        .iter()
        .zip(&keys)
        .enumerate()
        .map(|(j, (l, k))| Party {
            id: PartyId::from_index(j),
            address: l.local_addr().expect("address"),
            public_key: k.public,
            signing_key: k.signing_public(),
        })
        .collect();
    let mut session = [0u8; 32];
    session[..8].copy_from_slice(&seed.to_be_bytes());
    (Roster { session, parties }, keys, listeners)
}

/// Short timeouts for tests.
pub fn quick() -> Timeouts {
    Timeouts {
        connect: Duration::from_secs(5),
        handshake: Duration::from_secs(2),
        write: Duration::from_secs(2),
    }
}

/// Connects every player of a fresh loopback roster ([`loopback`]), one thread each, and returns
/// their meshes in party order.
pub fn tcp_meshes(n: usize, seed: u64) -> Vec<facedown_net::TcpMesh> {
    tcp_meshes_with(n, seed, |_| facedown_net::Limits::default())
}

/// [`tcp_meshes`] with each player's [`facedown_net::Limits`] chosen by `limits`.
pub fn tcp_meshes_with(
    n: usize,
    seed: u64,
    limits: impl Fn(PartyId) -> facedown_net::Limits,
) -> Vec<facedown_net::TcpMesh> {
    let (roster, keys, listeners) = loopback(n, seed);
    let handles: Vec<_> = listeners
        .into_iter()
        .zip(keys)
        .enumerate()
        .map(|(j, (l, k))| {
            let roster = roster.clone();
            let me = PartyId::from_index(j);
            let limits = limits(me);
            std::thread::spawn(move || {
                facedown_net::TcpMesh::connect_with_limits(&roster, me, &k, l, quick(), limits)
            })
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("thread").expect("connect"))
        .collect()
}
