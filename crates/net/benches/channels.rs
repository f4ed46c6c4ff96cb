//! Transport costs: one frame from player 2 to player 1 over the in-memory network and over
//! TCP with Noise_KK on loopback, for frame sizes from a dealer value message (~100 B) to a
//! 52-card poker shuffle (~9 KB) and beyond the 65535-byte Noise limit (chunked); and a whole
//! networked Ninety-Nine deal with the dealer backend over each transport, one thread per
//! player.

use std::net::TcpListener;
use std::thread;
use std::time::Duration;

use criterion::{criterion_main, BenchmarkId, Criterion, Throughput};
use facedown_core::rng::{party_rng, trial_rng};
use facedown_core::table::{deal, FaceDownTable};
use facedown_core::PartyId;
use facedown_dealer::DealerEngine;
use facedown_net::{
    memory_network, Channel, NetDriver, Party, Roster, StaticKeypair, TcpMesh, Timeouts,
};

const SIZES: [usize; 4] = [100, 9_000, 65_536, 1 << 20];

fn tcp_mesh(n: usize) -> Vec<TcpMesh> {
    let mut rng = trial_rng(7, 0);
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("bind loopback"))
        .collect();
    let keys: Vec<StaticKeypair> = (0..n)
        .map(|_| StaticKeypair::generate_with_rng(&mut rng))
        .collect();
    let roster = Roster {
        session: [7; 32],
        parties: listeners
            .iter()
            .zip(&keys)
            .enumerate()
            .map(|(j, (l, k))| Party {
                id: PartyId::from_index(j),
                address: l.local_addr().expect("address"),
                public_key: k.public,
                signing_key: k.signing_public(),
            })
            .collect(),
    };
    let handles: Vec<_> = listeners
        .into_iter()
        .zip(keys)
        .enumerate()
        .map(|(j, (l, k))| {
            let roster = roster.clone();
            thread::spawn(move || {
                TcpMesh::connect(&roster, PartyId::from_index(j), &k, l, Timeouts::default())
            })
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("thread").expect("connect"))
        .collect()
}

fn one_frame<C: Channel>(a: &mut C, b: &mut C, payload: &[u8]) {
    b.send(PartyId(1), 1, payload).expect("send");
    let f = a
        .recv(Duration::from_secs(10))
        .expect("recv")
        .expect("a frame");
    assert_eq!(f.payload.len(), payload.len());
}

fn bench_frames(c: &mut Criterion) {
    let mut group = c.benchmark_group("net/frame");
    let mut mem = memory_network(2, None);
    let (m1, m2) = mem.split_at_mut(1);
    let mut tcp = tcp_mesh(2);
    let (t1, t2) = tcp.split_at_mut(1);
    for size in SIZES {
        let payload = vec![0x5a; size];
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::new("memory", size), &payload, |bch, p| {
            bch.iter(|| one_frame(&mut m1[0], &mut m2[0], p))
        });
        group.bench_with_input(BenchmarkId::new("noise-tcp", size), &payload, |bch, p| {
            bch.iter(|| one_frame(&mut t1[0], &mut t2[0], p))
        });
    }
    group.finish();
}

/// A Ninety-Nine deal (37 cards, twelve each, one up) and the dealer's audit, one thread per
/// player, each player's engine on its own end of the channel.
fn game<C: Channel + Send + 'static>(chans: Vec<C>) {
    let handles: Vec<_> = chans
        .into_iter()
        .map(|c| {
            thread::spawn(move || {
                let me = c.me();
                let engine = DealerEngine::with_rng(me, 3, b"bench", party_rng(3, 0, me))
                    .expect("valid player");
                let mut t = NetDriver::start(engine, c, Duration::from_secs(10)).expect("setup");
                deal(&mut t, 37, 12, 1).expect("deal");
                t.finish().expect("audit");
                let (engine, _) = t.close().expect("goodbye");
                engine.audit().is_some_and(|a| a.passed)
            })
        })
        .collect();
    for h in handles {
        assert!(h.join().expect("player"));
    }
}

fn bench_games(c: &mut Criterion) {
    let mut group = c.benchmark_group("net/ninety-nine-dealer");
    group.sample_size(10);
    group.bench_function("memory", |b| b.iter(|| game(memory_network(3, None))));
    group.bench_function("noise-tcp (connect included)", |b| {
        b.iter(|| game(tcp_mesh(3)))
    });
    group.finish();
}

/// The benchmark group (written out instead of `criterion_group!`, whose generated function
/// has no docs).
fn benches() {
    let mut c = Criterion::default().configure_from_args();
    bench_frames(&mut c);
    bench_games(&mut c);
}

criterion_main!(benches);
