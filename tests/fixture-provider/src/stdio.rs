//! Routes the process's stdout and stderr into `GRPCStdio` after the handshake, as
//! go-plugin does.
//!
//! go-plugin replaces `os.Stdout`/`os.Stderr` by pipes once the handshake line is out, and
//! copies each pipe in 1 KiB reads into an unbuffered channel that `StreamStdio` drains, so
//! a host that never drains it makes the provider's writes block once the pipe is full.
//! Here the file descriptors 1 and 2 themselves are pointed at pipes (Rust's `print!` and
//! `eprint!` write to the descriptors), two threads copy the pipes into a channel of
//! capacity one, and the original stderr is kept for what a Go runtime writes to
//! descriptor 2 directly: panics.
//!
//! Architecture invariant: this module knows nothing about gRPC services; it yields
//! `StdioData` messages.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};

use tfbridge_proto::goplugin;
use tokio::sync::mpsc;

/// The redirected process output.
pub struct RedirectedStdio {
    /// The stderr the process started with.
    pub real_stderr: File,
    /// Everything written to stdout and stderr since the redirection, in 1 KiB pieces.
    pub output: mpsc::Receiver<goplugin::StdioData>,
}

/// Points descriptors 1 and 2 at fresh pipes and starts copying them into the returned
/// channel. Call it right after the handshake line has been flushed.
pub fn redirect() -> io::Result<RedirectedStdio> {
    let real_stderr = File::from(io::stderr().as_fd().try_clone_to_owned()?);
    let (sender, output) = mpsc::channel(1);
    for (fd, channel) in [(1, goplugin::stdio_data::Channel::Stdout), (2, goplugin::stdio_data::Channel::Stderr)] {
        let (reader, writer) = io::pipe()?;
        replace_fd(OwnedFd::from(writer), fd)?;
        let sender = sender.clone();
        std::thread::Builder::new().name(format!("stdio-{fd}")).spawn(move || copy_pipe(reader, channel, sender))?;
    }
    Ok(RedirectedStdio { real_stderr, output })
}

/// Makes descriptor `target` refer to what `source` refers to. `source` is closed afterwards;
/// `target` keeps the pipe open.
fn replace_fd(source: OwnedFd, target: i32) -> io::Result<()> {
    // SAFETY: dup2 takes two plain descriptor numbers; `source` is open for the duration of
    // the call and `target` is one of the standard descriptors, which the process owns.
    let result = unsafe { libc::dup2(source.as_raw_fd(), target) };
    if result < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn copy_pipe(
    mut reader: io::PipeReader,
    channel: goplugin::stdio_data::Channel,
    sender: mpsc::Sender<goplugin::StdioData>,
) {
    let mut buf = [0u8; 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                let data = goplugin::StdioData { channel: channel as i32, data: buf[..n].to_vec() };
                // The receiver only goes away when the process is exiting.
                if sender.blocking_send(data).is_err() {
                    return;
                }
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}
