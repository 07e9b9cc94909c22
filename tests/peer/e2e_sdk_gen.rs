//! `pulumi package gen-sdk` for TypeScript (nodejs), Python, Go and Java, through the real Pulumi
//! CLI and language hosts, on real providers: random, tls and time (plugin framework,
//! protocol 5) and HashiCorp's tfcoremock (protocol 6). Each SDK is generated once with our
//! plugin and once with the Go implementation, from the same local provider binary; then
//!
//! - ours must compile: `tsc --noEmit` against the cached `@pulumi/pulumi`; `pip install`
//!   and then every module imported with the cached Python SDK; `go build ./...` and
//!   `go vet ./...`; for Java, `mvn package` through the Java example's install-sdk.sh (gen-sdk
//!   writes Gradle files only; the script adds the pom and the resources Gradle would
//!   generate); all offline;
//! - the two SDKs must be the same, except for the differences recorded in
//!   `tests/golden/sdk-diff/<provider>-<language>.diff`: a unified diff from the Go
//!   implementation's SDK (`go/`) to ours (`ours/`), with machine-specific text replaced (see
//!   [`normalize`]). Any new difference, or one that goes away, fails the test. Refresh with
//!   `UPDATE_EXPECT=1 cargo test --features peer-tests --test peer -- e2e_sdk_gen::`; docs/schema-mapping.md says why each
//!   kind of difference is there.
//!
//! Needs `scripts/test-tools.sh providers pulumi languages anchor`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context as _;
use base64::Engine as _;
use common::Implementation;
use common::languages;
use common::pulumi::Workspace;
use common::versions;
use expect_test::{ExpectFile, expect_file};

/// One generated SDK and the workspace that holds it (deleted with it).
struct Generated {
    workspace: Workspace,
    dir: PathBuf,
}

