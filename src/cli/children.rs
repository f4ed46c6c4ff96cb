//! The `party` processes `play-local` starts, and what is left when it ends: nothing.
//!
//! * **Children die with their parent.** Each child's standard input is a pipe from
//!   `play-local`, and a child started with [`EXIT_WITH_PARENT`] set exits as soon as that pipe
//!   closes — which the kernel does when the parent ends for any reason, `SIGKILL` included.
//!   On its normal paths `play-local` also kills and reaps every child that is still running
//!   ([`Children`]'s `Drop`).
//! * **Temporary files go.** The key files and the roster live in a private temporary
//!   directory ([`Scratch`], mode 0700) that is removed when `play-local` returns or fails,
//!   and on `SIGINT`, `SIGTERM` or `SIGHUP`: a signal thread removes it and exits with status
//!   128 + the signal's number. Only a `SIGKILL` of `play-local` itself leaves the directory
//!   behind (its children still exit).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, Once};

use anyhow::Context;

/// Set in a child's environment: exit when standard input closes (the parent has gone).
pub const EXIT_WITH_PARENT: &str = "FACEDOWN_EXIT_WITH_PARENT";

/// The exit status of a child whose parent went away.
pub const PARENT_GONE: i32 = 125;

/// Called by `party` before anything else: when [`EXIT_WITH_PARENT`] is set, a thread waits for
/// standard input to close and then ends this process.
pub fn exit_with_parent_if_asked() {
    if std::env::var_os(EXIT_WITH_PARENT).is_none() {
        return;
    }
    std::thread::spawn(|| {
        let mut sink = [0u8; 256];
        let mut stdin = std::io::stdin();
        // The parent never writes; anything it might write is discarded until the pipe closes.
        while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
        std::process::exit(PARENT_GONE);
    });
}

/// Running children: each holds the write end of its standard-input pipe, and every child
/// still running is killed and reaped when this is dropped.
#[derive(Default)]
pub struct Children(pub Vec<Child>);

impl Children {
    /// Starts `cmd` as a child that exits when this process does.
    pub fn spawn(&mut self, mut cmd: Command, what: &str) -> anyhow::Result<&mut Child> {
        cmd.stdin(Stdio::piped()).env(EXIT_WITH_PARENT, "1");
        let child = cmd
            .spawn()
            .with_context(|| format!("cannot start {what}"))?;
        self.0.push(child);
        let last = self.0.len() - 1;
        Ok(&mut self.0[last])
    }
}

impl Drop for Children {
    fn drop(&mut self) {
        for c in &mut self.0 {
            if matches!(c.try_wait(), Ok(None)) {
                let _ = c.kill();
            }
            let _ = c.wait();
        }
    }
}

/// Directories the signal thread removes before the process exits.
static ON_SIGNAL: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static SIGNALS: Once = Once::new();

fn remove_on_signal(path: &Path) {
    SIGNALS.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                let dirs = ON_SIGNAL.lock().unwrap_or_else(|p| p.into_inner());
                for d in dirs.iter() {
                    let _ = std::fs::remove_dir_all(d);
                }
                std::process::exit(128 + sig);
            }
        });
    });
    ON_SIGNAL
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(path.to_owned());
}

fn forget_on_signal(path: &Path) {
    ON_SIGNAL
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .retain(|p| p != path);
}

/// A private temporary directory, removed on every exit path but `SIGKILL`.
pub struct Scratch(Option<tempfile::TempDir>);

impl Scratch {
    /// Creates `facedown-<what>-…` in the system's temporary directory.
    pub fn new(what: &str) -> anyhow::Result<Scratch> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("facedown-{what}-"))
            .tempdir()
            .context("cannot create a temporary directory")?;
        remove_on_signal(dir.path());
        Ok(Scratch(Some(dir)))
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        self.0.as_ref().map_or(Path::new(""), |d| d.path())
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Some(dir) = self.0.take() {
            forget_on_signal(dir.path());
            let _ = dir.close();
        }
    }
}
