//! The CPU a process pays to be woken for one small message and answer it, on this machine:
//! the floor under the plugin's CPU per resource when the engine's checkpoints make every
//! call arrive alone (issue 35). No criterion: the figure is the responder's own CPU time
//! (getrusage) over many rounds, which criterion's wall-clock loop cannot measure.
//!
//!     cargo bench --bench wakeup            # WAKEUP_ROUNDS (400), WAKEUP_GAP_MS (20)
//!
//! A driver process sends a 200-byte message over a Unix socket and waits for the echo, then
//! idles for the gap; with `churn`, it spends the gap writing through 64 MiB, as the engine
//! does while it serializes a checkpoint. The responder (this binary again, as a child) does
//! nothing but block in `read`, echo, and block again: whatever CPU it uses per round is the
//! price of the wake-up itself (the context switch, the system calls, the caches it finds
//! cold), not of any work. The plugin pays it for every frame the engine or the provider sends
//! it alone (a call, the BDP ping grpc-go sends after each message it receives).

#[cfg(unix)]
fn main() {
    unix::main();
}

#[cfg(not(unix))]
fn main() {
    eprintln!("wakeup: Unix only (it measures a Unix socket's wake-up)");
}

#[cfg(unix)]
mod unix {
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;
    use std::time::{Duration, Instant};

    const MESSAGE: usize = 200;

    fn cpu_of(who: libc::c_int) -> Duration {
        // SAFETY: an all-zero rusage is valid for getrusage to fill.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: usage is valid for writes.
        unsafe { libc::getrusage(who, &mut usage) };
        let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
        time(usage.ru_utime) + time(usage.ru_stime)
    }

    fn env_or(name: &str, default: u64) -> u64 {
        std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
    }

    /// The child: echo every message until the driver closes the socket.
    fn respond(mut socket: UnixStream) {
        let mut buf = [0u8; MESSAGE];
        while socket.read_exact(&mut buf).is_ok() {
            if socket.write_all(&buf).is_err() {
                break;
            }
        }
    }

    /// One run: `rounds` messages `gap` apart, churning memory in the gaps or not; the
    /// responder's CPU per round, in microseconds.
    fn run(rounds: u64, gap: Duration, churn: bool) -> f64 {
        let (mut ours, theirs) = UnixStream::pair().expect("a socket pair");
        let exe = std::env::current_exe().expect("this binary's path");
        // The responder inherits its end as fd 3.
        let fd = std::os::fd::AsRawFd::as_raw_fd(&theirs);
        let mut command = std::process::Command::new(exe);
        command.arg("--respond");
        // SAFETY: dup2 between two descriptors this process owns, in the child before exec.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut command, move || {
                if libc::dup2(fd, 3) < 0 { Err(std::io::Error::last_os_error()) } else { Ok(()) }
            });
        }
        let mut child = command.spawn().expect("start the responder");
        drop(theirs);
        let mut memory = vec![0u8; if churn { 64 << 20 } else { 0 }];
        let mut buf = [7u8; MESSAGE];
        for round in 0..rounds {
            let start = Instant::now();
            ours.write_all(&buf).expect("send");
            ours.read_exact(&mut buf).expect("the echo");
            if churn {
                for chunk in memory.chunks_mut(64) {
                    chunk[0] = chunk[0].wrapping_add(round as u8);
                }
            }
            if let Some(left) = gap.checked_sub(start.elapsed()) {
                std::thread::sleep(left);
            }
        }
        drop(ours);
        child.wait().expect("the responder exits");
        let cpu = cpu_of(libc::RUSAGE_CHILDREN);
        std::hint::black_box(&memory);
        cpu.as_secs_f64() * 1e6 / rounds as f64
    }

    pub fn main() {
        if std::env::args().any(|a| a == "--respond") {
            // SAFETY: fd 3 is the socket the driver handed down, ours alone.
            let socket = unsafe { <UnixStream as std::os::fd::FromRawFd>::from_raw_fd(3) };
            return respond(socket);
        }
        if std::env::args().any(|a| a == "--list") {
            return; // `cargo bench -- --list` from cargo test --benches: nothing to list.
        }
        let rounds = env_or("WAKEUP_ROUNDS", 400);
        let gap = Duration::from_millis(env_or("WAKEUP_GAP_MS", 20));
        // RUSAGE_CHILDREN accumulates over every reaped child, so each variant is a process of
        // its own: this one re-runs itself per variant and reads one figure back.
        if let Ok(variant) = std::env::var("WAKEUP_VARIANT") {
            let (gap, churn) = match variant.as_str() {
                "back-to-back" => (Duration::ZERO, false),
                "gap" => (gap, false),
                _ => (gap, true),
            };
            println!("{:.1}", run(rounds, gap, churn));
            return;
        }
        println!("responder CPU per wake-up, {rounds} rounds of a {MESSAGE}-byte echo:");
        for (variant, what) in [
            ("back-to-back", "messages back to back"),
            ("gap", &format!("{} ms apart, the driver idle", gap.as_millis()) as &str),
            ("churn", &format!("{} ms apart, the driver writing through 64 MiB between", gap.as_millis())),
        ] {
            let out = std::process::Command::new(std::env::current_exe().expect("this binary"))
                .env("WAKEUP_VARIANT", variant)
                .output()
                .expect("run a variant");
            println!("  {what}: {} µs", String::from_utf8_lossy(&out.stdout).trim());
        }
    }
}