/// `pulumi package gen-sdk terraform-provider@<v> <provider> --language <language>` with the
/// implementation's plugin; the SDK is in the returned `dir`.
fn generate(implementation: Implementation, provider: &Path, language: &str) -> anyhow::Result<Generated> {
    let mut workspace = Workspace::new(&format!("gen-sdk-{language}"), implementation)?;
    if language == "java" {
        // The Java host is built apart from the CLI's (test-tools.sh language-java).
        let path = format!(
            "{}:{}:/usr/local/bin:/usr/bin:/bin",
            languages::pulumi_bin_dir()?.display(),
            languages::java_host_dir()?.display()
        );
        workspace.set_env("PATH", &path);
    }
    let out = workspace.root().join("sdk");
    let source = format!("terraform-provider@{}", implementation.plugin_version());
    workspace.pulumi_ok(&[
        "package",
        "gen-sdk",
        &source,
        path_str(provider),
        "--language",
        language,
        "--out",
        path_str(&out),
    ])?;
    let dir = out.join(language);
    anyhow::ensure!(dir.is_dir(), "gen-sdk wrote no {}", dir.display());
    Ok(Generated { workspace, dir })
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// Runs a command to completion; fails with everything it printed unless it exits 0.
fn run(command: &mut Command) -> anyhow::Result<String> {
    let shown = format!("{command:?}");
    let output = command.output().with_context(|| format!("start {shown}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    anyhow::ensure!(
        output.status.success(),
        "{shown}: {}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}",
        output.status
    );
    Ok(stdout.into_owned())
}

/// Machine- and version-specific text in a diff, replaced by placeholders: the local
/// provider path (and the base64 parameter value embedding it), the tools directory, and
/// our plugin's version, so the golden files hold only what differs between the two SDKs.
fn normalize(diff: &str, provider: &Path) -> String {
    let parameter = format!(r#"{{"local":{{"path":"{}"}}}}"#, path_str(provider));
    let encoded = base64::engine::general_purpose::STANDARD.encode(&parameter);
    diff.replace(&encoded, "<parameter value>")
        .replace(path_str(&common::tools_dir()), "$TFBRIDGE_TOOLS_DIR")
        .replace(env!("CARGO_PKG_VERSION"), "<our version>")
}

/// A unified diff (one line of context) from the Go implementation's SDK to ours, with file
/// names relative to `go/` and `ours/` and no timestamps.
fn sdk_diff(go: &Path, ours: &Path) -> anyhow::Result<String> {
    let output = Command::new("diff").args(["-rN", "-U1"]).arg(go).arg(ours).output().context("run diff")?;
    // diff exits 1 when the trees differ, 2 on trouble.
    anyhow::ensure!(output.status.code() != Some(2), "diff: {}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout)?;
    let (go, ours) = (path_str(go), path_str(ours));
    Ok(text
        .lines()
        .map(|line| {
            let line = line.replace(ours, "ours").replace(go, "go");
            // "--- go/x.ts\t2026-11-24 05:00:00.000000000 +0000": drop the timestamp.
            if line.starts_with("--- ") || line.starts_with("+++ ") {
                line.split('\t').next().unwrap_or_default().to_owned()
            } else {
                line
            }
        })
        .map(|line| line + "\n")
        .collect::<String>())
    .map(|diff| summarize_long_additions(&diff))
}

/// Hunks that only add lines (a new file, or types only ours has) become one line with their
/// length and a hash of their text, so that a golden pins them without holding thousands of
/// lines of generated code (tfcoremock's actions add over a megabyte of Go types).
fn summarize_long_additions(diff: &str) -> String {
    const LONG: usize = 40;
    let mut out = String::new();
    let mut hunk: Vec<&str> = Vec::new();
    let flush = |hunk: &mut Vec<&str>, out: &mut String| {
        let body = hunk.iter().skip(1);
        let only_added = body.clone().all(|line| !line.starts_with('-'));
        let added: Vec<&&str> = body.filter(|line| line.starts_with('+')).collect();
        if hunk.len() > 1 && only_added && added.len() > LONG {
            // FNV-1a: stable across Rust releases, unlike the standard library's hasher.
            let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
            for byte in added.iter().flat_map(|line| line.bytes().chain(std::iter::once(b'\n'))) {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
            out.push_str(hunk[0]);
            out.push_str(&format!("+<{} lines added, fnv1a {hash:016x}>\n", added.len()));
        } else {
            hunk.iter().for_each(|line| out.push_str(line));
        }
        hunk.clear();
    };
    for line in diff.split_inclusive('\n') {
        if line.starts_with("@@") || line.starts_with("diff ") || line.starts_with("--- ") || line.starts_with("+++ ") {
            flush(&mut hunk, &mut out);
            if !line.starts_with("@@") {
                out.push_str(line);
                continue;
            }
        }
        hunk.push(line);
    }
    flush(&mut hunk, &mut out);
    out
}

/// The compile check of one language's SDK.
fn compile(language: &str, sdk: &Path) -> anyhow::Result<()> {
    match language {
        "nodejs" => compile_nodejs(sdk),
        "python" => compile_python(sdk),
        "go" => compile_go(sdk),
        "java" => compile_java(sdk),
        other => anyhow::bail!("no compile check for {other}"),
    }
}

/// `tsc --noEmit` with the generated tsconfig.json, against the cached node_modules.
fn compile_nodejs(sdk: &Path) -> anyhow::Result<()> {
    std::os::unix::fs::symlink(languages::node_modules()?, sdk.join("node_modules"))?;
    run(Command::new(languages::tsc()?).args(["--noEmit", "-p"]).arg(sdk))?;
    Ok(())
}

/// The SDK installed as a user would (`pip install`, offline from the cached wheels, into a
/// target directory so the shared venv stays as it is), then every module of the package
/// imported with the cached venv's Python. The install is needed: a generated SDK reads its
/// own version from the installed distribution's metadata. Python SDKs load submodules
/// lazily, so importing the top package alone would check little; each module is loaded
/// parents first by touching an attribute (importing `config.vars` before its lazily loaded
/// package `config` trips a circular import in any generated SDK, the Go implementation's
/// too, that a program never meets).
fn compile_python(sdk: &Path) -> anyhow::Result<()> {
    let packages: Vec<_> = std::fs::read_dir(sdk)?
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.path().join("__init__.py").is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    anyhow::ensure!(packages.len() == 1, "expected one Python package in {}, found {packages:?}", sdk.display());
    let python = languages::python()?;
    let target = sdk.with_file_name("python-installed");
    run(Command::new(&python)
        .args(["-m", "pip", "install", "--no-input", "--disable-pip-version-check", "--no-deps", "--no-index"])
        .arg("--find-links")
        .arg(languages::python_wheels()?)
        .arg("--target")
        .arg(&target)
        .arg(sdk))?;
    let script = format!(
        "import importlib, pkgutil, sys, {package}\n\
         names = [m.name for m in pkgutil.walk_packages({package}.__path__, '{package}.')]\n\
         for name in names: getattr(importlib.import_module(name), '_tfbridge_load', None)\n\
         lazy = [n for n in names if type(sys.modules[n]).__name__ == '_LazyModule']\n\
         assert not lazy, f'never loaded: {{lazy}}'\n\
         print(len(names))\n",
        package = packages[0]
    );
    let printed = run(Command::new(&python).arg("-c").arg(&script).env("PYTHONPATH", &target))?;
    let n_modules: usize = printed.trim().parse().with_context(|| format!("python printed {printed:?}"))?;
    anyhow::ensure!(n_modules > 0, "no submodules found in {}", packages[0]);
    Ok(())
}

/// `go build ./...` and `go vet ./...` offline, in the generated module with the cached Go
/// SDK's go.sum.
fn compile_go(sdk: &Path) -> anyhow::Result<()> {
    let cached = languages::go_sdk_dir()?;
    anyhow::ensure!(sdk.join("go.mod").is_file(), "gen-sdk wrote no go.mod in {}", sdk.display());
    std::fs::copy(cached.join("go.sum"), sdk.join("go.sum"))?;
    let env = languages::go_offline_env()?;
    let go = |args: &[&str]| run(Command::new("go").args(args).current_dir(sdk).envs(env.iter().map(|(k, v)| (k, v))));
    // The generated go.mod requires an older sdk/v3 than the cached one, as a user would
    // `go get` the SDK version they have.
    let require = format!("-require=github.com/pulumi/pulumi/sdk/v3@v{}", languages::PULUMI_SDK_VERSION);
    go(&["mod", "edit", &require])?;
    go(&["build", "./..."])?;
    go(&["vet", "./..."])?;
    Ok(())
}

/// The SDK built with Maven as a user of examples/pulumi-java would (its install-sdk.sh, here
/// `mvn -o package` against a copy of the cached Maven repository), then the jar checked for
/// the resources the SDK reads at run time.
fn compile_java(sdk: &Path) -> anyhow::Result<()> {
    let m2 = sdk.with_file_name("m2");
    common::programs::copy_tree(&languages::maven_repo()?, &m2)?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/pulumi-java/install-sdk.sh");
    run(Command::new("bash")
        .arg(&script)
        .arg(sdk)
        .arg("-o")
        .arg(format!("-Dmaven.repo.local={}", m2.display()))
        .env("MAVEN_GOAL", "package")
        .env("MAVEN_OPTS", common::programs::JAVA_JVM_OPTIONS))?;
    let jars: Vec<PathBuf> = std::fs::read_dir(sdk.join("target"))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "jar"))
        .collect();
    anyhow::ensure!(jars.len() == 1, "expected one jar in {}/target, found {jars:?}", sdk.display());
    let listing = run(Command::new("jar").arg("tf").arg(&jars[0]))?;
    for resource in ["/version.txt", "/plugin.json", "/Utilities.class"] {
        anyhow::ensure!(
            listing.lines().any(|line| line.starts_with("com/pulumi/") && line.ends_with(resource)),
            "{} lacks com/pulumi/<package>{resource}:\n{listing}",
            jars[0].display()
        );
    }
    Ok(())
}

/// Generates the SDK for `language` with both implementations, compiles ours and checks the
/// differences against the golden file.
fn check(name: &str, version: &str, language: &str, golden: ExpectFile) -> anyhow::Result<()> {
    languages::pulumi_bin_dir()?;
    let provider = common::real_provider(name, version)?;
    let ours = generate(Implementation::Ours, &provider, language)?;
    let go = generate(Implementation::Go, &provider, language)?;
    let diff = normalize(&sdk_diff(&go.dir, &ours.dir)?, &provider);
    golden.assert_eq(&diff);
    compile(language, &ours.dir).with_context(|| format!("our {language} SDK for {name} does not compile"))?;
    drop((ours.workspace, go.workspace));
    Ok(())
}

macro_rules! sdk_tests {
    ($($test:ident: $name:literal $version:path, $language:literal;)*) => {$(
        #[test]
        fn $test() -> anyhow::Result<()> {
            check($name, $version, $language, expect_file![concat!("../golden/sdk-diff/", $name, "-", $language, ".diff")])
        }
    )*};
}

sdk_tests! {
    random_nodejs: "random" versions::RANDOM, "nodejs";
    random_python: "random" versions::RANDOM, "python";
    random_go: "random" versions::RANDOM, "go";
    tls_nodejs: "tls" versions::TLS, "nodejs";
    tls_python: "tls" versions::TLS, "python";
    tls_go: "tls" versions::TLS, "go";
    time_nodejs: "time" versions::TIME, "nodejs";
    time_python: "time" versions::TIME, "python";
    time_go: "time" versions::TIME, "go";
    tfcoremock_nodejs: "tfcoremock" versions::TFCOREMOCK, "nodejs";
    tfcoremock_python: "tfcoremock" versions::TFCOREMOCK, "python";
    tfcoremock_go: "tfcoremock" versions::TFCOREMOCK, "go";
    random_java: "random" versions::RANDOM, "java";
    tls_java: "tls" versions::TLS, "java";
    time_java: "time" versions::TIME, "java";
    tfcoremock_java: "tfcoremock" versions::TFCOREMOCK, "java";
}
