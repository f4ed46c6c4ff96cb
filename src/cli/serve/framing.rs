//! One request read whole from a client the server does not trust, within bounds: a head of at
//! most [`MAX_HEAD_BYTES`], a body of at most [`MAX_BODY_BYTES`] (plus the one byte that shows
//! it is longer), framed by `Content-Length` or chunked coding. The request is then written
//! again for the inner HTTP server with a framing nobody can dispute: one `Content-Length`,
//! no `Transfer-Encoding`, and `Connection: close`, so a connection carries one request.
//!
//! The reader it is given bounds the time (the door's [`super::door`] deadline); this file
//! bounds the bytes.

use std::io::{self, BufRead, ErrorKind, Read};

use super::gate::PASS_HEADER;
use super::http::MAX_BODY_BYTES;

/// Longest request head (request line and headers) accepted.
pub const MAX_HEAD_BYTES: usize = 8 * 1024;
/// Longest line of chunked coding (a chunk's size, or a trailer).
const MAX_CHUNK_LINE: u64 = 1024;

/// Why a request was not read.
#[derive(Debug)]
pub enum Unread {
    /// The client closed the connection (there is nobody to answer).
    Gone,
    /// The request is refused with this status and message.
    Refused(u16, String),
}

impl From<io::Error> for Unread {
    fn from(e: io::Error) -> Unread {
        match e.kind() {
            ErrorKind::TimedOut | ErrorKind::WouldBlock => Unread::Refused(
                408,
                "the request was not sent in time (the server does not wait for slow clients)"
                    .into(),
            ),
            _ => Unread::Gone,
        }
    }
}

fn bad(message: impl Into<String>) -> Unread {
    Unread::Refused(400, message.into())
}

/// The body's size limit refusal, in the words of [`super::http`].
pub fn too_large() -> Unread {
    Unread::Refused(
        413,
        format!("the request body is larger than {MAX_BODY_BYTES} bytes"),
    )
}

/// How the body of a request is framed.
#[derive(Debug, Default, PartialEq)]
enum Framing {
    #[default]
    None,
    Length(u64),
    Chunked,
}

/// A request head as read: its request line, the headers that are passed on, and what the
/// framing headers said.
#[derive(Debug, Default)]
struct Head {
    lines: Vec<String>,
    framing: Framing,
    expects_continue: bool,
}

/// Reads one request from `r`; `send_continue` is called once the head asks for
/// `100 Continue` and a body is to be read. Returns the request as the inner server reads it.
pub fn read_request(
    r: &mut impl BufRead,
    pass: &str,
    send_continue: impl FnOnce() -> io::Result<()>,
) -> Result<Vec<u8>, Unread> {
    let head = read_head(r)?;
    if let Framing::Length(n) = head.framing {
        if n > MAX_BODY_BYTES as u64 {
            return Err(too_large());
        }
    }
    if head.expects_continue && head.framing != Framing::None {
        send_continue()?;
    }
    let body = match head.framing {
        Framing::None => None,
        Framing::Length(n) => Some(read_exact(r, n)?),
        Framing::Chunked => Some(read_chunked(r)?),
    };
    Ok(rewrite(&head.lines, pass, body))
}

