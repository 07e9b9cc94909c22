//! Parallel load and Cancel through the real Pulumi CLI (issue 15 item 4), with both
//! implementations: `pulumi up --parallel 64` of 200 `time_sleep` resources (the real time
//! provider) served by one Terraform provider process finishes without deadlock and records
//! all 200; SIGINT to `pulumi` mid-flight returns promptly (ours: the Go implementation
//! lets its in-flight creates run to the end), every resource reported created is in the
//! state, whole, nothing is left pending, and the next `up` converges. These are correctness
//! checks; the wall times are benchmark figures (`scripts/bench/e2e.sh`, provider `parallel`).
//!
//! Needs `scripts/test-tools.sh providers pulumi anchor`.

use crate::common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::Implementation;
use common::pulumi::Workspace;
use common::versions;

const N_RESOURCES: usize = 200;

/// A workspace whose program has `N_RESOURCES` `time_sleep` resources, resource `i` sleeping
/// `duration(i)` on create, on the time provider behind a script that logs each launch.
fn start(
    label: &str,
    implementation: Implementation,
    duration: impl Fn(usize) -> &'static str,
) -> anyhow::Result<(Workspace, PathBuf)> {
    let time = common::real_provider("time", versions::TIME)?;
    let mut ws = Workspace::new(label, implementation)?;
    let launches = ws.root().join("provider-launches.txt");
    let wrapper_dir = ws.root().join("provider");
    std::fs::create_dir_all(&wrapper_dir)?;
    let wrapper = common::write_script(
        &wrapper_dir,
        "terraform-provider-time",
        &format!("echo $$ >>'{}'\nexec '{}' \"$@\"", launches.display(), time.display()),
    );
    let mut program = String::from("name: parallel\nruntime: yaml\nresources:\n");
    for i in 0..N_RESOURCES {
        program.push_str(&format!(
            "  sleep{i}:\n    type: time:index/sleep:Sleep\n    properties:\n      createDuration: {}\n",
            duration(i)
        ));
    }
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), program)?;
    ws.package_add(&[wrapper.to_str().expect("a UTF-8 path")])?;
    ws.stack_init()?;
    // Only launches from here on count.
    let _ = std::fs::remove_file(&launches);
    Ok((ws, launches))
}

fn count_lines(path: &PathBuf) -> usize {
    std::fs::read_to_string(path).map(|text| text.lines().count()).unwrap_or(0)
}

/// The resource names the CLI's progress output says were created (`... sleep7 created (1s)`).
fn reported_created(stdout: &str) -> BTreeSet<String> {
    stdout
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let name_idx = words.clone().position(|word| word == "created")?;
            let name = words.nth(name_idx.checked_sub(1)?)?;
            name.starts_with("sleep").then(|| name.to_owned())
        })
        .collect()
}

fn state_names(ws: &mut Workspace) -> anyhow::Result<BTreeSet<String>> {
    Ok(ws
        .managed_resources()?
        .iter()
        .filter_map(|r| r["urn"].as_str().and_then(|urn| urn.rsplit("::").next()).map(str::to_owned))
        .collect())
}

common::for_both_implementations!(parallel_up_of_slow_resources, sigint_mid_flight_then_up_converges);

fn parallel_up_of_slow_resources(implementation: Implementation) -> anyhow::Result<()> {
    let (mut ws, launches) = start("parallel-up", implementation, |_| "1s")?;
    // No deadlock: the command finishes (within the workspace's timeout) and succeeds.
    let up = ws.pulumi_ok(&["up", "--yes", "--skip-preview", "--non-interactive", "--parallel", "64"])?;
    assert_eq!(reported_created(&up.stdout).len(), N_RESOURCES, "{up}");
    assert_eq!(state_names(&mut ws)?.len(), N_RESOURCES);
    // The 200 creates share the Terraform provider process of the plugin: the CLI starts the
    // plugin once or twice for a run (for the program's schema and for the provider), never
    // once per resource.
    let n_launches = count_lines(&launches);
    assert!((1..=2).contains(&n_launches), "the time provider was launched {n_launches} times during up");
    ws.preview_expect_no_changes()?;
    Ok(())
}

