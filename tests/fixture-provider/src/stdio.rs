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
    let real_stderr = real_stderr()?;
    let (sender, output) = mpsc::channel(1);
    for (fd, channel) in [(1, goplugin::stdio_data::Channel::Stdout), (2, goplugin::stdio_data::Channel::Stderr)] {
        let (reader, writer) = io::pipe()?;
        replace_std_stream(writer, fd)?;
        let sender = sender.clone();
        std::thread::Builder::new().name(format!("stdio-{fd}")).spawn(move || copy_pipe(reader, channel, sender))?;
    }
    Ok(RedirectedStdio { real_stderr, output })
}

#[cfg(unix)]
fn real_stderr() -> io::Result<File> {
    use std::os::fd::AsFd;
    Ok(File::from(io::stderr().as_fd().try_clone_to_owned()?))
}

#[cfg(windows)]
fn real_stderr() -> io::Result<File> {
    use std::os::windows::io::AsHandle;
    Ok(File::from(io::stderr().as_handle().try_clone_to_owned()?))
}

/// Makes descriptor `target` (1 or 2) refer to the pipe `writer`; `writer` itself is closed
/// afterwards, the descriptor keeps the pipe open.
#[cfg(unix)]
fn replace_std_stream(writer: io::PipeWriter, target: i32) -> io::Result<()> {
    use std::os::fd::{AsRawFd, OwnedFd};
    let source = OwnedFd::from(writer);
    // SAFETY: dup2 takes two plain descriptor numbers; `source` is open for the duration of
    // the call and `target` is one of the standard descriptors, which the process owns.
    let result = unsafe { libc::dup2(source.as_raw_fd(), target) };
    if result < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Windows has no descriptors to re-point: Rust's `print!` and `eprint!` ask for the
/// standard handle at each write, so setting it is enough. The pipe's handle is handed to
/// the process for good.
#[cfg(windows)]
fn replace_std_stream(writer: io::PipeWriter, target: i32) -> io::Result<()> {
    use std::os::windows::io::{IntoRawHandle, OwnedHandle};
    use windows_sys::Win32::System::Console::{STD_ERROR_HANDLE, STD_OUTPUT_HANDLE, SetStdHandle};
    let which = if target == 1 { STD_OUTPUT_HANDLE } else { STD_ERROR_HANDLE };
    let handle = OwnedHandle::from(writer).into_raw_handle();
    // SAFETY: `handle` is an open pipe handle that is never closed from here on.
    if unsafe { SetStdHandle(which, handle) } == 0 {
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
