//! A real SDKv2 provider against a real database (issue 20): petoju's terraform-provider-mysql
//! v3.0.88 (`scripts/test-tools.sh mysql`) against a throw-away MariaDB server on loopback
//! (`tests/common/mariadb.rs`), through the real Pulumi CLI, with ours and with the Go
//! implementation, in YAML (`examples/pulumi-yaml/mysql`):
//!
//! - the whole lifecycle, each step checked on the server with the `mariadb` client: up; a
//!   no-change preview; an update in place (the database keeps a table made out of band, the
//!   user keeps its grant, ids unchanged); drift made out of band, refresh, up; import through
//!   the explicit provider and through the default provider (configured from stack config,
//!   `pulumi config set mysql:endpoint …`), then the imported resources added to the program
//!   with no changes; destroy, with nothing left on the server;
//! - output discipline (issue 20 item 2): the same lifecycle prints no line with ours that it
//!   does not print with Go, apart from `ALLOWED_ONLY_OURS`; in particular no legacy-SDK
//!   tolerance warning and no unchanged set element shown as an update;
//! - secrets: up, an update of a password, refresh and destroy with `TFBRIDGE_LOG=trace`, the
//!   CLI's `-v=11` and `PULUMI_TF_DEBUG_GRPC`: no password in any log line of our plugin, in
//!   what the CLI shows, in the gRPC debug file or in the state files;
//! - bad input, each a clear error naming the resource, the cause and the value at fault
//!   (the provider's own errors carry no attribute path, with Terraform too), nothing lost on
//!   the server: the server down, wrong credentials, a grant of a missing role (a grant to a
//!   missing user is no error on MariaDB, see the test), a name the server rejects;
//! - interop (issue 20 item 3): a stack made by Go moves to ours and back with no changes at
//!   either switch, the provider's number and bool set in the program and from stack config;
//!   an update through ours in between happens in place.
//!
//! The TypeScript lifecycle is in `e2e_mysql_lang.rs`.
//!
//! Needs `scripts/test-tools.sh mysql pulumi anchor services`.

use crate::common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use common::Implementation;
use common::mariadb::{MariaDb, ROOT_PASSWORD};
use common::pulumi::{CommandOutput, Workspace, plugin_lines};
use common::service_suite::{self as suite, Suite, set_secret};
use common::versions;

/// The application user's passwords, before and after the update.
const APP_PASSWORD: &str = "app-pw-first-91f2";
const APP_PASSWORD_2: &str = "app-pw-second-4d8e";

/// The suite: the mysql provider against MariaDB, the `mysql` example. A stack's config sets
/// the explicit provider's from the program's config, and the default provider's as
/// `mysql:*` stack config (all strings, as `pulumi config set` writes them).
struct Mysql;

impl Suite for Mysql {
    type Server = MariaDb;

    fn start_server(label: &str) -> anyhow::Result<MariaDb> {
        MariaDb::start(label)
    }

    fn provider() -> anyhow::Result<PathBuf> {
        common::real_provider("mysql", versions::MYSQL)
    }

    fn write_program(ws: &Workspace) -> anyhow::Result<()> {
        ws.copy_example("mysql")
    }

    fn configure(ws: &mut Workspace, server: &MariaDb) -> anyhow::Result<()> {
        ws.config_set("endpoint", &server.endpoint())?;
        set_secret(ws, "rootPassword", ROOT_PASSWORD)?;
        set_secret(ws, "appPassword", APP_PASSWORD)?;
        ws.config_set("mysql:endpoint", &server.endpoint())?;
        ws.config_set("mysql:username", "root")?;
        set_secret(ws, "mysql:password", ROOT_PASSWORD)?;
        ws.config_set("mysql:maxConnLifetimeSec", "300")?;
        ws.config_set("mysql:connectRetryTimeoutSec", "5")?;
        ws.config_set("mysql:iamDatabaseAuthentication", "false")?;
        Ok(())
    }
}