/// The request again, with its framing stated once and the door's pass
/// ([`super::gate::PASS_HEADER`]).
fn rewrite(lines: &[String], pass: &str, body: Option<Vec<u8>>) -> Vec<u8> {
    let mut out = String::new();
    for line in lines {
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str(&format!("{PASS_HEADER}: {pass}\r\n"));
    if let Some(body) = &body {
        out.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    out.push_str("Connection: close\r\n\r\n");
    let mut out = out.into_bytes();
    out.extend(body.unwrap_or_default());
    out
}

/// One line (without its line end) of at most `max` bytes, or `None` when longer.
fn read_line(r: &mut impl BufRead, max: u64) -> Result<Option<String>, Unread> {
    let mut line = Vec::new();
    r.by_ref().take(max + 1).read_until(b'\n', &mut line)?;
    if line.last() != Some(&b'\n') {
        return match line.len() as u64 > max {
            true => Ok(None),
            false => Err(Unread::Gone),
        };
    }
    line.pop();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    String::from_utf8(line)
        .map(Some)
        .map_err(|_| bad("the request head is not ASCII text"))
}

fn read_head(r: &mut impl BufRead) -> Result<Head, Unread> {
    let too_long = || {
        Unread::Refused(
            431,
            format!("the request head is longer than {MAX_HEAD_BYTES} bytes"),
        )
    };
    let mut head = Head::default();
    let mut left = MAX_HEAD_BYTES as u64;
    loop {
        let line = read_line(r, left)?.ok_or_else(too_long)?;
        left = left.saturating_sub(line.len() as u64 + 2);
        match (line.is_empty(), head.lines.is_empty()) {
            (true, true) => continue,
            (true, false) => return Ok(head),
            _ => {}
        }
        if head.lines.is_empty() {
            head.lines.push(line);
        } else {
            header(&mut head, line)?;
        }
    }
}

/// Takes in one header line: the framing headers are read (and stated again later), a
/// client's pass header dropped, the others passed on.
fn header(head: &mut Head, line: String) -> Result<(), Unread> {
    if line.starts_with([' ', '\t']) {
        return Err(bad("a header is folded over two lines"));
    }
    let (name, value) = line
        .split_once(':')
        .ok_or_else(|| bad(format!("the header line `{line}` has no colon")))?;
    let (name, value) = (name.trim(), value.trim());
    if name.eq_ignore_ascii_case("content-length") {
        let n: u64 = value
            .parse()
            .map_err(|_| bad(format!("`Content-Length: {value}` is not a length")))?;
        match head.framing {
            Framing::Length(m) if m != n => {
                return Err(bad("two `Content-Length` headers that disagree"))
            }
            Framing::Chunked => {}
            _ => head.framing = Framing::Length(n),
        }
    } else if name.eq_ignore_ascii_case("transfer-encoding") {
        if !value.eq_ignore_ascii_case("chunked") {
            return Err(Unread::Refused(
                501,
                format!("`Transfer-Encoding: {value}`: only `chunked` is accepted"),
            ));
        }
        head.framing = Framing::Chunked;
    } else if name.eq_ignore_ascii_case("expect") && value.eq_ignore_ascii_case("100-continue") {
        head.expects_continue = true;
    } else if !["connection", "upgrade", PASS_HEADER]
        .iter()
        .any(|dropped| name.eq_ignore_ascii_case(dropped))
    {
        head.lines.push(line);
    }
    Ok(())
}

fn read_exact(r: &mut impl BufRead, n: u64) -> Result<Vec<u8>, Unread> {
    let mut body = Vec::new();
    r.by_ref().take(n).read_to_end(&mut body)?;
    match body.len() as u64 == n {
        true => Ok(body),
        false => Err(Unread::Gone),
    }
}

/// A chunked body, decoded, up to one byte past the cap (then reading stops).
fn read_chunked(r: &mut impl BufRead) -> Result<Vec<u8>, Unread> {
    let cap = MAX_BODY_BYTES as u64 + 1;
    let mut body = Vec::new();
    loop {
        let line =
            read_line(r, MAX_CHUNK_LINE)?.ok_or_else(|| bad("a chunk size line is too long"))?;
        let size = line.split(';').next().unwrap_or("").trim();
        let size = u64::from_str_radix(size, 16)
            .map_err(|_| bad(format!("`{size}` is not a chunk size")))?;
        if size == 0 {
            skip_trailers(r)?;
            return Ok(body);
        }
        let want = size.min(cap - body.len() as u64);
        let chunk = read_exact(r, want)?;
        body.extend(chunk);
        if body.len() as u64 >= cap {
            return Ok(body);
        }
        if read_line(r, 1)?.is_none_or(|end| !end.is_empty()) {
            return Err(bad("a chunk is longer than its size says"));
        }
    }
}

fn skip_trailers(r: &mut impl BufRead) -> Result<(), Unread> {
    let mut left = MAX_HEAD_BYTES as u64;
    loop {
        let line = read_line(r, left)?.ok_or_else(|| bad("the trailers are too long"))?;
        if line.is_empty() {
            return Ok(());
        }
        left = left.saturating_sub(line.len() as u64 + 2);
    }
}
