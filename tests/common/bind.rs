//! A throw-away BIND 9 server for the tests of the muxed dns provider (`tests/peer/e2e_dns.rs`):
//! Debian's `named` (installed by `scripts/test-tools.sh services`) on a free loopback port,
//! authoritative for `example.com.` with dynamic updates allowed to one TSIG key, its zone in a
//! fresh temp directory. As root it drops to the `bind` user (`named -u bind`).
//!
//! Main type: `Bind`. `start()` writes the configuration and the zone and waits until the
//! server answers; `dig()` asks it for a record set (as a user checks what a run did);
//! `nsupdate()` changes the zone out of band with the same key (drift); `stop()`/`restart()`
//! take it down and up on the same zone and port. Drop kills it and deletes its directory.
//!
//! Leftovers: as for MariaDB (`service::command`), the server carries the run's marker, leads
//! a process group of its own and dies with the thread that started it.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::Context as _;
use base64::Engine as _;

use super::service;

/// The zone every server serves.
pub const ZONE: &str = "example.com.";
/// The TSIG key's name and algorithm; its secret is made per server.
pub const KEY_NAME: &str = "tf.";
pub const KEY_ALGORITHM: &str = "hmac-sha256";

/// How long `named` may take to answer (a tenth of a second on an idle machine).
const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// One throw-away server.
pub struct Bind {
    dir: PathBuf,
    port: u16,
    secret: String,
    child: Option<Child>,
    owner: Option<(u32, u32)>,
}

fn program(name: &str) -> anyhow::Result<PathBuf> {
    service::program(name, if name == "named" { "bind9" } else { "bind9-dnsutils" })
}

impl Bind {
    /// Writes the configuration and the zone, and starts a server on a free loopback port.
    pub fn start(label: &str) -> anyhow::Result<Bind> {
        let owner = service::owner_when_root("bind")?;
        let dir = super::scratch_dir(&format!("bind-{label}"));
        let secret = base64::engine::general_purpose::STANDARD.encode(rand::random::<[u8; 32]>());
        let mut server = Bind { dir, port: service::free_port()?, secret, child: None, owner };
        let dir = server.dir.display().to_string();
        let config = format!(
            r#"options {{
  directory "{dir}"; pid-file "{dir}/named.pid"; session-keyfile "{dir}/session.key";
  listen-on port {port} {{ 127.0.0.1; }}; listen-on-v6 {{ none; }};
  recursion no; dnssec-validation no; check-integrity no;
}};
key "{KEY_NAME}" {{ algorithm {KEY_ALGORITHM}; secret "{secret}"; }};
controls {{ }};
zone "{ZONE}" {{ type primary; file "{dir}/db.example.com"; notify no; allow-update {{ key "{KEY_NAME}"; }}; }};
"#,
            port = server.port,
            secret = server.secret,
        );
        std::fs::write(server.dir.join("named.conf"), config)?;
        std::fs::write(
            server.dir.join("db.example.com"),
            "$TTL 300\n@ IN SOA ns.example.com. hostmaster.example.com. (1 3600 600 86400 300)\n\
             @ IN NS ns.example.com.\nns IN A 127.0.0.1\n",
        )?;
        for file in ["", "named.conf", "db.example.com"] {
            service::chown(&server.dir.join(file), owner)?;
        }
        server.launch()?;
        Ok(server)
    }

    fn launch(&mut self) -> anyhow::Result<()> {
        let log = self.dir.join("named.log");
        let mut command = service::command(&program("named")?, &self.dir, None);
        command.arg("-c").arg(self.dir.join("named.conf")).args(["-f", "-n", "1"]).arg("-L").arg(&log);
        if self.owner.is_some() {
            // named binds its port as root, then becomes `bind`.
            command.args(["-u", "bind"]);
        }
        let child = command.stdout(Stdio::null()).stderr(Stdio::null()).spawn().context("start named")?;
        let waiting_for = format!("answer on port {}", self.port);
        let ready = || self.dig("ns.example.com.", "A").is_ok_and(|answer| answer == ["127.0.0.1"]);
        let poll = Duration::from_millis(50);
        let child = service::wait_until_ready(child, "named", &log, &waiting_for, READY_TIMEOUT, poll, ready)?;
        self.child = Some(child);
        Ok(())
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The TSIG key's secret (base64), as the provider's `key_secret` takes it.
    pub fn secret(&self) -> &str {
        &self.secret
    }

    /// The record set `name` of type `rtype` as `dig +short` prints it, sorted; empty when
    /// there is none. Fails when the server does not answer.
    pub fn dig(&self, name: &str, rtype: &str) -> anyhow::Result<Vec<String>> {
        let output = Command::new(program("dig")?)
            .args(["+short", "+tries=1", "+time=2", "@127.0.0.1", "-p", &self.port.to_string(), name, rtype])
            .stdin(Stdio::null())
            .output()
            .context("run dig")?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        anyhow::ensure!(
            output.status.success() && !stdout.contains(";;"),
            "dig {name} {rtype} failed: {stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let mut lines: Vec<String> = stdout.lines().map(str::to_owned).collect();
        lines.sort();
        Ok(lines)
    }

    /// Sends `updates` (nsupdate commands, such as `update add www.example.com. 300 A
    /// 192.0.2.9`) to the zone, signed with the key: a change made out of band.
    pub fn nsupdate(&self, updates: &str) -> anyhow::Result<()> {
        let mut child = Command::new(program("nsupdate")?)
            .arg("-y")
            .arg(format!("{KEY_ALGORITHM}:{KEY_NAME}:{}", self.secret))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("run nsupdate")?;
        let script = format!("server 127.0.0.1 {}\nzone {ZONE}\n{updates}\nsend\n", self.port);
        child.stdin.take().context("nsupdate's stdin")?.write_all(script.as_bytes())?;
        let output = child.wait_with_output()?;
        anyhow::ensure!(
            output.status.success(),
            "nsupdate failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        Ok(())
    }

    /// Stops the server (SIGKILL; its journal keeps the updates it acknowledged).
    pub fn stop(&mut self) {
        service::stop(&mut self.child);
    }

    /// Starts the server again on the same zone and port.
    pub fn restart(&mut self) -> anyhow::Result<()> {
        self.stop();
        self.launch()
    }
}

impl Drop for Bind {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