/// The URN of the explicit provider, from the state.
fn provider_urn(ws: &mut Workspace) -> anyhow::Result<String> {
    let state = ws.stack_export()?;
    let resources = state["deployment"]["resources"].as_array().cloned().unwrap_or_default();
    resources
        .iter()
        .filter_map(|r| r["urn"].as_str())
        .find(|urn| urn.ends_with("pulumi:providers:mysql::server"))
        .map(str::to_owned)
        .ok_or_else(|| anyhow::anyhow!("no explicit provider `server` in the state: {state:#}"))
}

/// Whether `user` can log in with `password` (over the server's socket, as `user@localhost`).
fn can_log_in(server: &MariaDb, user: &str, password: &str) -> bool {
    let out = std::process::Command::new("mariadb")
        .args(["--no-defaults", "--protocol=TCP", "-h", "localhost", "-P", &server.port().to_string()])
        .args([&format!("-u{user}"), &format!("-p{password}"), "-N", "-B", "-e", "SELECT 1"])
        .output();
    out.is_ok_and(|o| o.status.success())
}

/// Every command the lifecycle ran, in order, for the output comparison.
struct Lifecycle {
    outputs: Vec<CommandOutput>,
    /// Fixed behaviour the lifecycle did not show (checked after both lifecycles ran).
    problems: Vec<String>,
}

