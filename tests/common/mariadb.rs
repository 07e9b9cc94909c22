//! A throw-away MariaDB server for the tests that need a real database (the MySQL provider's,
//! `tests/peer/e2e_mysql*.rs`): Debian's `mariadbd` (installed by `scripts/test-tools.sh services`)
//! on a free loopback port, with its data in a fresh temp directory, run as the `mysql` user
//! when the tests run as root (`mariadbd` refuses root) and as the current user otherwise.
//!
//! Main type: `MariaDb`. `start()` initialises a data directory, starts the server and sets a
//! root password (password-less root logins over TCP are dropped, so a wrong password really
//! fails); `sql()` runs statements through the `mariadb` client over TCP; `stop()`/`restart()`
//! take the server down and up again on the same data and port (for "the server is down"
//! scenarios). Drop kills the server and deletes its directory, whatever the outcome.
//!
//! Leftovers: the server carries the test run's `TFBRIDGE_TEST_RUN` marker (scripts/test.sh
//! kills and reports any `mariadbd` with it), runs in a process group of its own, and asks the
//! kernel for SIGKILL when the thread that started it ends (`PR_SET_PDEATHSIG`), so a test that
//! panics or is killed does not leave it behind either.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::Context as _;

use super::service;

/// The root password every throw-away server gets.
pub const ROOT_PASSWORD: &str = "rootpw-e2e-7c3a";

/// How long a server may take to accept connections (a second on an idle machine).
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// One throw-away server.
pub struct MariaDb {
    dir: PathBuf,
    port: u16,
    child: Option<Child>,
    /// `(uid, gid)` of the `mysql` user when running as root.
    owner: Option<(u32, u32)>,
}

fn program(name: &str) -> anyhow::Result<PathBuf> {
    service::program(name, "mariadb-server")
}

impl MariaDb {
    /// Initialises a data directory and starts a server on a free loopback port.
    pub fn start(label: &str) -> anyhow::Result<MariaDb> {
        let owner = service::owner_when_root("mysql")?;
        let dir = super::scratch_dir(&format!("mariadb-{label}"));
        let mut server = MariaDb { dir, port: service::free_port()?, child: None, owner };
        service::chown(&server.dir, owner)?;
        // Its own temp dir: bootstrap servers started at once in a shared /tmp trip over each
        // other's temporary tables.
        let tmp = server.dir.join("tmp");
        std::fs::create_dir_all(&tmp)?;
        service::chown(&tmp, owner)?;
        let install = server
            .command(&program("mariadb-install-db")?)
            .args(["--no-defaults", "--auth-root-authentication-method=normal", "--skip-test-db"])
            .arg(format!("--datadir={}", server.dir.join("data").display()))
            .arg(format!("--tmpdir={}", tmp.display()))
            .output()
            .context("run mariadb-install-db")?;
        anyhow::ensure!(
            install.status.success(),
            "mariadb-install-db failed: {}\n{}",
            String::from_utf8_lossy(&install.stdout),
            String::from_utf8_lossy(&install.stderr)
        );
        // The free port may be taken by someone else before the server binds it (any other
        // test or process on the machine asks the kernel for ports too): then another port.
        let mut attempts = 0;
        while let Err(err) = server.launch() {
            attempts += 1;
            if attempts >= 3 || !format!("{err:#}").contains("Address already in use") {
                return Err(err);
            }
            server.port = service::free_port()?;
        }
        // Root gets a password, over the socket; the password-less root@127.0.0.1 and friends go,
        // so that a TCP login from 127.0.0.1 authenticates as root@localhost with the password.
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        server.client_socket(&format!(
            "ALTER USER root@localhost IDENTIFIED BY '{ROOT_PASSWORD}'; \
             DROP USER IF EXISTS root@'127.0.0.1', root@'::1', root@'{}';",
            host.trim()
        ))?;
        server.sql("SELECT 1")?;
        Ok(server)
    }

