//! Bounded reading of input files: every file or stream a command reads goes through
//! [`read_text`] or [`read_text_from`], which stop at a size limit with an error naming the
//! file and the limit, so `/dev/zero`, an endless pipe or a huge file cannot exhaust memory.
//!
//! Each caller states the limit that fits what it reads (a `.cards` protocol, a transcript, a
//! roster); reading stops after `limit + 1` bytes, so at most that much is ever held.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Why an input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// Opening or reading failed.
    #[error("cannot read {}: {source}", .path.display())]
    Unreadable {
        /// The file (or stream name).
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// The input is longer than the limit for its kind.
    #[error("{} is larger than {limit} bytes, the limit for {what}", .path.display())]
    TooLarge {
        /// The file (or stream name).
        path: PathBuf,
        /// The limit in bytes.
        limit: u64,
        /// What kind of input it was meant to be.
        what: &'static str,
    },
    /// The input is not UTF-8 text.
    #[error("{} is not UTF-8 text (invalid byte at offset {offset}), as {what} must be", .path.display())]
    NotText {
        /// The file (or stream name).
        path: PathBuf,
        /// Offset of the first invalid byte.
        offset: usize,
        /// What kind of input it was meant to be.
        what: &'static str,
    },
}

/// Reads the text file at `path`, refusing more than `limit` bytes; `what` names the kind of
/// input in the errors ("a .cards protocol").
pub fn read_text(path: &Path, limit: u64, what: &'static str) -> Result<String, InputError> {
    let file = std::fs::File::open(path).map_err(|source| InputError::Unreadable {
        path: path.to_owned(),
        source,
    })?;
    read_text_from(file, path, limit, what)
}

/// Reads `reader` to its end as text, refusing more than `limit` bytes; `name` is the file or
/// stream named in the errors.
pub fn read_text_from<R: Read>(
    reader: R,
    name: &Path,
    limit: u64,
    what: &'static str,
) -> Result<String, InputError> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| InputError::Unreadable {
            path: name.to_owned(),
            source,
        })?;
    if bytes.len() as u64 > limit {
        return Err(InputError::TooLarge {
            path: name.to_owned(),
            limit,
            what,
        });
    }
    String::from_utf8(bytes).map_err(|e| InputError::NotText {
        path: name.to_owned(),
        offset: e.utf8_error().valid_up_to(),
        what,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_stream_stops_at_the_limit_with_an_error_naming_it() {
        let endless = std::io::repeat(0);
        match read_text_from(endless, Path::new("/dev/zero"), 1000, "a test input") {
            Err(e @ InputError::TooLarge { limit: 1000, .. }) => {
                assert!(e.to_string().contains("/dev/zero"), "{e}");
                assert!(e.to_string().contains("1000 bytes"), "{e}");
            }
            other => panic!("expected TooLarge, got {other:?}"),
        }
    }

    #[test]
    fn text_within_the_limit_is_read_and_bytes_that_are_not_text_are_refused() {
        let ok = read_text_from(&b"abc"[..], Path::new("x"), 3, "t").expect("fits");
        assert_eq!(ok, "abc");
        assert!(matches!(
            read_text_from(&b"abcd"[..], Path::new("x"), 3, "t"),
            Err(InputError::TooLarge { .. })
        ));
        assert!(matches!(
            read_text_from(&[b'a', 0xff][..], Path::new("x"), 3, "t"),
            Err(InputError::NotText { offset: 1, .. })
        ));
        assert!(matches!(
            read_text(Path::new("/nonexistent/facedown"), 3, "t"),
            Err(InputError::Unreadable { .. })
        ));
    }
}