/// The whole lifecycle for one implementation, checked on the server at each step.
fn lifecycle(
    implementation: Implementation,
    extra_env: &[(&str, &str)],
) -> anyhow::Result<(Lifecycle, Workspace, MariaDb)> {
    let server = MariaDb::start(&format!("lifecycle-{}", implementation.label()))?;
    let mut ws = suite::workspace_with_stack::<Mysql>("mysql", implementation, &server)?;
    for (key, value) in extra_env {
        ws.set_env(key, value);
    }
    let mut outputs = Vec::new();
    let mut problems = Vec::new();

    // Up: the objects are on the server.
    let up = ws.up()?;
    assert!(server.has_database("appdb")? && server.has_database("reports")?, "{up}");
    assert!(server.has_user("app", "localhost")?, "{up}");
    assert_eq!(server.privileges("app", "localhost", "appdb")?, ["SELECT"], "{up}");
    assert!(can_log_in(&server, "app", APP_PASSWORD), "the app user logs in with its password");
    assert_eq!(
        server.sql("SELECT default_collation_name FROM information_schema.schemata WHERE schema_name='appdb'")?.trim(),
        "utf8mb4_general_ci"
    );
    let first = ws.stack_outputs(false)?;
    assert_eq!(first["appdbId"], "appdb", "{first:#}");
    assert_eq!(first["reportsId"], "reports", "the default provider (stack config) made it: {first:#}");
    outputs.push(up);

    // A no-change preview.
    outputs.push(ws.preview_expect_no_changes()?);

    // An update in place: the grant gains a privilege, the user a new password, the database
    // a new collation. A table made out of band shows the database was not recreated.
    server.sql("CREATE TABLE appdb.marker (id INT)")?;
    ws.edit_program("        - SELECT\n", "        - SELECT\n        - INSERT\n")?;
    ws.edit_program("      defaultCollation: utf8mb4_general_ci\n", "      defaultCollation: utf8mb4_unicode_ci\n")?;
    set_secret(&mut ws, "appPassword", APP_PASSWORD_2)?;
    let preview = ws.preview()?;
    // Checked at the end (output discipline), so that the lifecycle runs through first.
    if let Some(line) = preview.stdout.lines().find(|l| l.contains(r#""SELECT" => "SELECT""#)) {
        problems.push(format!("preview --diff shows an unchanged set element as an update: {}", line.trim()));
    }
    assert!(preview.stdout.contains("INSERT"), "the added privilege is shown: {preview}");
    outputs.push(preview);
    let update = ws.up()?;
    assert!(update.stdout.contains("updated") && !update.stdout.contains("replaced"), "in place: {update}");
    assert_eq!(server.privileges("app", "localhost", "appdb")?, ["INSERT", "SELECT"], "{update}");
    assert!(can_log_in(&server, "app", APP_PASSWORD_2), "the new password works: {update}");
    assert!(!can_log_in(&server, "app", APP_PASSWORD), "the old password no longer works");
    assert_eq!(
        server
            .sql("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='appdb' AND table_name='marker'")?
            .trim(),
        "1",
        "the database was kept: {update}"
    );
    assert_eq!(
        server.sql("SELECT default_collation_name FROM information_schema.schemata WHERE schema_name='appdb'")?.trim(),
        "utf8mb4_unicode_ci"
    );
    let second = ws.stack_outputs(false)?;
    for key in ["appdbId", "appId", "grantId", "reportsId"] {
        assert_eq!(second[key], first[key], "{key} kept its id: {second:#}");
    }
    outputs.push(update);
    outputs.push(ws.preview_expect_no_changes()?);

    // Drift made out of band: a privilege taken away; refresh sees it, up repairs it.
    server.sql("REVOKE INSERT ON appdb.* FROM 'app'@'localhost'")?;
    let refresh = ws.refresh()?;
    let grant = ws.resource_state("appGrant")?;
    let privileges = grant["outputs"]["privileges"].clone();
    assert_eq!(privileges, serde_json::json!(["SELECT"]), "refresh read the drift: {grant:#}\n{refresh}");
    outputs.push(refresh);
    let repair = ws.up()?;
    assert_eq!(server.privileges("app", "localhost", "appdb")?, ["INSERT", "SELECT"], "{repair}");
    outputs.push(repair);
    outputs.push(ws.preview_expect_no_changes()?);

    // Import through the explicit provider (with code generation, as a user runs it) and
    // through the default provider; then the program gains both and shows no changes.
    server.sql("CREATE DATABASE legacy CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci")?;
    server.sql("CREATE DATABASE archive CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci")?;
    let urn = provider_urn(&mut ws)?;
    let legacy_code = ws.root().join("legacy.yaml");
    let explicit = ws.pulumi(&[
        "import",
        "mysql:index/database:Database",
        "legacy",
        "legacy",
        "--provider",
        &format!("server={urn}"),
        "--yes",
        "--protect=false",
        "--out",
        legacy_code.to_str().expect("a UTF-8 path"),
        "--non-interactive",
    ])?;
    let imported = ws.resource_state("legacy")?;
    assert_eq!(imported["id"], "legacy", "{imported:#}\n{explicit}");
    assert_eq!(imported["outputs"]["defaultCollation"], "utf8mb4_general_ci", "{imported:#}");
    match implementation {
        // Issue 20 item 4; checked at the end, so that the lifecycle runs through first.
        Implementation::Ours if !explicit.success() => {
            problems.push(format!("import through an explicit provider exits non-zero: {explicit}"))
        }
        Implementation::Ours => {}
        // Go's behaviour, asserted beside ours: the resource lands in the state, then the CLI's
        // code generation fails on the local provider's package version.
        Implementation::Go => assert!(
            !explicit.success() && explicit.stderr.contains("unexpected parameterization response: 0.0.0 !="),
            "{explicit}"
        ),
    }
    outputs.push(explicit);
    // Through the default provider, with the code `pulumi import` writes.
    let archive_code = ws.root().join("archive.yaml");
    outputs.push(ws.pulumi_ok(&[
        "import",
        "mysql:index/database:Database",
        "archive",
        "archive",
        "--yes",
        "--protect=false",
        "--out",
        archive_code.to_str().expect("a UTF-8 path"),
        "--non-interactive",
    ])?);
    assert_eq!(ws.resource_state("archive")?["id"], "archive");
    // The generated programs, used unchanged (issue 29 item 4). Go's explicit import writes
    // none, so its `legacy` is written by hand.
    let mut added = common::pulumi::generated_resources(&archive_code)?;
    match implementation {
        Implementation::Ours => added.push_str(&common::pulumi::generated_resources(&legacy_code)?),
        Implementation::Go => added.push_str(
            "  legacy:\n    type: mysql:index/database:Database\n    properties:\n      name: legacy\n    options:\n      provider: ${server}\n",
        ),
    }
    let program = ws.program()?;
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), program.replace("outputs:\n", &format!("{added}outputs:\n")))?;
    match implementation {
        Implementation::Ours => {
            let unchanged = ws.preview_expect_no_changes()?;
            if unchanged.all_text().contains("warning") {
                problems.push(format!("the imported code warns: {unchanged}"));
            }
            outputs.push(unchanged);
        }
        // Go's generated code sets the implicit `id` (`databaseId: archive`), which its Check
        // rejects: the preview fails until the line is taken out by hand.
        Implementation::Go => {
            let rejected = ws.pulumi_fails(&["preview", "--expect-no-changes", "--non-interactive"])?;
            assert!(
                rejected.all_text().contains("Invalid or unknown key")
                    && rejected.all_text().contains("archive.databaseId"),
                "{rejected}"
            );
            let program = ws.program()?;
            let fixed: Vec<&str> =
                program.lines().filter(|line| !line.trim_start().starts_with("databaseId:")).collect();
            std::fs::write(ws.project_dir().join("Pulumi.yaml"), fixed.join("\n") + "\n")?;
            outputs.push(ws.preview_expect_no_changes()?);
        }
    }

    // Destroy: nothing left on the server but what was there before.
    outputs.push(ws.destroy()?);
    assert!(ws.managed_resources()?.is_empty());
    for database in ["appdb", "reports", "legacy", "archive"] {
        assert!(!server.has_database(database)?, "{database} is left on the server");
    }
    assert!(!server.has_user("app", "localhost")?, "the user is left on the server");
    Ok((Lifecycle { outputs, problems }, ws, server))
}

