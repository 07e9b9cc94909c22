//! A throw-away PowerDNS Authoritative server for the tests of the plugin-framework provider
//! magodo/restful (`tests/peer/e2e_restful.rs`): Debian's `pdns_server` with the SQLite backend
//! (installed by `scripts/test-tools.sh services`), its HTTP API and its DNS port on free
//! loopback ports, its database in a fresh temp directory. As root it runs as `pdns`.
//!
//! Main type: `Pdns`. `start()` makes the database and the configuration and waits until the
//! API answers; `api()` sends one request as a user checks or changes the service (`curl`, with
//! the API key); `dig()` asks the DNS side; `stop()`/`restart()` take it down and up on the same
//! database and ports. Drop kills it and deletes its directory.
//!
//! Leftovers: as for MariaDB and BIND (`service::command`), the server carries the run's marker,
//! leads a process group of its own and dies with the thread that started it.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::Context as _;

use super::service;

/// How long the server may take to answer (a tenth of a second on an idle machine).
const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// One throw-away server.
pub struct Pdns {
    dir: PathBuf,
    api_port: u16,
    dns_port: u16,
    key: String,
    child: Option<Child>,
    owner: Option<(u32, u32)>,
}

/// One API answer: the HTTP status and the body (JSON when the API sent any).
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: serde_json::Value,
}

impl Pdns {
    /// Makes the database and the configuration, and starts a server on free loopback ports.
    pub fn start(label: &str) -> anyhow::Result<Pdns> {
        let owner = service::owner_when_root("pdns")?;
        let dir = super::scratch_dir(&format!("pdns-{label}"));
        let key = format!("key-{:016x}", rand::random::<u64>());
        let (api_port, dns_port) = (service::free_port()?, service::free_port()?);
        let server = Pdns { dir, api_port, dns_port, key, child: None, owner };
        let database = server.dir.join("pdns.sqlite3");
        let schema = std::fs::read("/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql")
            .context("the SQLite schema of pdns-backend-sqlite3: run scripts/test-tools.sh services")?;
        let mut sqlite = Command::new(service::program("sqlite3", "sqlite3")?)
            .arg(&database)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .context("run sqlite3")?;
        std::io::Write::write_all(&mut sqlite.stdin.take().context("sqlite3's stdin")?, &schema)?;
        let output = sqlite.wait_with_output()?;
        anyhow::ensure!(output.status.success(), "sqlite3: {}", String::from_utf8_lossy(&output.stderr));
        // No packet or query caches: `dig` must see each change at once, and a name that was
        // missing a moment ago must not stay missing for a minute.
        let config = format!(
            "launch=gsqlite3\ngsqlite3-database={db}\nlocal-address=127.0.0.1\nlocal-port={dns_port}\n\
             api=yes\napi-key={key}\nwebserver=yes\nwebserver-address=127.0.0.1\nwebserver-port={api_port}\n\
             webserver-allow-from=127.0.0.1\nsocket-dir={dir}\nguardian=no\ndaemon=no\ndisable-syslog=yes\n\
             cache-ttl=0\nquery-cache-ttl=0\nnegquery-cache-ttl=0\n",
            db = database.display(),
            dir = server.dir.display(),
            key = server.key,
        );
        std::fs::write(server.dir.join("pdns.conf"), config)?;
        for file in ["", "pdns.conf", "pdns.sqlite3"] {
            service::chown(&server.dir.join(file), owner)?;
        }
        let mut server = server;
        server.launch()?;
        Ok(server)
    }

    fn launch(&mut self) -> anyhow::Result<()> {
        let log = self.dir.join("pdns.log");
        let mut command = service::command(&service::program("pdns_server", "pdns-server")?, &self.dir, self.owner);
        command.arg(format!("--config-dir={}", self.dir.display()));
        let file = std::fs::File::create(&log)?;
        let child = command.stdout(file.try_clone()?).stderr(file).spawn().context("start pdns_server")?;
        let waiting_for = format!("answer on port {}", self.api_port);
        let ready = || self.api("GET", "/servers/localhost", None).is_ok_and(|answer| answer.status == 200);
        let poll = Duration::from_millis(50);
        let child = service::wait_until_ready(child, "pdns_server", &log, &waiting_for, READY_TIMEOUT, poll, ready)?;
        self.child = Some(child);
        Ok(())
    }

    /// The API's base URL, as the provider's `base_url` takes it.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/api/v1", self.api_port)
    }

    /// The API key (the `X-API-Key` header's value).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Sends `method` to `path` under the API's base URL with the key, and `body` as JSON.
    /// Fails only when the server does not answer.
    pub fn api(&self, method: &str, path: &str, body: Option<&serde_json::Value>) -> anyhow::Result<Answer> {
        let mut command = Command::new("curl");
        command
            .args(["-sS", "--max-time", "5", "-o", "-", "-w", "\n%{http_code}", "-X", method])
            .arg("-H")
            .arg(format!("X-API-Key: {}", self.key))
            .arg(format!("{}{path}", self.base_url()));
        if let Some(body) = body {
            command.args(["-H", "Content-Type: application/json", "--data-binary"]).arg(body.to_string());
        }
        let output = command.stdin(Stdio::null()).output().context("run curl")?;
        anyhow::ensure!(output.status.success(), "curl {method} {path}: {}", String::from_utf8_lossy(&output.stderr));
        let text = String::from_utf8_lossy(&output.stdout);
        let (body, status) = text.rsplit_once('\n').context("curl printed no status")?;
        let body = if body.trim().is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::from_str(body).unwrap_or_else(|_| serde_json::Value::String(body.to_owned()))
        };
        Ok(Answer { status: status.trim().parse()?, body })
    }

    /// The zone `name` (with its trailing dot) as the API shows it, or `None` when there is
    /// no such zone.
    pub fn zone(&self, name: &str) -> anyhow::Result<Option<serde_json::Value>> {
        let answer = self.api("GET", &format!("/servers/localhost/zones/{name}"), None)?;
        match answer.status {
            200 => Ok(Some(answer.body)),
            404 | 422 => Ok(None),
            status => anyhow::bail!("GET zone {name}: {status} {}", answer.body),
        }
    }

    /// The record set `name` of type `rtype` as `dig +short` prints it from the DNS side, sorted;
    /// empty when there is none.
    pub fn dig(&self, name: &str, rtype: &str) -> anyhow::Result<Vec<String>> {
        let output = Command::new(service::program("dig", "bind9-dnsutils")?)
            .args(["+short", "+tries=1", "+time=2", "@127.0.0.1", "-p", &self.dns_port.to_string(), name, rtype])
            .stdin(Stdio::null())
            .output()
            .context("run dig")?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        anyhow::ensure!(output.status.success() && !stdout.contains(";;"), "dig {name} {rtype} failed: {stdout}");
        let mut lines: Vec<String> = stdout.lines().map(str::to_owned).collect();
        lines.sort();
        Ok(lines)
    }

    /// Stops the server (SIGKILL; SQLite keeps what it committed).
    pub fn stop(&mut self) {
        service::stop(&mut self.child);
    }

    /// Starts the server again on the same database and ports.
    pub fn restart(&mut self) -> anyhow::Result<()> {
        self.stop();
        self.launch()
    }
}

impl Drop for Pdns {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
