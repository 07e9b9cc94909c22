//! Starting and owning a provider process: no child outlives us.
//!
//! On Unix three mechanisms together make sure of that. The child gets
//! `PR_SET_PDEATHSIG(SIGKILL)` (Linux), so the kernel kills it when we die, even by SIGKILL.
//! It runs in its own process group, so killing it also kills anything it started. And
//! dropping the owner kills it.
//!
//! `PR_SET_PDEATHSIG` fires when the *thread* that forked the child exits, not the process.
//! Tokio may spawn from a short-lived blocking-pool thread, so every spawn happens on one
//! dedicated thread that lives as long as the process.
//!
//! On Windows one mechanism does both jobs: each child is put in a Job Object of its own
//! with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`, and the job's only handle is ours. Killing
//! the job kills the child and everything it started; and when we die, however we die, the
//! system closes our handles, which kills the job.

use std::io;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, OnceLock, mpsc};

use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStderr, ChildStdout, Command};
use tokio::sync::{oneshot, watch};

use tfbridge_proto::goplugin;

use super::output::{LineSplitter, ProviderOutput, Stream};

/// A running provider process that we started and must stop.
pub(crate) struct OwnedProcess {
    pub(crate) pid: u32,
    exit: watch::Receiver<Option<ExitStatus>>,
    stderr_closed: watch::Receiver<bool>,
    /// Sending, or dropping, this kills the process group.
    kill: Option<oneshot::Sender<()>>,
    tree: Arc<ProcessTree>,
}

/// What [`spawn`] hands back besides the process: the first stdout line, if any.
pub(crate) struct Spawned {
    pub(crate) process: OwnedProcess,
    /// Resolves with the first stdout line, or fails if stdout closed before one came.
    pub(crate) first_stdout_line: oneshot::Receiver<String>,
}

type SpawnJob = (tokio::runtime::Handle, Command, oneshot::Sender<io::Result<Child>>);

/// The dedicated spawning thread (see the module docs); `None` if it could not be started.
fn spawner() -> Option<&'static mpsc::Sender<SpawnJob>> {
    static SPAWNER: OnceLock<Option<mpsc::Sender<SpawnJob>>> = OnceLock::new();
    SPAWNER
        .get_or_init(|| {
            let (sender, receiver) = mpsc::channel::<SpawnJob>();
            let thread = std::thread::Builder::new().name("tfplugin-spawner".to_owned()).spawn(move || {
                for (handle, mut command, reply) in receiver {
                    // The child's pipes register with the caller's runtime.
                    let _guard = handle.enter();
                    let _ = reply.send(command.spawn());
                }
            });
            thread.ok().map(|_| sender)
        })
        .as_ref()
}

/// Starts `command` (stdout and stderr piped, stdin null) and the tasks that read its
/// output and wait for its exit.
pub(crate) async fn spawn(mut command: Command, output: Arc<ProviderOutput>) -> io::Result<Spawned> {
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    #[cfg(target_os = "linux")]
    {
        let parent_pid = std::process::id();
        // SAFETY: the closure runs between fork and exec and only makes async-signal-safe
        // system calls; it does not allocate.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                    return Err(io::Error::last_os_error());
                }
                // If we died between fork and prctl, the signal will never come.
                if libc::getppid() as u32 != parent_pid {
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
    }
    let (reply_sender, reply) = oneshot::channel();
    spawner()
        .ok_or_else(|| io::Error::other("could not start the provider spawner thread"))?
        .send((tokio::runtime::Handle::current(), command, reply_sender))
        .map_err(|_| io::Error::other("the provider spawner thread is gone"))?;
    let mut child = reply.await.map_err(|_| io::Error::other("the provider spawner thread is gone"))??;

    let pid = child.id().unwrap_or_default();
    let tree = Arc::new(ProcessTree::of(&child, pid));
    let stdout = child.stdout.take().ok_or_else(|| io::Error::other("no stdout pipe"))?;
    let stderr = child.stderr.take().ok_or_else(|| io::Error::other("no stderr pipe"))?;

    let (stderr_closed_sender, stderr_closed) = watch::channel(false);
    tokio::spawn(read_stderr(stderr, output.clone(), stderr_closed_sender));
    let (first_line_sender, first_stdout_line) = oneshot::channel();
    tokio::spawn(read_stdout(stdout, output, first_line_sender));

    let (exit_sender, exit) = watch::channel(None);
    let (kill, kill_requested) = oneshot::channel::<()>();
    let task_tree = tree.clone();
    tokio::spawn(async move {
        let status = tokio::select! {
            status = child.wait() => status,
            // Fires when asked to kill and when the owner is dropped.
            _ = kill_requested => {
                task_tree.kill();
                let _ = child.start_kill();
                child.wait().await
            }
        };
        // A failed wait leaves the status unknown; report it as a signal-less exit.
        #[cfg(unix)]
        let unknown = <ExitStatus as std::os::unix::process::ExitStatusExt>::from_raw(-1);
        #[cfg(windows)]
        let unknown = <ExitStatus as std::os::windows::process::ExitStatusExt>::from_raw(u32::MAX);
        let status = status.unwrap_or(unknown);
        let _ = exit_sender.send(Some(status));
    });

    Ok(Spawned { process: OwnedProcess { pid, exit, stderr_closed, kill: Some(kill), tree }, first_stdout_line })
}

