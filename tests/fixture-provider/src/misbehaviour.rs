//! The misbehaviour a test can switch on at launch: a Go-style panic, a slow call that
//! honours `StopProvider`, and a flood of stdout/stderr output.
//!
//! A Go provider that panics writes `panic: <value>` and a goroutine trace straight to file
//! descriptor 2 (the runtime bypasses `os.Stderr`, which go-plugin has replaced by the
//! `GRPCStdio` pipe) and exits with status 2. [`go_panic`] does the same, writing to the
//! real stderr the process started with.
//!
//! Architecture invariant: this module knows nothing about protocol versions; callers pass
//! the gRPC method name of whatever protocol they serve.

use std::fs::File;
use std::io::Write;

/// The text a Go provider's runtime prints when `method` panics, up to the exit.
pub fn go_panic_text(method: &str) -> String {
    format!(
        "panic: fixture: deliberate panic in {method} (FIXTURE_PANIC_ON)\n\
         \n\
         goroutine 42 [running]:\n\
         github.com/pulumi/terraform-provider-fixture/internal/provider.(*Provider).{method}(0xc000123450, {{0x1d3c5e8, 0xc0004a6b40}})\n\
         \t/fixture/internal/provider/provider.go:117 +0x1d\n\
         google.golang.org/grpc.(*Server).processUnaryRPC(0xc0001f2000, {{0x1d3c5e8, 0xc0004a6ab0}}, 0xc0003b6000)\n\
         \t/go/pkg/mod/google.golang.org/grpc@v1.72.0/server.go:1405 +0xff1\n\
         created by google.golang.org/grpc.(*Server).serveStreams.func2 in goroutine 40\n\
         \t/go/pkg/mod/google.golang.org/grpc@v1.72.0/server.go:1030 +0x135\n"
    )
}

/// Writes the Go panic text for `method` to `real_stderr` and exits the process with status 2,
/// as the Go runtime does after an unrecovered panic.
pub fn go_panic(real_stderr: &mut File, method: &str) -> ! {
    // Nothing useful can be done if the write fails: the process is about to exit anyway.
    let _ = real_stderr.write_all(go_panic_text(method).as_bytes());
    let _ = real_stderr.flush();
    std::process::exit(2)
}

/// What `FIXTURE_STDERR_LOGS=1` writes to the real stderr after the handshake: hclog JSON
/// lines at every level (what terraform-plugin-go providers write), a line with a bracketed
/// level prefix and one without any level, as go-plugin's host tells them apart. The
/// timestamp is fixed so host tests can compare output exactly.
pub const SAMPLE_STDERR_LOGS: &str = concat!(
    r#"{"@level":"trace","@message":"fixture: trace line","@module":"provider","@timestamp":"2026-01-01T00:00:00.000000Z"}"#,
    "\n",
    r#"{"@level":"debug","@message":"fixture: debug line","@module":"provider","@timestamp":"2026-01-01T00:00:00.000000Z","tf_rpc":"GetProviderSchema"}"#,
    "\n",
    r#"{"@level":"info","@message":"fixture: info line","@module":"provider","@timestamp":"2026-01-01T00:00:00.000000Z","count":3}"#,
    "\n",
    r#"{"@level":"warn","@message":"fixture: warn line","@module":"provider","@timestamp":"2026-01-01T00:00:00.000000Z"}"#,
    "\n",
    r#"{"@level":"error","@message":"fixture: error line","@module":"provider","@timestamp":"2026-01-01T00:00:00.000000Z"}"#,
    "\n",
    "[WARN] fixture: a plain line with a level prefix\n",
    "fixture: a plain line without a level\n",
);

/// Writes `n_bytes` of recognisable text to the (redirected) stdout and as many to stderr,
/// alternating 32 KiB chunks so that neither stream can be drained alone.
pub fn flood(n_bytes: u64) -> std::io::Result<()> {
    const CHUNK: u64 = 32 * 1024;
    let line = b"fixture flood: the quick brown fox jumps over the lazy dog 0123456789\n";
    let mut pattern = Vec::with_capacity(CHUNK as usize);
    while (pattern.len() as u64) < CHUNK {
        pattern.extend_from_slice(line);
    }
    let mut stdout = std::io::stdout().lock();
    let mut stderr = std::io::stderr().lock();
    let mut written = 0u64;
    while written < n_bytes {
        let len = (n_bytes - written).min(CHUNK) as usize;
        stdout.write_all(&pattern[..len])?;
        stdout.flush()?;
        stderr.write_all(&pattern[..len])?;
        stderr.flush()?;
        written += len as u64;
    }
    Ok(())
}
