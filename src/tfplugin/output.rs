//! What a provider writes to stderr (and, after the handshake, to GRPCStdio): turned into
//! tracing events, with the recent lines and any Go panic kept for error messages.
//!
//! Providers log hclog JSON (`{"@level":"debug","@message":"...","key":"value"}`); older
//! ones print `[DEBUG] ...` lines. A Go panic or fatal error (`panic: ...`, `fatal error: ...`)
//! is the best explanation of why a call failed, so from such a line on every line is kept
//! as panic text and logged at ERROR, as go-plugin does.

use std::collections::VecDeque;
use std::sync::Mutex;

/// Lines longer than this are cut: a provider must not be able to make us buffer without
/// bound by never printing a newline.
pub(crate) const MAX_LINE_BYTES: usize = 64 * 1024;
/// How many recent lines an error message can quote.
const RECENT_LINES: usize = 40;
/// A stored recent line is cut to this length; error messages stay readable.
const MAX_RECENT_LINE_BYTES: usize = 2048;
/// Panic text beyond this is dropped; a goroutine dump can be huge and the top matters most.
const MAX_PANIC_BYTES: usize = 64 * 1024;

/// Splits a byte stream into lines of at most [`MAX_LINE_BYTES`].
#[derive(Default)]
pub(crate) struct LineSplitter {
    pending: Vec<u8>,
    /// Set after an over-long line was emitted: the rest of it, up to the next newline, is dropped.
    skipping_rest_of_line: bool,
}

impl LineSplitter {
    pub(crate) fn push(&mut self, mut chunk: &[u8], emit: &mut dyn FnMut(&str)) {
        while !chunk.is_empty() {
            let newline = chunk.iter().position(|&b| b == b'\n');
            let (part, rest, complete) = match newline {
                Some(idx) => (&chunk[..idx], &chunk[idx + 1..], true),
                None => (chunk, &[][..], false),
            };
            chunk = rest;
            if self.skipping_rest_of_line {
                self.skipping_rest_of_line = !complete;
                continue;
            }
            let room = MAX_LINE_BYTES - self.pending.len();
            if part.len() > room {
                self.pending.extend_from_slice(&part[..room]);
                self.emit_pending(emit);
                self.skipping_rest_of_line = !complete;
                continue;
            }
            self.pending.extend_from_slice(part);
            if complete {
                self.emit_pending(emit);
            }
        }
    }

    /// Emits a final line that had no newline.
    pub(crate) fn finish(&mut self, emit: &mut dyn FnMut(&str)) {
        if !self.pending.is_empty() {
            self.emit_pending(emit);
        }
    }

    fn emit_pending(&mut self, emit: &mut dyn FnMut(&str)) {
        let text = String::from_utf8_lossy(&self.pending);
        emit(text.trim_end_matches('\r'));
        self.pending.clear();
    }
}

/// Where a line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stream {
    /// The process's stderr pipe.
    Stderr,
    /// The process's stdout pipe after the handshake line.
    Stdout,
    /// GRPCStdio's stdout channel (what the provider printed after the handshake).
    StdioStdout,
    /// GRPCStdio's stderr channel.
    StdioStderr,
}

/// The severity a provider line is logged at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineLevel {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
}

/// One provider's output state, shared by the reader tasks and the client.
pub(crate) struct ProviderOutput {
    /// Names the provider in log events (its executable path or address).
    provider: String,
    state: Mutex<OutputState>,
}

#[derive(Default)]
struct OutputState {
    recent: VecDeque<String>,
    panic_text: Option<String>,
}

impl ProviderOutput {
    pub(crate) fn new(provider: String) -> ProviderOutput {
        ProviderOutput { provider, state: Mutex::new(OutputState::default()) }
    }

    /// Logs one line and remembers it.
    pub(crate) fn record_line(&self, stream: Stream, line: &str) {
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let starts_panic = line.starts_with("panic: ") || line.starts_with("fatal error: ");
        if starts_panic && state.panic_text.is_none() {
            state.panic_text = Some(String::new());
        }
        let in_panic = state.panic_text.is_some();
        if let Some(text) = state.panic_text.as_mut()
            && text.len() + line.len() < MAX_PANIC_BYTES
        {
            text.push_str(line);
            text.push('\n');
        }
        let (level, message) = classify_line(line, in_panic);
        // Providers emit hclog trace and debug entries by default, hundreds per call; kept,
        // they would push the lines that explain a failure out of the error message.
        let is_log_noise = line.starts_with('{') && matches!(level, LineLevel::Trace | LineLevel::Debug);
        if !is_log_noise {
            if state.recent.len() == RECENT_LINES {
                state.recent.pop_front();
            }
            state.recent.push_back(truncate(line, MAX_RECENT_LINE_BYTES).to_owned());
        }
        drop(state);

        let provider = self.provider.as_str();
        let stream = match stream {
            Stream::Stderr => "stderr",
            Stream::Stdout => "stdout",
            Stream::StdioStdout => "stdio-stdout",
            Stream::StdioStderr => "stdio-stderr",
        };
        match level {
            LineLevel::Trace => tracing::trace!(target: "tfplugin::provider", provider, stream, "{message}"),
            LineLevel::Debug => tracing::debug!(target: "tfplugin::provider", provider, stream, "{message}"),
            LineLevel::Info => tracing::info!(target: "tfplugin::provider", provider, stream, "{message}"),
            LineLevel::Warn => tracing::warn!(target: "tfplugin::provider", provider, stream, "{message}"),
            LineLevel::Error => tracing::error!(target: "tfplugin::provider", provider, stream, "{message}"),
        }
    }