/// Lines a lifecycle printed, with what differs between any two runs (ids of temp dirs,
/// ports, durations, versions of the plugin) replaced, so the two implementations compare.
fn normalized_lines(lifecycle: &Lifecycle, server: &MariaDb) -> BTreeSet<String> {
    let mut lines = BTreeSet::new();
    for output in &lifecycle.outputs {
        for line in output.stdout.lines().chain(output.stderr.lines()) {
            // What follows is the code `pulumi import` generates, which Go never gets to (its
            // import through an explicit provider fails first: issue 20 item 4).
            if line.contains("Please copy the following code into your Pulumi application") {
                lines.insert(line.trim_end().to_owned());
                break;
            }
            // Progress lines ("@ updating....") come only when a step outlasts a second.
            if line.trim_start().starts_with('@') {
                continue;
            }
            if let Some(line) = normalize(line, server) {
                lines.insert(line);
            }
        }
    }
    lines
}

/// One line with what differs between any two runs replaced: the server's address, durations,
/// provider ids (fresh UUIDs), the plugin's version, and the padding the CLI aligns a column
/// of properties with (it depends on the longest name in the column). `None` for a blank line.
fn normalize(line: &str, server: &MariaDb) -> Option<String> {
    let mut line = line.replace(&server.endpoint(), "<endpoint>").replace(&server.port().to_string(), "<port>");
    line = regex_lite_durations(&line);
    for implementation in Implementation::ALL {
        line = line.replace(&format!("\"{}\"", implementation.plugin_version()), "\"<plugin-version>\"");
    }
    let reference = line.find("pulumi:providers:mysql::").and_then(|at| Some((at, at + line[at..].find(']')?)));
    if let Some((at, end)) = reference
        && let Some((name, id)) = line[at..end].rsplit_once("::")
        && id.len() == 36
        && id.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
    {
        line = format!("{}{name}::<uuid>{}", &line[..at], &line[end..]);
    }
    let mut collapsed = String::with_capacity(line.len());
    let mut rest = line.as_str();
    while let Some(at) = rest.find(" :") {
        // `name    : value` -> `name: value`, only for padding after a property name.
        let before = rest[..at].trim_end_matches(' ');
        if !before.is_empty() && !before.ends_with(' ') && rest[at..].trim_start_matches(' ').starts_with(": ") {
            collapsed.push_str(before);
            rest = rest[at..].trim_start_matches(' ');
        } else {
            collapsed.push_str(&rest[..at + 2]);
            rest = &rest[at + 2..];
        }
    }
    collapsed.push_str(rest);
    let trimmed = collapsed.trim_end();
    (!trimmed.trim().is_empty()).then(|| trimmed.to_owned())
}

