//! Whether a request's header list is well formed (RFC 9114 4.1.2, 4.2,
//! 4.3.1), decided before the server looks at what is asked for.
//!
//! quiche hands the decoded field list to the application unchecked, so
//! h3-server checks it here: a malformed request gets a 400 response naming
//! the problem (RFC 9114 4.1.2 allows a response before the stream error)
//! and the server stops reading the stream with H3_MESSAGE_ERROR; the
//! connection and its other streams carry on.

use quiche::h3::NameValue;

/// The HTTP/3 error code of a malformed message (RFC 9114 8.1).
pub const H3_MESSAGE_ERROR: u64 = 0x10e;

/// The parts of a well-formed request the server acts on.
#[derive(Debug, PartialEq, Eq)]
pub struct Head<'a> {
    pub method: &'a [u8],
    /// None only for CONNECT, which has no `:path`.
    pub path: Option<&'a [u8]>,
}

/// Fields that describe a hop-by-hop connection, which HTTP/3 does not have
/// (RFC 9114 4.2); `te` is allowed with the value `trailers` only.
const CONNECTION_FIELDS: [&[u8]; 5] = [
    b"connection",
    b"keep-alive",
    b"proxy-connection",
    b"transfer-encoding",
    b"upgrade",
];

/// Checks a request's fields; the error says why the request is malformed.
pub fn check<H: NameValue>(fields: &[H]) -> Result<Head<'_>, String> {
    let mut method: Option<&[u8]> = None;
    let mut scheme: Option<&[u8]> = None;
    let mut authority: Option<&[u8]> = None;
    let mut path: Option<&[u8]> = None;
    let mut host: Option<&[u8]> = None;
    let mut regular_seen = false;
    for field in fields {
        let (name, value) = (field.name(), field.value());
        let shown = String::from_utf8_lossy(name);
        if value.iter().any(|b| matches!(b, b'\0' | b'\r' | b'\n')) {
            return Err(format!("field {shown} has NUL, CR or LF in its value"));
        }
        if let Some(pseudo) = name.strip_prefix(b":") {
            if regular_seen {
                return Err(format!("pseudo-header {shown} after a regular field"));
            }
            let slot = match pseudo {
                b"method" => &mut method,
                b"scheme" => &mut scheme,
                b"authority" => &mut authority,
                b"path" => &mut path,
                _ => return Err(format!("unknown request pseudo-header {shown}")),
            };
            if slot.replace(value).is_some() {
                return Err(format!("duplicate pseudo-header {shown}"));
            }
            continue;
        }
        regular_seen = true;
        if name.is_empty() {
            return Err("empty field name".into());
        }
        if !name.iter().all(|&b| is_lowercase_token_byte(b)) {
            return Err(format!(
                "field name {shown:?} is not a lowercase token (RFC 9114 4.2)"
            ));
        }
        if CONNECTION_FIELDS.contains(&name) {
            return Err(format!("connection-specific field {shown}"));
        }
        if name == b"te" && value != b"trailers" {
            return Err("te other than `trailers`".into());
        }
        if name == b"host" {
            host = Some(value);
        }
    }
    let method = method.ok_or("missing :method")?;
    if method.is_empty() {
        return Err("empty :method".into());
    }
    if method == b"CONNECT" {
        // RFC 9114 4.4: only :method and :authority.
        if scheme.is_some() || path.is_some() {
            return Err("CONNECT with :scheme or :path".into());
        }
        if authority.is_none_or(<[u8]>::is_empty) {
            return Err("CONNECT without :authority".into());
        }
        return Ok(Head { method, path: None });
    }
    let scheme = scheme.ok_or("missing :scheme")?;
    let path = path.ok_or("missing :path")?;
    if path.is_empty() {
        return Err("empty :path".into());
    }
    if scheme == b"https" || scheme == b"http" {
        match (authority, host) {
            (None, None) => return Err("neither :authority nor host".into()),
            (Some(a), _) | (None, Some(a)) if a.is_empty() => {
                return Err("empty :authority or host".into())
            }
            (Some(a), Some(h)) if a != h => return Err(":authority and host differ".into()),
            _ => {}
        }
    }
    Ok(Head {
        method,
        path: Some(path),
    })
}

/// A byte of an RFC 9110 5.6.2 token, upper case excluded.
fn is_lowercase_token_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || b"!#$%&'*+-.^_`|~".contains(&b)
}
