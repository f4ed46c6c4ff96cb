//! Issue 14, item 10: `SIGTERM` or `SIGINT` (Ctrl-C) to `play-local` leaves no `party` child
//! running and no key file on disk.

#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::{Command, Stdio};
use std::thread::sleep;
use std::time::Duration;

/// `/proc/PID/stat`: the state letter and the parent's pid (the fields after the command name,
/// which may itself hold spaces and parentheses).
fn stat(pid: u32) -> Option<(char, u32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &text[text.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((state, ppid))
}

/// The live (not zombie) children of `parent`.
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return vec![];
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| matches!(stat(pid), Some((s, p)) if p == parent && s != 'Z'))
        .collect()
}

fn alive(pid: u32) -> bool {
    matches!(stat(pid), Some((s, _)) if s != 'Z' && s != 'X')
}

/// Polls `done` every 50 ms, at most `tries` times.
fn eventually(tries: u32, mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..tries {
        if done() {
            return true;
        }
        sleep(Duration::from_millis(50));
    }
    done()
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
                .collect()
        })
        .unwrap_or_default()
}

/// Starts a game that will not finish on its own (player 2 stalls), sends `signal` to
/// `play-local` once its three children run, and checks what is left.
fn signal_play_local(signal: &str, number: i32) {
    let tmp =
        std::env::temp_dir().join(format!("facedown-cleanup-{}-{signal}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let mut parent = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args([
            "play-local",
            "--players",
            "3",
            "--backend",
            "dealer",
            "--workload",
            "ninety-nine",
            "--timeout-ms",
            "60000",
            "--fault",
            "2:stall-after-setup",
        ])
        .env("TMPDIR", &tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start play-local");
    let pid = parent.id();
    let mut kids = vec![];
    let started = eventually(400, || {
        kids = children_of(pid);
        kids.len() == 3
    });
    if !started {
        let _ = parent.kill();
        panic!("play-local did not start three players: {kids:?}");
    }
    assert_eq!(
        entries(&tmp).len(),
        1,
        "one scratch directory while it runs"
    );
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
    let status = parent.wait().expect("wait");
    assert_eq!(status.code(), Some(128 + number), "{signal}: {status}");
    let gone = eventually(400, || kids.iter().all(|&k| !alive(k)));
    let survivors: Vec<u32> = kids.iter().copied().filter(|&k| alive(k)).collect();
    for &k in &survivors {
        let _ = Command::new("kill")
            .args(["-KILL", &k.to_string()])
            .status();
    }
    assert!(gone, "{signal}: children {survivors:?} outlived play-local");
    let left = entries(&tmp);
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(left.is_empty(), "{signal}: left on disk: {left:?}");
}

#[test]
fn issue_14_sigterm_to_play_local_leaves_no_child_and_no_key_file() {
    signal_play_local("TERM", 15);
}

#[test]
fn issue_14_ctrl_c_to_play_local_leaves_no_child_and_no_key_file() {
    signal_play_local("INT", 2);
}