/// The provider and whatever it started, as one thing to kill: its process group on Unix,
/// its Job Object on Windows (see the module docs).
struct ProcessTree {
    #[cfg(unix)]
    pid: u32,
    /// `None` if the job could not be made; then only the child itself is killed.
    #[cfg(windows)]
    job: Option<std::os::windows::io::OwnedHandle>,
}

impl ProcessTree {
    #[cfg(unix)]
    fn of(_child: &Child, pid: u32) -> ProcessTree {
        ProcessTree { pid }
    }

    /// The child runs for a moment outside the job, between its start and the assignment: a
    /// Terraform provider starts nothing before its handshake, so nothing escapes.
    #[cfg(windows)]
    fn of(child: &Child, pid: u32) -> ProcessTree {
        let job =
            child.raw_handle().ok_or_else(|| io::Error::other("the process has no handle")).and_then(job::contain);
        let job = job
            .map_err(|err| tracing::warn!(pid, "cannot put the provider in a Job Object: {err}; it may outlive us"))
            .ok();
        ProcessTree { job }
    }

    #[cfg(unix)]
    fn kill(&self) {
        if let Ok(pid) = i32::try_from(self.pid)
            && pid > 0
        {
            // SAFETY: kill(2) with a negative pid signals the process group we created.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }

    #[cfg(windows)]
    fn kill(&self) {
        if let Some(job) = &self.job {
            job::terminate(job);
        }
    }
}

#[cfg(windows)]
mod job {
    use std::io;
    use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle, RawHandle};

    use windows_sys::Win32::System::JobObjects::{
        AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation, SetInformationJobObject,
        TerminateJobObject,
    };

    /// A new job, killed when its last handle closes, holding `process`.
    pub(super) fn contain(process: RawHandle) -> io::Result<OwnedHandle> {
        // SAFETY: CreateJobObjectW takes null for default security and no name; a non-null
        // result is a handle we own from here on.
        let job = unsafe {
            let job = CreateJobObjectW(std::ptr::null(), std::ptr::null());
            if job.is_null() {
                return Err(io::Error::last_os_error());
            }
            OwnedHandle::from_raw_handle(job)
        };
        // SAFETY: plain data; zero is "no limits" for every field but the one we set.
        let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        let size = u32::try_from(std::mem::size_of_val(&limits)).map_err(io::Error::other)?;
        // SAFETY: `limits` is the structure this information class names, of `size` bytes;
        // both handles are valid for the calls.
        unsafe {
            if SetInformationJobObject(
                job.as_raw_handle(),
                JobObjectExtendedLimitInformation,
                (&raw const limits).cast(),
                size,
            ) == 0
            {
                return Err(io::Error::last_os_error());
            }
            if AssignProcessToJobObject(job.as_raw_handle(), process) == 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(job)
    }

    pub(super) fn terminate(job: &OwnedHandle) {
        // SAFETY: `job` is a job handle we own. A job whose processes have all exited is
        // terminated harmlessly.
        unsafe {
            TerminateJobObject(job.as_raw_handle(), 1);
        }
    }
}

async fn read_stderr(mut stderr: ChildStderr, output: Arc<ProviderOutput>, closed: watch::Sender<bool>) {
    let mut splitter = LineSplitter::default();
    let mut buffer = vec![0u8; 16 * 1024];
    let mut record = |line: &str| output.record_line(Stream::Stderr, line);
    while let Ok(n) = stderr.read(&mut buffer).await {
        if n == 0 {
            break;
        }
        splitter.push(&buffer[..n], &mut record);
    }
    splitter.finish(&mut record);
    let _ = closed.send(true);
}

/// Hands the first line to the launcher, then keeps draining stdout so the provider never
/// blocks on a full pipe. go-plugin discards later stdout lines; we log them.
async fn read_stdout(mut stdout: ChildStdout, output: Arc<ProviderOutput>, first_line: oneshot::Sender<String>) {
    let mut splitter = LineSplitter::default();
    let mut buffer = vec![0u8; 16 * 1024];
    let mut first_line = Some(first_line);
    let mut handle_line = |line: &str| match first_line.take() {
        Some(sender) => {
            let _ = sender.send(line.to_owned());
        }
        None => output.record_line(Stream::Stdout, line),
    };
    while let Ok(n) = stdout.read(&mut buffer).await {
        if n == 0 {
            break;
        }
        splitter.push(&buffer[..n], &mut handle_line);
    }
    splitter.finish(&mut handle_line);
}

/// How long a process gets to exit after it closed stdout or was asked to stop, and how long
/// we wait for its last stderr lines.
pub(super) const EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

impl OwnedProcess {
    /// The exit status, if the process has exited.
    pub(crate) fn exit_status(&self) -> Option<ExitStatus> {
        *self.exit.borrow()
    }

    /// Waits for the process to exit; `None` if it did not within `timeout`.
    pub(crate) async fn wait_for_exit(&self, timeout: std::time::Duration) -> Option<ExitStatus> {
        let mut exit = self.exit.clone();
        let waited = tokio::time::timeout(timeout, exit.wait_for(Option::is_some)).await;
        match waited {
            Ok(Ok(status)) => *status,
            _ => self.exit_status(),
        }
    }

    /// Waits until stderr reached end of file, so the last lines (a panic) are recorded.
    /// Bounded, because a grandchild may hold the pipe open.
    pub(crate) async fn wait_for_stderr_closed(&self, timeout: std::time::Duration) {
        let mut closed = self.stderr_closed.clone();
        let _ = tokio::time::timeout(timeout, closed.wait_for(|closed| *closed)).await;
    }

    /// Stops the process the way go-plugin's `Kill` does: asks through GRPCController.Shutdown
    /// on `channel`, gives it `EXIT_GRACE`, then kills it.
    pub(crate) async fn shut_down(&mut self, channel: tonic::transport::Channel) {
        let mut controller = goplugin::grpc_controller_client::GrpcControllerClient::new(channel);
        // The provider stops its server while answering, so the reply often never arrives;
        // either way we then watch the process.
        let _ = tokio::time::timeout(EXIT_GRACE, controller.shutdown(goplugin::Empty {})).await;
        if self.wait_for_exit(EXIT_GRACE).await.is_none() {
            tracing::debug!(pid = self.pid, "provider did not exit after Shutdown; killing it");
            self.kill().await;
        }
    }

    /// Kills the process group and waits (briefly) for the exit to be reaped.
    pub(crate) async fn kill(&mut self) -> Option<ExitStatus> {
        if let Some(kill) = self.kill.take() {
            let _ = kill.send(());
        }
        self.wait_for_exit(std::time::Duration::from_secs(5)).await
    }
}

impl Drop for OwnedProcess {
    fn drop(&mut self) {
        // The waiting task may be gone with its runtime; kill directly as well, unless the
        // process was already reaped (its pid may then belong to someone else).
        if self.kill.is_some() && self.exit_status().is_none() {
            self.tree.kill();
        }
        if let Some(kill) = self.kill.take() {
            let _ = kill.send(());
        }
    }
}
