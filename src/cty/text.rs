//! Strings as Terraform reads them from a provider.
//!
//! go-cty's decoders keep a Go string's bytes as they came, valid UTF-8 or not, and every
//! place Terraform shows or saves a string (its UI, `encoding/json` for the state and for
//! `terraform show -json`) writes U+FFFD in place of each byte that does not begin a valid
//! UTF-8 sequence. A provider that reads a binary HTTP body into a string attribute
//! (hashicorp/http's `response_body` of a GIF) therefore works in Terraform, with the
//! replacement characters. Rust strings must be UTF-8, so the replacement is made once, on
//! the way in, byte by byte exactly as Go's encoders make it; a string that is valid UTF-8
//! is borrowed untouched.

use std::borrow::Cow;

/// The replacement for one byte that does not begin a valid UTF-8 sequence.
const REPLACEMENT: char = '\u{FFFD}';

/// `bytes` as text, with U+FFFD for each byte that does not begin a valid UTF-8 sequence:
/// Go's rule (`utf8.DecodeRune` answers `RuneError` with width 1 for such a byte), which
/// differs from [`String::from_utf8_lossy`] for a truncated sequence: `E2 82 41` is two
/// U+FFFD and `A` in Go, one U+FFFD and `A` in Rust's.
pub fn go_lossy_utf8(bytes: &[u8]) -> Cow<'_, str> {
    let first = match std::str::from_utf8(bytes) {
        Ok(text) => return Cow::Borrowed(text),
        Err(err) => err,
    };
    let mut text = String::with_capacity(bytes.len() + 2);
    let mut rest = bytes;
    let mut error = Some(first);
    while let Some(err) = error {
        let (valid, after) = rest.split_at(err.valid_up_to());
        // `valid` is the part `from_utf8` vouched for.
        text.push_str(std::str::from_utf8(valid).unwrap_or_default());
        text.push(REPLACEMENT);
        rest = &after[1..];
        error = std::str::from_utf8(rest).err();
    }
    text.push_str(std::str::from_utf8(rest).unwrap_or_default());
    Cow::Owned(text)
}

#[cfg(test)]
mod tests {
    use super::go_lossy_utf8;

    #[test]
    fn each_byte_that_begins_no_sequence_is_one_replacement() {
        // (case, bytes, text as Go's encoding/json writes it)
        let table: [(&str, &[u8], &str); 9] = [
            ("valid ASCII is borrowed", b"plain", "plain"),
            ("valid multi-byte text", "caf\u{e9} \u{1F600}".as_bytes(), "caf\u{e9} \u{1F600}"),
            ("empty", b"", ""),
            ("a lone continuation byte", b"a\x80b", "a\u{FFFD}b"),
            ("a GIF header", b"GIF89a\x01\x00\x01\x00\x80\xff\x00", "GIF89a\u{1}\u{0}\u{1}\u{0}\u{FFFD}\u{FFFD}\u{0}"),
            ("a truncated 3-byte sequence: one per byte, not one per sequence", b"\xe2\x82A", "\u{FFFD}\u{FFFD}A"),
            ("a truncated sequence at the end", b"ok\xf0\x9f\x98", "ok\u{FFFD}\u{FFFD}\u{FFFD}"),
            ("an overlong encoding of '/'", b"\xc0\xaf", "\u{FFFD}\u{FFFD}"),
            ("a UTF-16 surrogate encoded in UTF-8", b"\xed\xa0\x80x", "\u{FFFD}\u{FFFD}\u{FFFD}x"),
        ];
        for (case, bytes, expected) in table {
            assert_eq!(go_lossy_utf8(bytes), expected, "{case}");
        }
        assert!(matches!(go_lossy_utf8(b"plain"), std::borrow::Cow::Borrowed(_)), "valid text is not copied");
    }
}
