//! The server's view of HTTP: a request reduced to what a room needs (method, path, query,
//! a body read up to a cap), an answer, and the errors every endpoint shares.
//!
//! Every limit is checked before work starts: a body over [`MAX_BODY_BYTES`] is refused with
//! 413 after reading at most one byte more than the cap, so a client that streams without end
//! costs bounded memory.

use std::collections::BTreeMap;
use std::io::Read;

use serde_json::{json, Value};
use tiny_http::{Header, Method, Request, Response, StatusCode};

/// Largest request body: a `.cards` file (the longest built-in is a few kilobytes).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Longest request target (path and query) accepted.
pub const MAX_URL_BYTES: usize = 2048;

/// A request as a room sees it.
#[derive(Debug)]
pub struct Call {
    /// `GET`, `POST`, …
    pub method: Method,
    /// The path, without the query.
    pub path: String,
    /// The query parameters (the last value wins when one is repeated).
    pub query: BTreeMap<String, String>,
    /// The body, as UTF-8 text.
    pub body: String,
}

/// What went wrong with a request, as the page and a script see it: a status and a JSON body
/// `{"error": {"message": …, …}}`.
#[derive(Debug)]
pub struct Refusal {
    /// The HTTP status (4xx for the client's fault, 500 for ours).
    pub status: u16,
    /// The JSON `error` object.
    pub error: Value,
}

impl Refusal {
    /// A refusal with a message only.
    pub fn new(status: u16, message: impl Into<String>) -> Refusal {
        Refusal {
            status,
            error: json!({ "message": message.into() }),
        }
    }

    /// 400: a parameter is missing or out of range.
    pub fn bad(message: impl Into<String>) -> Refusal {
        Refusal::new(400, message)
    }
}

/// An answer: status, content type and body.
#[derive(Debug)]
pub struct Answer {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
}

impl Answer {
    /// 200 with a JSON document.
    pub fn json(doc: &Value) -> Answer {
        Answer {
            status: 200,
            content_type: "application/json",
            body: doc.to_string().into_bytes(),
        }
    }

    /// 200 with a static asset.
    pub fn asset(content_type: &'static str, body: &'static str) -> Answer {
        Answer {
            status: 200,
            content_type,
            body: body.as_bytes().to_vec(),
        }
    }

    /// The refusal as JSON.
    pub fn refusal(r: &Refusal) -> Answer {
        Answer {
            status: r.status,
            content_type: "application/json",
            body: json!({ "error": r.error }).to_string().into_bytes(),
        }
    }

    /// Sends the answer; a client that went away is not an error of the server.
    pub fn send(self, request: Request) {
        // Every body is in memory: say its length rather than chunk it (scripts and the tests
        // read a plain body).
        let length = self.body.len();
        let mut response = Response::from_data(self.body)
            .with_status_code(StatusCode(self.status))
            .with_chunked_threshold(length + 1);
        for (name, value) in [
            ("Content-Type", self.content_type),
            // The pages load nothing from elsewhere, and say so to the browser.
            (
                "Content-Security-Policy",
                "default-src 'self'; style-src 'self'; img-src 'self' data:",
            ),
            ("X-Content-Type-Options", "nosniff"),
            ("Cache-Control", "no-store"),
        ] {
            if let Ok(h) = Header::from_bytes(name.as_bytes(), value.as_bytes()) {
                response.add_header(h);
            }
        }
        let _ = request.respond(response);
    }
}

/// Reads `request` into a [`Call`], refusing an oversized target or body, or a body that is not
/// UTF-8.
pub fn read_call(request: &mut Request) -> Result<Call, Refusal> {
    let url = request.url().to_owned();
    if url.len() > MAX_URL_BYTES {
        return Err(Refusal::new(
            414,
            format!("the request target is longer than {MAX_URL_BYTES} bytes"),
        ));
    }
    same_origin(request)?;
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    let query = form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    let body = read_body(request)?;
    Ok(Call {
        method: request.method().clone(),
        path: path.to_owned(),
        query,
        body,
    })
}

/// Refuses a call a page of another site makes (its `Origin` is not this server's `Host`): a
/// page the teacher or a student opens elsewhere must not start games or computations here.
fn same_origin(request: &Request) -> Result<(), Refusal> {
    let header = |name| header(request, name);
    let Some(origin) = header("Origin") else {
        return Ok(());
    };
    let host = header("Host").unwrap_or_default();
    if !host.is_empty() && origin.strip_prefix("http://") == Some(host) {
        return Ok(());
    }
    Err(Refusal::new(
        403,
        format!("a page of {origin} may not call this server: only its own pages may"),
    ))
}

/// The value of `request`'s first header `name`, if it has one.
pub fn header<'r>(request: &'r Request, name: &'static str) -> Option<&'r str> {
    request
        .headers()
        .iter()
        .find(|h| h.field.equiv(name))
        .map(|h| h.value.as_str())
}

fn read_body(request: &mut Request) -> Result<String, Refusal> {
    let too_large = || {
        Refusal::new(
            413,
            format!("the request body is larger than {MAX_BODY_BYTES} bytes"),
        )
    };
    if request.body_length().is_some_and(|n| n > MAX_BODY_BYTES) {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    request
        .as_reader()
        .take(MAX_BODY_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Refusal::bad(format!("cannot read the request body: {e}")))?;
    if bytes.len() > MAX_BODY_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|e| {
        Refusal::bad(format!(
            "the request body is not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

impl Call {
    /// The query parameter `name`, if given.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query.get(name).map(String::as_str)
    }

    /// The query parameter `name` as an integer in `range` (`default` when absent).
    pub fn int_param(
        &self,
        name: &str,
        default: u64,
        range: std::ops::RangeInclusive<u64>,
    ) -> Result<u64, Refusal> {
        let Some(text) = self.param(name) else {
            return Ok(default);
        };
        let value: u64 = text
            .parse()
            .map_err(|_| Refusal::bad(format!("`{name}` must be a whole number, got `{text}`")))?;
        if !range.contains(&value) {
            return Err(Refusal::bad(format!(
                "`{name}` must be between {} and {}, got {value}",
                range.start(),
                range.end()
            )));
        }
        Ok(value)
    }
}