/// How long an interrupted create would still sleep: long enough that a CLI waiting for it
/// instead of cancelling it could not pass the promptness check.
const SLOW: &str = "45s";
/// The promptness bound after SIGINT: well under `SLOW`.
const PROMPT: Duration = Duration::from_secs(20);

fn sigint_mid_flight_then_up_converges(implementation: Implementation) -> anyhow::Result<()> {
    // Even resources are quick, odd ones slow: by the time some have been created, the
    // parallel slots fill up with slow creates that only Cancel can end early.
    let (mut ws, _launches) = start("parallel-sigint", implementation, |i| if i % 2 == 0 { "1s" } else { SLOW })?;
    let running = ws.spawn_pulumi(&["up", "--yes", "--skip-preview", "--non-interactive", "--parallel", "64"])?;
    let deadline = Instant::now() + Duration::from_secs(180);
    while reported_created(&running.stdout_so_far()).len() < 10 {
        assert!(Instant::now() < deadline, "no resource was created within 180 s:\n{}", running.stdout_so_far());
        assert!(running.child.id() > 0);
        std::thread::sleep(Duration::from_millis(100));
    }
    // Let the slow creates start.
    std::thread::sleep(Duration::from_secs(2));
    let signalled = Instant::now();
    running.signal(libc::SIGINT)?;
    let interrupted = running.wait(Duration::from_secs(120))?;
    let took = signalled.elapsed();
    assert!(!interrupted.timed_out, "{interrupted}");
    eprintln!("{}: pulumi returned {took:?} after SIGINT", implementation.label());
    // The Go implementation does not act on Cancel: the CLI waits for its in-flight creates
    // to finish (45 s here), so only ours is held to the promptness bound.
    if implementation == Implementation::Ours {
        assert!(took < PROMPT, "pulumi took {took:?} to return after SIGINT:\n{interrupted}");
    }
    assert!(!interrupted.success(), "an interrupted up fails: {interrupted}");

    // Every resource the CLI reported created is recorded, whole (time_sleep's id is the
    // time its create finished). The state may hold a few more: a create that finished as
    // the CLI tore its display down is recorded without a progress line.
    let created = reported_created(&interrupted.stdout);
    let state = ws.stack_export()?;
    let recorded = state_names(&mut ws)?;
    assert!(recorded.len() < N_RESOURCES, "the interrupt stopped nothing: {recorded:?}");
    let missing: Vec<_> = created.difference(&recorded).collect();
    assert!(missing.is_empty(), "reported created but not recorded: {missing:?}\n{interrupted}");
    for resource in ws.managed_resources()? {
        assert!(resource["outputs"]["id"].as_str().is_some_and(|id| !id.is_empty()), "{resource:#}");
        // time_sleep answers a cancelled create with an error and no object, and a finished
        // one whole: nothing it recorded is a failed create's (tainted) object, which the
        // next up would replace.
        let meta = resource["outputs"]["__meta"].as_str().unwrap_or_default();
        assert!(!meta.contains("tainted"), "a finished create recorded as failed: {resource:#}");
    }
    // The interrupted creates ended (the provider answered them), so nothing is left
    // pending for the next run to clear.
    let pending = &state["deployment"]["pending_operations"];
    assert!(pending.as_array().is_none_or(Vec::is_empty), "pending operations: {pending:#}");

    // The next up creates the rest, and then nothing is left to do.
    let up = ws.pulumi_ok(&["up", "--yes", "--skip-preview", "--non-interactive", "--parallel", "200"])?;
    assert_eq!(reported_created(&up.stdout).len(), N_RESOURCES - recorded.len(), "{up}");
    assert_eq!(state_names(&mut ws)?.len(), N_RESOURCES);
    ws.preview_expect_no_changes()?;
    Ok(())
}