/// Replaces every duration (`12s`, `0.52s`, `1m2s`, `340ms`) with `<d>`.
fn regex_lite_durations(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts_word = i == 0 || !chars[i - 1].is_ascii_alphanumeric();
        if starts_word && chars[i].is_ascii_digit() {
            let mut j = i;
            let mut saw_unit = false;
            while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.' || "hms".contains(chars[j])) {
                saw_unit |= "hms".contains(chars[j]);
                j += 1;
            }
            let ends_word = j == chars.len() || !chars[j].is_ascii_alphanumeric();
            if saw_unit && ends_word && "hms".contains(chars[j - 1]) {
                out.push_str("<d>");
                i = j;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// Lines ours may print that Go does not, each with its reason (docs/transcript.md lists them).
const ALLOWED_ONLY_OURS: &[(&str, &str)] = &[
    (
        "Please copy the following code into your Pulumi application",
        "`pulumi import` through an explicit provider finishes with ours and prints the code it \
         generated; Go's fails before code generation (issue 20 item 4)",
    ),
    (
        " imported (<d>)",
        "the import's line without Go's warnings (`One or more imported inputs failed to \
         validate` and `Invalid or unknown key. Examine values at 'legacy.databaseId'`): Go's \
         imported inputs set the implicit `id`, which its Check rejects; ours leave it out \
         (issue 29 item 4)",
    ),
    (
        "~ plaintextPassword: [secret] => [secret]",
        "the changed password marked as changed in the detailed diff; Go lists it unmarked \
         (`plaintextPassword: [secret]`) beside the unchanged `host` and `user`",
    ),
];

/// Issue 20 items 1 and 2: the lifecycle with both implementations; ours prints no line that
/// Go does not, apart from `ALLOWED_ONLY_OURS`: in particular no legacy-SDK tolerance warning
/// and no unchanged set element shown as an update.
#[test]
fn yaml_lifecycle_with_both_and_no_line_go_does_not_print() -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let (ours, _ours_ws, ours_server) = lifecycle(Implementation::Ours, &[])?;
    eprintln!("the lifecycle with ours took {:?}", started.elapsed());
    let (go, _go_ws, go_server) = lifecycle(Implementation::Go, &[])?;
    eprintln!("both lifecycles took {:?}", started.elapsed());

    let mut problems = ours.problems.clone();
    let tolerating = ours
        .outputs
        .iter()
        .flat_map(|o| o.stdout.lines().chain(o.stderr.lines()))
        .filter(|l| l.contains("using the legacy plugin SDK"))
        .count();
    if tolerating > 0 {
        problems.push(format!("the legacy-SDK tolerance is shown to the user {tolerating} times"));
    }
    let ours_lines = normalized_lines(&ours, &ours_server);
    let go_lines = normalized_lines(&go, &go_server);
    let only_ours: Vec<&String> = ours_lines
        .difference(&go_lines)
        .filter(|line| !ALLOWED_ONLY_OURS.iter().any(|(allowed, _)| line.contains(allowed)))
        .collect();
    if !only_ours.is_empty() {
        problems.push(format!(
            "{} lines only ours prints:\n{}",
            only_ours.len(),
            only_ours.iter().map(|l| format!("  {l}\n")).collect::<String>()
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    Ok(())
}

/// Secrets (the root password of both providers, the user's passwords before and after an
/// update) in no log line of our plugin at trace level, not in what the CLI shows, not in
/// the `PULUMI_TF_DEBUG_GRPC` file, not in any state file.
#[test]
fn no_password_in_any_log_at_trace_level_nor_in_state() -> anyhow::Result<()> {
    let server = MariaDb::start("secrets")?;
    let mut ws = suite::workspace_with_stack::<Mysql>("mysql-secrets", Implementation::Ours, &server)?;
    let grpc_log = ws.root().join("tf-grpc.jsonl");
    ws.set_env("TFBRIDGE_LOG", "trace");
    ws.set_env("PULUMI_TF_DEBUG_GRPC", grpc_log.to_str().expect("a UTF-8 path"));
    let verbose = ["--logtostderr", "--logflow", "-v=11"];
    let run = |ws: &mut Workspace, args: &[&str]| -> anyhow::Result<CommandOutput> {
        let mut all = args.to_vec();
        all.extend(verbose);
        ws.pulumi_ok(&all)
    };
    run(&mut ws, &["up", "--yes", "--skip-preview", "--non-interactive"])?;
    assert!(can_log_in(&server, "app", APP_PASSWORD));
    set_secret(&mut ws, "appPassword", APP_PASSWORD_2)?;
    run(&mut ws, &["preview", "--diff", "--non-interactive"])?;
    run(&mut ws, &["up", "--yes", "--skip-preview", "--non-interactive"])?;
    assert!(can_log_in(&server, "app", APP_PASSWORD_2), "the update reached the server");
    run(&mut ws, &["refresh", "--yes", "--skip-preview", "--non-interactive"])?;
    let secrets = [ROOT_PASSWORD, APP_PASSWORD, APP_PASSWORD_2];

    // Every place a password shows up, collected so one run reports them all.
    let mut leaks = Vec::new();
    let mut ours = Vec::new();
    for (path, text) in common::files_under(&ws.root().join("logs")) {
        if path.extension().is_some_and(|e| e == "stdout") {
            leaks.extend(
                secrets.iter().filter(|s| text.contains(**s)).map(|s| format!("{} shows {s:?}", path.display())),
            );
        } else {
            ours.extend(plugin_lines(&text));
        }
    }
    // Not vacuous: our trace lines are there, down to the provider calls.
    assert!(ours.len() > 200, "only {} lines of our plugin in the logs", ours.len());
    assert!(ours.iter().any(|l| l.contains("TRACE")), "no TRACE line of ours in the logs");
    for line in ours.iter().filter(|line| secrets.iter().any(|s| line.contains(s))) {
        leaks.push(format!("our plugin logged a password: {line}"));
    }

    let grpc = std::fs::read_to_string(&grpc_log)?;
    assert!(grpc.contains("ApplyResourceChange") && grpc.contains("mysql_user"), "the gRPC log has the calls");
    for line in grpc.lines().filter(|line| secrets.iter().any(|s| line.contains(s))) {
        let method = serde_json::from_str::<serde_json::Value>(line).map(|e| e["method"].clone()).unwrap_or_default();
        leaks.push(format!("the PULUMI_TF_DEBUG_GRPC file holds a password in a {method} entry"));
    }
    run(&mut ws, &["destroy", "--yes", "--skip-preview", "--non-interactive"])?;
    for (path, text) in common::files_under(&ws.root().join("backend")) {
        leaks.extend(
            secrets
                .iter()
                .filter(|s| text.contains(**s))
                .map(|s| format!("the state file {} holds {s:?}", path.display())),
        );
    }
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
    Ok(())
}

/// Asserts that a failed run names each of `needles` and that the server still holds what
/// the first up made.
fn assert_clear_error(output: &CommandOutput, needles: &[&str], server: &MariaDb) -> anyhow::Result<()> {
    let text = output.all_text();
    let missing: Vec<&&str> = needles.iter().filter(|n| !text.contains(**n)).collect();
    assert!(missing.is_empty(), "the error does not name {missing:?}:\n{output}");
    assert!(!text.contains("panic") && !output.timed_out, "{output}");
    assert!(server.has_database("appdb")? && server.has_database("reports")?, "nothing lost: {output}");
    assert!(server.has_user("app", "localhost")?, "nothing lost: {output}");
    assert_eq!(server.privileges("app", "localhost", "appdb")?, ["SELECT"], "nothing lost: {output}");
    Ok(())
}

/// Bad input, with ours: each a clear error naming the resource, the cause and the value at
/// fault (which names the property: the provider's diagnostics carry no attribute path), and
/// nothing lost on the server or in the state.
#[test]
fn bad_input_is_a_clear_error_and_loses_nothing() -> anyhow::Result<()> {
    let (mut server, mut ws) = suite::up_for_bad_input::<Mysql>("mysql-bad", Implementation::Ours)?;
    let in_state = ws.managed_resources()?.len();

    // A name the server rejects (longer than MariaDB's 64 characters).
    let base = ws.program()?;
    let long_name = "n".repeat(70);
    ws.edit_program(
        "outputs:\n",
        &format!(
            "  tooLong:\n    type: mysql:index/database:Database\n    properties:\n      name: {long_name}\n    \
             options:\n      provider: ${{server}}\noutputs:\n"
        ),
    )?;
    let failed = ws.up_fails()?;
    assert_clear_error(&failed, &["mysql:index:Database (tooLong)", "name", "Incorrect database name"], &server)?;
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), &base)?;

    // A grant of a role that does not exist. (A grant to a user that does not exist is no
    // error on MariaDB: the provider clears the session's sql_mode on servers it takes for
    // MySQL >= 8, NO_AUTO_CREATE_USER included, so GRANT creates the user.)
    ws.edit_program(
        "outputs:\n",
        "  ghostGrant:\n    type: mysql:index/grant:Grant\n    properties:\n      user: app\n      host: localhost\n      \
         database: appdb\n      roles:\n        - ghost_role\n    options:\n      provider: ${server}\noutputs:\n",
    )?;
    let failed = ws.up_fails()?;
    assert_clear_error(
        &failed,
        &["mysql:index:Grant (ghostGrant)", "ghost_role", "Invalid role specification"],
        &server,
    )?;
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), &base)?;

    // Wrong credentials on the explicit provider.
    set_secret(&mut ws, "rootPassword", "wrong-password-0000")?;
    ws.edit_program("        - SELECT\n", "        - SELECT\n        - INSERT\n")?;
    let failed = ws.up_fails()?;
    // The provider's connection error carries no attribute path: the account names what is
    // wrong.
    assert_clear_error(&failed, &["appGrant", "Access denied for user 'root'"], &server)?;
    assert!(!failed.all_text().contains("wrong-password-0000"), "the wrong password is shown: {failed}");
    set_secret(&mut ws, "rootPassword", ROOT_PASSWORD)?;

    // The server down at up.
    server.stop();
    let failed = ws.up_fails()?;
    server.restart()?;
    // The endpoint's value names the setting.
    assert_clear_error(&failed, &["appGrant", &server.endpoint(), "connection refused"], &server)?;
    assert_eq!(ws.managed_resources()?.len(), in_state, "nothing lost in the state");

    // And with everything right again, the change goes through. A refresh first: the failed
    // updates recorded the planned privileges as outputs (SDKv2 returns its new state with an
    // Update error unless the resource marks it partial, and it is kept, as Terraform keeps
    // it), so only a read of the server shows the grant still lacks INSERT; Terraform reads
    // before every plan.
    ws.refresh()?;
    ws.up()?;
    assert_eq!(server.privileges("app", "localhost", "appdb")?, ["INSERT", "SELECT"]);
    ws.destroy()?;
    Ok(())
}

