//! The MySQL provider (petoju's terraform-provider-mysql v3.0.88, SDKv2) against a throw-away
//! MariaDB server, from TypeScript on the SDK `pulumi package add` generates, with ours and
//! with the Go implementation (issue 20 item 1, "one SDK language"): up, checked with the
//! `mariadb` client; a no-change preview; an update in place (ids kept, the database keeps a
//! table made out of band); destroy, leaving nothing on the server. The YAML lifecycle, import,
//! drift, secrets, bad input and interop are in `e2e_mysql.rs`.
//!
//! Needs `scripts/test-tools.sh mysql pulumi languages anchor services`.

use crate::common;

use common::Implementation;
use common::mariadb::{MariaDb, ROOT_PASSWORD};
use common::programs::{Language, ProgramWorkspace};
use common::versions;

const PROGRAM: &str = r#"// A database, a user and a grant through an explicit provider, and a database through the
// default provider (configured from stack config).
import * as pulumi from "@pulumi/pulumi";
import * as mysql from "@pulumi/mysql";

const config = new pulumi.Config();
const server = new mysql.Provider("server", {
    endpoint: config.require("endpoint"),
    username: "root",
    password: config.requireSecret("rootPassword"),
    maxConnLifetimeSec: 300,
    connectRetryTimeoutSec: 5,
    iamDatabaseAuthentication: false,
});
const appdb = new mysql.Database("appdb", {
    name: "appdb",
    defaultCharacterSet: "utf8mb4",
    defaultCollation: config.get("collation") ?? "utf8mb4_general_ci",
}, { provider: server });
const app = new mysql.User("app", {
    user: "app",
    host: "localhost",
    plaintextPassword: config.requireSecret("appPassword"),
}, { provider: server });
const grant = new mysql.Grant("appGrant", {
    user: app.user,
    host: app.host,
    database: appdb.name,
    privileges: (config.get("privileges") ?? "SELECT").split(","),
}, { provider: server });
const reports = new mysql.Database("reports", { name: "reports" });

export const appdbId = appdb.id;
export const appId = app.id;
export const grantId = grant.id;
export const reportsId = reports.id;
"#;

fn lifecycle(implementation: Implementation) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let server = MariaDb::start(&format!("ts-{}", implementation.label()))?;
    let mut ws = ProgramWorkspace::new("mysql", implementation, Language::TypeScript)?;
    std::fs::write(ws.project_dir().join("index.ts"), PROGRAM)?;
    let provider = common::real_provider("mysql", versions::MYSQL)?;
    ws.add_local_binary(&provider, &[])?;
    ws.compile()?;
    ws.stack_init()?;
    ws.config_set("endpoint", &server.endpoint())?;
    ws.pulumi_ok(&["config", "set", "--secret", "rootPassword", ROOT_PASSWORD, "--non-interactive"])?;
    ws.pulumi_ok(&["config", "set", "--secret", "appPassword", "ts-app-pw-1", "--non-interactive"])?;
    ws.config_set("mysql:endpoint", &server.endpoint())?;
    ws.config_set("mysql:username", "root")?;
    ws.pulumi_ok(&["config", "set", "--secret", "mysql:password", ROOT_PASSWORD, "--non-interactive"])?;
    ws.config_set("mysql:connectRetryTimeoutSec", "5")?;

    let up = ws.up()?;
    assert!(server.has_database("appdb")? && server.has_database("reports")?, "{up}");
    assert!(server.has_user("app", "localhost")?, "{up}");
    assert_eq!(server.privileges("app", "localhost", "appdb")?, ["SELECT"], "{up}");
    let first = ws.stack_outputs(false)?;
    assert!(first["grantId"].as_str().is_some_and(|id| id.starts_with("app@localhost:`appdb`")), "{first:#}");
    ws.preview_expect_no_changes()?;

    server.sql("CREATE TABLE appdb.marker (id INT)")?;
    ws.config_set("privileges", "SELECT,INSERT")?;
    ws.config_set("collation", "utf8mb4_unicode_ci")?;
    let update = ws.up()?;
    assert!(update.stdout.contains("updated") && !update.stdout.contains("replaced"), "in place: {update}");
    assert_eq!(server.privileges("app", "localhost", "appdb")?, ["INSERT", "SELECT"], "{update}");
    assert_eq!(
        server
            .sql("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='appdb' AND table_name='marker'")?
            .trim(),
        "1",
        "the database was kept: {update}"
    );
    let second = ws.stack_outputs(false)?;
    assert_eq!(second, first, "every id kept");
    ws.preview_expect_no_changes()?;

    ws.destroy()?;
    assert!(ws.managed_resources()?.is_empty());
    assert!(!server.has_database("appdb")? && !server.has_database("reports")?);
    assert!(!server.has_user("app", "localhost")?);
    eprintln!("typescript mysql lifecycle with {} took {:?}", implementation.label(), started.elapsed());
    Ok(())
}

mod typescript_lifecycle {
    use super::Implementation;
    #[test]
    fn ours() -> anyhow::Result<()> {
        super::lifecycle(Implementation::Ours)
    }
    #[test]
    fn go() -> anyhow::Result<()> {
        super::lifecycle(Implementation::Go)
    }
}