    /// A command run as the server's owner, with its own temp dir (see [`service::command`]).
    fn command(&self, program: &Path) -> Command {
        let mut command = service::command(program, &self.dir, self.owner);
        command.env("TMPDIR", self.dir.join("tmp"));
        command
    }

    /// Starts `mariadbd` on the data directory and waits until it accepts connections.
    fn launch(&mut self) -> anyhow::Result<()> {
        let socket = self.socket();
        let _ = std::fs::remove_file(&socket);
        let log = self.dir.join("err.log");
        let child = self
            .command(&program("mariadbd")?)
            .args(["--no-defaults", "--bind-address=127.0.0.1", "--innodb-buffer-pool-size=64M"])
            .arg(format!("--datadir={}", self.dir.join("data").display()))
            .arg(format!("--tmpdir={}", self.dir.join("tmp").display()))
            .arg(format!("--port={}", self.port))
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--pid-file={}", self.dir.join("mariadbd.pid").display()))
            .arg(format!("--log-error={}", log.display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("start mariadbd")?;
        let waiting_for = format!("accept connections on port {}", self.port);
        let ready = || std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() && socket.exists();
        let poll = Duration::from_millis(100);
        let child = service::wait_until_ready(child, "mariadbd", &log, &waiting_for, READY_TIMEOUT, poll, ready)?;
        self.child = Some(child);
        Ok(())
    }

    fn socket(&self) -> PathBuf {
        self.dir.join("sock")
    }

    /// `127.0.0.1:<port>`, the provider's `endpoint`.
    pub fn endpoint(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Runs `sql` as root over TCP (as the provider connects) and returns the rows, tab
    /// separated, one per line, without column names.
    pub fn sql(&self, sql: &str) -> anyhow::Result<String> {
        let port = self.port.to_string();
        self.client(&["--protocol=TCP", "-h127.0.0.1", "-P", &port, "-uroot", &format!("-p{ROOT_PASSWORD}")], sql)
    }

    fn client_socket(&self, sql: &str) -> anyhow::Result<String> {
        self.client(&[&format!("--socket={}", self.socket().display()), "-uroot"], sql)
    }

    fn client(&self, connection: &[&str], sql: &str) -> anyhow::Result<String> {
        let output = Command::new(program("mariadb")?)
            .arg("--no-defaults")
            .args(connection)
            .args(["-N", "-B", "-e", sql])
            .stdin(Stdio::null())
            .output()
            .context("run the mariadb client")?;
        anyhow::ensure!(
            output.status.success(),
            "mariadb -e {sql:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        Ok(String::from_utf8(output.stdout)?)
    }

    /// Whether a database of that name exists.
    pub fn has_database(&self, name: &str) -> anyhow::Result<bool> {
        Ok(!self.sql(&format!("SELECT 1 FROM information_schema.schemata WHERE schema_name = '{name}'"))?.is_empty())
    }

    /// Whether the account `user@host` exists.
    pub fn has_user(&self, user: &str, host: &str) -> anyhow::Result<bool> {
        Ok(!self.sql(&format!("SELECT 1 FROM mysql.user WHERE user = '{user}' AND host = '{host}'"))?.is_empty())
    }

    /// The privileges `user@host` holds on `database.*`, sorted (`SELECT`, `INSERT`, ...).
    pub fn privileges(&self, user: &str, host: &str, database: &str) -> anyhow::Result<Vec<String>> {
        let rows = self.sql(&format!(
            "SELECT privilege_type FROM information_schema.schema_privileges \
             WHERE grantee = \"'{user}'@'{host}'\" AND table_schema = '{database}'"
        ))?;
        let mut privileges: Vec<String> = rows.lines().map(str::to_owned).collect();
        privileges.sort();
        Ok(privileges)
    }

    /// Stops the server (SIGKILL: nothing here needs a clean shutdown, and InnoDB recovers).
    pub fn stop(&mut self) {
        service::stop(&mut self.child);
    }

    /// Starts the server again on the same data and port.
    pub fn restart(&mut self) -> anyhow::Result<()> {
        self.stop();
        self.launch()
    }
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