    /// The last lines the provider wrote, oldest first.
    pub(crate) fn recent_lines(&self) -> Vec<String> {
        let state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        state.recent.iter().cloned().collect()
    }

    /// The Go panic or fatal error text, if the provider printed one.
    pub(crate) fn panic_text(&self) -> Option<String> {
        let state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        state.panic_text.clone()
    }
}

fn truncate(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Maps a line to a level and the message to log: hclog JSON keeps its message and
/// appends the other keys as `key=value`; bracketed tags set the level; anything else is
/// DEBUG, or ERROR once a panic started.
pub(crate) fn classify_line(line: &str, in_panic: bool) -> (LineLevel, String) {
    if line.starts_with('{')
        && let Ok(serde_json::Value::Object(entry)) = serde_json::from_str::<serde_json::Value>(line)
    {
        let level = match entry.get("@level").and_then(|l| l.as_str()) {
            Some("trace") => LineLevel::Trace,
            Some("info") => LineLevel::Info,
            Some("warn") => LineLevel::Warn,
            Some("error") => LineLevel::Error,
            _ => LineLevel::Debug,
        };
        let mut message = entry.get("@message").and_then(|m| m.as_str()).unwrap_or_default().to_owned();
        for (key, value) in &entry {
            if matches!(key.as_str(), "@level" | "@message" | "@timestamp") {
                continue;
            }
            match value {
                serde_json::Value::String(text) => message.push_str(&format!(" {key}={text:?}")),
                other => message.push_str(&format!(" {key}={other}")),
            }
        }
        return (level, message);
    }
    // Go's standard logger may put a date and time before the tag, so look a little further
    // than the very start.
    let head = truncate(line, 40);
    let tagged = [
        ("[TRACE]", LineLevel::Trace),
        ("[DEBUG]", LineLevel::Debug),
        ("[INFO]", LineLevel::Info),
        ("[WARN]", LineLevel::Warn),
        ("[ERROR]", LineLevel::Error),
    ]
    .into_iter()
    .find(|(tag, _)| head.contains(tag));
    let level = match tagged {
        Some((_, level)) => level,
        None if in_panic => LineLevel::Error,
        None => LineLevel::Debug,
    };
    (level, line.to_owned())
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    #[track_caller]
    fn check_split(chunks: &[&[u8]], expect: Expect) {
        let mut splitter = LineSplitter::default();
        let mut lines = Vec::new();
        for chunk in chunks {
            splitter.push(chunk, &mut |line| lines.push(format!("{:?}({})", truncate(line, 12), line.len())));
        }
        splitter.finish(&mut |line| lines.push(format!("last {:?}({})", truncate(line, 12), line.len())));
        expect.assert_eq(&lines.join("\n"));
    }

    #[test]
    fn lines_are_split_across_chunks_and_bounded() {
        check_split(
            &[b"ab", b"c\nde\r\n", b"f"],
            expect![[r#"
            "abc"(3)
            "de"(2)
            last "f"(1)"#]],
        );
        let long = vec![b'x'; MAX_LINE_BYTES + 10];
        check_split(
            &[&long, b"yy\nnext\n"],
            expect![[r#"
            "xxxxxxxxxxxx"(65536)
            "next"(4)"#]],
        );
        check_split(
            &[&long[..MAX_LINE_BYTES], b"\nnext"],
            expect![[r#"
            "xxxxxxxxxxxx"(65536)
            last "next"(4)"#]],
        );
    }

    #[track_caller]
    fn check_classify(line: &str, in_panic: bool, expect: Expect) {
        let (level, message) = classify_line(line, in_panic);
        expect.assert_eq(&format!("{level:?}: {message}"));
    }

    #[test]
    fn line_levels() {
        check_classify(
            r#"{"@level":"warn","@message":"slow","@timestamp":"2024-01-01T00:00:00.000000Z","@module":"sdk.proto","tf_rpc":"ReadResource","n":3}"#,
            false,
            expect![[r#"Warn: slow @module="sdk.proto" tf_rpc="ReadResource" n=3"#]],
        );
        check_classify(r#"{"@level":"trace","@message":"x"}"#, false, expect![[r#"Trace: x"#]]);
        check_classify("[INFO] configuring", false, expect![[r#"Info: [INFO] configuring"#]]);
        check_classify(
            "2024/01/01 12:00:00 [ERROR] broken",
            false,
            expect![[r#"Error: 2024/01/01 12:00:00 [ERROR] broken"#]],
        );
        check_classify("plain text", false, expect![[r#"Debug: plain text"#]]);
        check_classify("goroutine 1 [running]:", true, expect![[r#"Error: goroutine 1 [running]:"#]]);
        check_classify("{not json", false, expect![[r#"Debug: {not json"#]]);
    }

    #[test]
    fn panic_text_and_recent_lines_are_kept() {
        let output = ProviderOutput::new("test".to_owned());
        for idx in 0..RECENT_LINES + 5 {
            output.record_line(Stream::Stderr, &format!("line {idx}"));
        }
        assert_eq!(output.panic_text(), None);
        output.record_line(Stream::Stderr, r#"{"@level":"trace","@message":"noise"}"#);
        output.record_line(Stream::Stderr, "panic: runtime error: invalid memory address");
        output.record_line(Stream::Stderr, "goroutine 7 [running]:");
        let recent = output.recent_lines();
        assert_eq!(recent.len(), RECENT_LINES);
        assert_eq!(recent.last().map(String::as_str), Some("goroutine 7 [running]:"));
        assert!(!recent.iter().any(|line| line.contains("noise")), "{recent:?}");
        expect![[r#"
            panic: runtime error: invalid memory address
            goroutine 7 [running]:
        "#]]
        .assert_eq(&output.panic_text().unwrap());
    }
}