/// Issue 20 item 3: a stack made by the Go implementation, with the explicit provider's
/// number and bool set in the program and the default provider's from stack config, moves to
/// ours and back with no changes at either switch; an update through ours happens in place.
#[test]
fn a_stack_moves_go_ours_go_with_no_changes() -> anyhow::Result<()> {
    let server = MariaDb::start("interop")?;
    let mut ws = suite::workspace_with_stack::<Mysql>("mysql-interop", Implementation::Go, &server)?;
    ws.up()?;
    let first = ws.stack_outputs(false)?;
    ws.preview_expect_no_changes()?;

    ws.switch_to(Implementation::Ours)?;
    let switched = ws.pulumi(&["preview", "--expect-no-changes", "--non-interactive", "--diff"])?;
    assert!(switched.success(), "Go → ours shows changes:\n{switched}");
    ws.edit_program("        - SELECT\n", "        - SELECT\n        - INSERT\n")?;
    let update = ws.up()?;
    assert!(update.stdout.contains("updated") && !update.stdout.contains("replaced"), "in place: {update}");
    assert_eq!(server.privileges("app", "localhost", "appdb")?, ["INSERT", "SELECT"], "{update}");
    assert_eq!(ws.stack_outputs(false)?, first, "ids kept");
    ws.preview_expect_no_changes()?;

    ws.switch_to(Implementation::Go)?;
    let back = ws.pulumi(&["preview", "--expect-no-changes", "--non-interactive", "--diff"])?;
    assert!(back.success(), "ours → Go shows changes:\n{back}");
    ws.destroy()?;
    assert!(!server.has_database("appdb")? && !server.has_user("app", "localhost")?);
    Ok(())
}
