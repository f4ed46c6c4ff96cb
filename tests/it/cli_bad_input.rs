//! Issue 14, items 9 and 11: bad input to the command line — an endless file, an overflowing
//! size — gets an error that says what is wrong (naming the file and the limit, or the flag),
//! with a non-zero exit status, never a panic or unbounded memory.

use crate::support::facedown;

/// The command failed cleanly (status 1, no panic) and its error line contains every `needle`.
fn assert_refused(args: &[&str], needles: &[&str]) {
    let out = facedown(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: {n:?} not in {err:?}");
    }
}

#[test]
fn issue_14_endless_input_files_stop_at_a_limit_naming_the_file() {
    assert_refused(
        &["cards", "analyze", "/dev/zero"],
        &["/dev/zero", "1048576 bytes", ".cards protocol"],
    );
    assert_refused(
        &["cards", "fmt", "/dev/zero"],
        &["/dev/zero", "1048576 bytes", ".cards protocol"],
    );
    assert_refused(
        &["dealer", "audit", "/dev/zero"],
        &["/dev/zero", "268435456 bytes", "dealer transcript"],
    );
    let dir = std::env::temp_dir().join(format!("facedown-bad-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let key = dir.join("k.key");
    std::fs::write(
        &key,
        facedown_net::StaticKeypair::from_private([5; 32]).to_toml(),
    )
    .expect("key file");
    let key = key.to_str().expect("utf-8 path");
    let party = |roster: &str, key: &str| {
        [
            "party",
            "--roster",
            roster,
            "--id",
            "1",
            "--key",
            key,
            "--backend",
            "poker",
            "--workload",
            "poker52",
        ]
        .map(str::to_owned)
    };
    let args = party("/dev/zero", key);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_refused(&args, &["/dev/zero", "1048576 bytes", "roster"]);
    let roster = facedown_net::Roster {
        session: [1; 32],
        parties: (1..=2u16)
            .map(|i| {
                let k = facedown_net::StaticKeypair::from_private([i as u8; 32]);
                facedown_net::Party {
                    id: facedown_core::PartyId(i),
                    address: format!("127.0.0.1:{i}").parse().expect("address"),
                    public_key: k.public,
                    signing_key: k.signing_public(),
                }
            })
            .collect(),
    };
    let roster_path = dir.join("parties.toml");
    std::fs::write(&roster_path, roster.to_toml()).expect("roster file");
    let args = party(roster_path.to_str().expect("utf-8 path"), "/dev/zero");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_refused(&args, &["/dev/zero", "16384 bytes", "key file"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn issue_14_a_file_that_is_not_text_is_refused_naming_the_file() {
    let path = std::env::temp_dir().join(format!("facedown-binary-{}.cards", std::process::id()));
    std::fs::write(&path, [b'p', 0xff, 0xfe]).expect("write");
    let p = path.to_str().expect("utf-8 path");
    assert_refused(&["cards", "analyze", p], &[p, "not UTF-8"]);
    let _ = std::fs::remove_file(&path);
}

/// `2^62`: four hands of it wrap to 0 in 64-bit arithmetic.
const WRAPS: &str = "4611686018427387904";
const U64_MAX: &str = "18446744073709551615";

#[test]
fn issue_14_overflowing_deal_sizes_are_refused_by_every_dealer_command() {
    let fits = "do not fit a deck of 10 cards";
    assert_refused(
        &[
            "dealer",
            "deal",
            "--players",
            "4",
            "--cards",
            "10",
            "--hand",
            WRAPS,
        ],
        &[WRAPS, fits],
    );
    assert_refused(
        &[
            "dealer",
            "deal",
            "--players",
            "4",
            "--cards",
            "10",
            "--hand",
            "1",
            "--public",
            U64_MAX,
        ],
        &[U64_MAX, fits],
    );
    for harness in ["collusion", "cheat"] {
        assert_refused(
            &[
                "dealer",
                harness,
                "--players",
                "4",
                "--cards",
                "10",
                "--hand",
                WRAPS,
            ],
            &[WRAPS, fits],
        );
        assert_refused(
            &[
                "dealer",
                harness,
                "--players",
                "4",
                "--cards",
                "10",
                "--hand",
                "1",
                "--public",
                U64_MAX,
            ],
            &[U64_MAX, fits],
        );
    }
}

#[test]
fn issue_14_poker_decks_and_repetitions_are_capped() {
    assert_refused(
        &["poker", "deal", "--players", "3", "--cards", "65535"],
        &["2..=1024 cards", "65535"],
    );
    assert_refused(
        &["poker", "deal", "--players", "100000", "--cards", "52"],
        &["2..=64 players"],
    );
    assert_refused(
        &[
            "poker",
            "bench",
            "--cards",
            "8",
            "--reps",
            U64_MAX,
            "--token-reps",
            U64_MAX,
        ],
        &["more than can be counted"],
    );
    assert_refused(
        &[
            "poker",
            "bench",
            "--cards",
            "60000",
            "--reps",
            "1",
            "--token-reps",
            "1",
        ],
        &["2..=1024 cards"],
    );
}

#[test]
fn issue_14_a_run_count_that_overflows_is_refused() {
    assert_refused(
        &[
            "cards",
            "simulate",
            "five-card-trick",
            "--runs",
            U64_MAX,
            "--seed",
            "0",
        ],
        &["--runs", "more runs than can be counted"],
    );
}

#[test]
fn a_protocol_with_private_operations_is_refused_before_any_player_starts() {
    // No networked table performs a private permutation yet: the refusal comes from
    // `play-local` itself, naming the protocol, not from each spawned player.
    for backend in ["dealer", "poker"] {
        assert_refused(
            &[
                "play-local",
                "--workload",
                "private-three-card-and",
                "--players",
                "2",
                "--backend",
                backend,
                "--input",
                "1,0",
                "--seed",
                "1",
            ],
            &[
                "private-three-card-and has private operations",
                "cards analyze",
            ],
        );
    }
}

#[test]
fn number_and_one_card_protocols_are_refused_before_any_player_starts() {
    // The tables commit bits on two cards of a known deck: a number input or an input on one
    // card is refused by `play-local` itself, naming the protocol and what takes it instead.
    let cases = [
        ("one-hot-add-mod-3", "has number inputs"),
        (
            "one-card-five-card-trick-attempt",
            "lays input `a` on one card",
        ),
    ];
    for (workload, why) in cases {
        assert_refused(
            &[
                "play-local",
                "--workload",
                workload,
                "--players",
                "2",
                "--backend",
                "dealer",
                "--input",
                "1,0",
                "--seed",
                "1",
            ],
            &[why, "cards simulate"],
        );
    }
}
