//! The plugin binary, started the way the Pulumi engine starts it.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tfbridge_proto::pulumirpc;
use tfbridge_proto::pulumirpc::resource_provider_client::ResourceProviderClient;
use tonic::transport::Channel;

/// A running plugin process and the port it announced.
pub struct Plugin {
    pub child: Child,
    pub port: u16,
}

impl Plugin {
    pub fn start(args: &[&str]) -> Plugin {
        Plugin::start_binary(&super::implementation::our_plugin(), args)
    }

    /// Starts another provider binary the same way (e.g. the Go implementation).
    pub fn start_binary(binary: &std::path::Path, args: &[&str]) -> Plugin {
        Plugin::start_with_env(binary, args, &[])
    }

    /// Starts a provider binary with extra environment variables, as the leader of a process
    /// group of its own: the Terraform providers it starts join that group, and dropping the
    /// `Plugin` kills the whole group. The Go implementation leaves its providers running
    /// when it is killed, so killing only the plugin would orphan them.
    /// Its stderr is dropped unless `TFBRIDGE_TEST_PLUGIN_STDERR` is set (to see why a test
    /// hangs, say).
    pub fn start_with_env(binary: &std::path::Path, args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Plugin {
        let stderr =
            if std::env::var_os("TFBRIDGE_TEST_PLUGIN_STDERR").is_some() { Stdio::inherit() } else { Stdio::null() };
        Plugin::start_with_stderr(binary, args, env, stderr)
    }

    /// Like [`Plugin::start_with_env`], with the plugin's stderr going to `stderr` (a file the
    /// test reads afterwards, say).
    pub fn start_with_stderr(
        binary: &std::path::Path,
        args: &[&str],
        env: &[(&str, &std::ffi::OsStr)],
        stderr: impl Into<Stdio>,
    ) -> Plugin {
        let mut command = Command::new(binary);
        command.envs(env.iter().map(|(k, v)| (*k, *v))).args(args).stdin(Stdio::null()).stdout(Stdio::piped());
        command.stderr(stderr);
        // Windows has no process groups to kill; there our plugin's Job Objects end its
        // providers. A console process group of its own lets [`interrupt`] reach it, as the
        // engine makes one for each plugin (pulumi's cmdutil.RegisterProcessGroup).
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        #[cfg(windows)]
        std::os::windows::process::CommandExt::creation_flags(
            &mut command,
            windows_sys::Win32::System::Threading::CREATE_NEW_PROCESS_GROUP,
        );
        let mut child = command.spawn().expect("the plugin binary starts");
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut first_line = String::new();
        stdout.read_line(&mut first_line).expect("the first stdout line");
        let port = first_line.trim().parse().unwrap_or_else(|_| panic!("first stdout line is a port: {first_line:?}"));
        // Keep draining stdout so a chatty plugin could never block on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        Plugin { child, port }
    }

    pub async fn client(&self) -> ResourceProviderClient<Channel> {
        // The engine takes answers up to 400 MiB, as the plugin does (tonic's default is 4).
        ResourceProviderClient::connect(format!("http://127.0.0.1:{}", self.port))
            .await
            .expect("connects to the plugin")
            .max_decoding_message_size(tfbridge_proto::MAX_MESSAGE_SIZE)
            .max_encoding_message_size(tfbridge_proto::MAX_MESSAGE_SIZE)
    }

    /// Sends Parameterize and returns its answer.
    pub async fn parameterize(
        &self,
        parameters: pulumirpc::parameterize_request::Parameters,
    ) -> Result<pulumirpc::ParameterizeResponse, tonic::Status> {
        let request = pulumirpc::ParameterizeRequest { parameters: Some(parameters) };
        self.client().await.parameterize(request).await.map(tonic::Response::into_inner)
    }

    /// What the engine sends a plugin it closes: SIGINT on Unix, Ctrl+Break to the plugin's
    /// process group on Windows.
    pub fn interrupt(&self) {
        interrupt(&self.child);
    }

    #[cfg(unix)]
    pub fn signal(&self, signal: libc::c_int) {
        let pid = libc::pid_t::try_from(self.child.id()).expect("pid fits");
        // SAFETY: kill(2) with a pid we own and a valid signal number has no memory effects.
        let rc = unsafe { libc::kill(pid, signal) };
        assert_eq!(rc, 0, "kill({pid}, {signal})");
    }

    /// Closes the plugin as the engine does: the interrupt, then up to `limit` for it to
    /// finish (its schema cache writes, the provider's shutdown), then the kill of `Drop`.
    #[allow(dead_code)] // the benches' only
    pub fn close(self, limit: Duration) {
        self.interrupt();
        let start = Instant::now();
        let mut plugin = self;
        while start.elapsed() < limit {
            if plugin.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the process to exit, failing the test after `limit`.
    pub fn wait_exit(&mut self, limit: Duration) -> std::process::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(start.elapsed() < limit, "the plugin did not exit within {limit:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Plugin {
    fn drop(&mut self) {
        #[cfg(unix)]
        super::kill_process_group(self.child.id());
        #[cfg(not(unix))]
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// SIGINT on Unix; on Windows Ctrl+Break to the process group `child` leads (it must have
/// been started with `CREATE_NEW_PROCESS_GROUP`), as pulumi's cmdutil.Interrupt does.
pub fn interrupt(child: &Child) {
    #[cfg(unix)]
    {
        let pid = libc::pid_t::try_from(child.id()).expect("pid fits");
        // SAFETY: kill(2) with a pid we own and a valid signal number has no memory effects.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0, "kill SIGINT");
    }
    #[cfg(windows)]
    {
        use windows_sys::Win32::System::Console::{CTRL_BREAK_EVENT, GenerateConsoleCtrlEvent};
        // SAFETY: no memory is passed; the group id is our child's pid.
        let ok = unsafe { GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, child.id()) };
        assert_ne!(ok, 0, "GenerateConsoleCtrlEvent: {}", std::io::Error::last_os_error());
    }
}
