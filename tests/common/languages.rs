//! Where the Pulumi language hosts and SDKs that `scripts/test-tools.sh languages` caches
//! are, and the environment a program or generated SDK in each language builds with offline.
//! Every function fails with a message naming the script to run when its part is missing.
//!
//! The contract (scripts/README.md, "SDKs for programs"):
//! - the hosts `pulumi-language-{python,nodejs,go}` and their helper scripts sit beside the
//!   `pulumi` CLI in `pulumi/3.259.0/bin`, so a `PATH` with that directory finds them;
//! - Python: a virtualenv with `pulumi==3.259.0` (`python_venv`, run `venv/bin/python`) and
//!   the wheels it was installed from plus setuptools and wheel (`python_wheels`), for
//!   `pip install --no-index --find-links <wheels>` into other venvs;
//! - Node.js: a `node_modules` tree with `@pulumi/pulumi`, `typescript`, `@types/node` and
//!   `ts-node` at exact versions (`node_modules`), and the npm cache it came through
//!   (`npm_cache`), for `npm install --offline --cache <npm-cache>` of `package.json` files
//!   that pin `@pulumi/pulumi` to exactly 3.259.0;
//! - pnpm (`pnpm_bin_dir`, a version of its own) with a store (`pnpm_store`) and metadata
//!   cache (`pnpm_cache`) holding the same packages as the npm cache, resolved as pnpm resolves
//!   a program with a linked SDK, for pnpm with `npm_config_offline` (pnpm 10 reads its settings
//!   from `npm_config_*` variables);
//! - the Python venv also has `parver`, which generated Python SDKs import;
//! - Go: `github.com/pulumi/pulumi/sdk/v3` v3.259.0 in the Go module cache named by
//!   `go_offline_env` (`GOMODCACHE`), and a `go.mod`/`go.sum` pair that builds its packages
//!   (`go_sdk_dir`); builds run with `GOPROXY=off`, `GOFLAGS=-mod=mod` (`go_offline_env`).
//! - With the newest CLI (`pulumi::Cli`, `TFBRIDGE_TEST_PULUMI_VERSION`), the hosts are the
//!   same ones, linked beside that CLI (they also generate the SDKs, so those are 3.259.0's),
//!   and Python programs use a newer `pulumi` with what that engine offers programs
//!   (`Cli::python_sdk`); Node.js and Go programs stay at 3.259.0.
//! - Java: the host `pulumi-language-java` in its own directory (`java_host_dir`, built from
//!   pulumi-java's `pkg` module, a version of its own) and a Maven repository with
//!   `com.pulumi:pulumi` and every plugin the Java example and a generated SDK's Maven build
//!   use (`maven_repo`), for `mvn -o -Dmaven.repo.local=<a copy of it>`.
//!
//! Architecture invariant: this module knows paths and environment variables only; it runs
//! nothing.

use std::path::PathBuf;

use super::pulumi::Cli;

/// The Pulumi version of the CLI, the hosts and the three SDKs.
pub const PULUMI_SDK_VERSION: &str = super::versions::PULUMI;

/// The three language hosts this project tests, by the name `pulumi-language-<name>`.
pub const LANGUAGES: [&str; 3] = ["nodejs", "python", "go"];

fn cached(relative: &str, what: &str) -> anyhow::Result<PathBuf> {
    let path = super::tools_dir().join(relative);
    anyhow::ensure!(path.exists(), "{what} is missing at {}: run scripts/test-tools.sh languages", path.display());
    Ok(path)
}

/// The directory holding the `pulumi` CLI `TFBRIDGE_TEST_PULUMI_VERSION` picks and the Python,
/// Node.js and Go language hosts (with `pulumi-language-python-exec` and the
/// `pulumi-resource-pulumi-*` shims).
pub fn pulumi_bin_dir() -> anyhow::Result<PathBuf> {
    pulumi_bin_dir_of(Cli::from_env()?)
}

/// `pulumi_bin_dir` for one CLI.
pub fn pulumi_bin_dir_of(cli: Cli) -> anyhow::Result<PathBuf> {
    let bin = cli.bin_dir()?;
    let version = cli.version;
    for language in LANGUAGES {
        cached(&format!("pulumi/{version}/bin/pulumi-language-{language}"), &format!("the {language} language host"))?;
    }
    cached(&format!("pulumi/{version}/bin/pulumi-language-python-exec"), "pulumi-language-python-exec")?;
    Ok(bin)
}

/// The Java language host's version (pulumi-java's `pkg` module).
pub const JAVA_HOST_VERSION: &str = super::versions::JAVA_HOST;
/// The Pulumi Java SDK (`com.pulumi:pulumi`) in the Maven repository.
pub const JAVA_SDK_VERSION: &str = super::versions::JAVA_SDK;

/// The directory holding `pulumi-language-java`; put it on `PATH` beside the CLI's.
pub fn java_host_dir() -> anyhow::Result<PathBuf> {
    let dir = cached(&format!("pulumi-java/{JAVA_HOST_VERSION}/bin"), "the Java language host's directory")?;
    cached(&format!("pulumi-java/{JAVA_HOST_VERSION}/bin/pulumi-language-java"), "the Java language host")?;
    Ok(dir)
}

/// The Maven repository with `com.pulumi:pulumi` and the plugins, filled once by
/// test-tools.sh. Builds that install into a repository (an SDK) use a copy of it, so the
/// shared one never changes.
pub fn maven_repo() -> anyhow::Result<PathBuf> {
    let repo = cached(&format!("sdk/java/{JAVA_SDK_VERSION}/m2"), "the Java SDK's Maven repository")?;
    cached(&format!("sdk/java/{JAVA_SDK_VERSION}/m2/com/pulumi/pulumi/{JAVA_SDK_VERSION}"), "com.pulumi:pulumi")?;
    Ok(repo)
}

/// The virtualenv with `pulumi==3.259.0`. Run its `bin/python` (also for `-m pip`): the
/// console scripts beside it carry a stale shebang.
pub fn python_venv() -> anyhow::Result<PathBuf> {
    let venv = cached(&format!("sdk/python/{PULUMI_SDK_VERSION}/venv"), "the Python SDK's virtualenv")?;
    cached(&format!("sdk/python/{PULUMI_SDK_VERSION}/venv/bin/python"), "the virtualenv's python")?;
    Ok(venv)
}

/// The `python` executable of `python_venv`.
pub fn python() -> anyhow::Result<PathBuf> {
    Ok(python_venv()?.join("bin/python"))
}

/// The wheels of `pulumi==3.259.0` (with the newest CLI, `Cli::python_sdk`) and its
/// dependencies, plus setuptools and wheel.
pub fn python_wheels() -> anyhow::Result<PathBuf> {
    python_wheels_of(Cli::from_env()?)
}

/// `python_wheels` for one CLI.
pub fn python_wheels_of(cli: Cli) -> anyhow::Result<PathBuf> {
    cached(&format!("sdk/python/{}/wheels", cli.python_sdk()), "the Python SDK's wheels")
}

/// The `node_modules` tree with `@pulumi/pulumi`, `typescript`, `@types/node` and `ts-node`.
pub fn node_modules() -> anyhow::Result<PathBuf> {
    let modules = cached(&format!("sdk/nodejs/{PULUMI_SDK_VERSION}/node_modules"), "the Node.js SDK's node_modules")?;
    cached(&format!("sdk/nodejs/{PULUMI_SDK_VERSION}/node_modules/.bin/tsc"), "tsc")?;
    Ok(modules)
}

/// The TypeScript compiler in `node_modules`.
pub fn tsc() -> anyhow::Result<PathBuf> {
    Ok(node_modules()?.join(".bin/tsc"))
}

/// The npm cache `node_modules` was installed through: `npm install --offline --cache <it>`.
pub fn npm_cache() -> anyhow::Result<PathBuf> {
    cached(&format!("sdk/nodejs/{PULUMI_SDK_VERSION}/npm-cache"), "the Node.js SDK's npm cache")
}

/// The pnpm version test-tools.sh installs, with its store.
pub const PNPM_VERSION: &str = super::versions::PNPM;

/// The directory holding `pnpm` (and `pnpx`); put it on `PATH`.
pub fn pnpm_bin_dir() -> anyhow::Result<PathBuf> {
    let dir = cached(&format!("pnpm/{PNPM_VERSION}/node_modules/.bin"), "pnpm's directory")?;
    cached(&format!("pnpm/{PNPM_VERSION}/node_modules/.bin/pnpm"), "pnpm")?;
    Ok(dir)
}

/// The pnpm store (`npm_config_store_dir`) with every package a program on the SDK and a
/// generated SDK need.
pub fn pnpm_store() -> anyhow::Result<PathBuf> {
    cached(&format!("pnpm/{PNPM_VERSION}/store"), "pnpm's store")
}

/// pnpm's metadata cache (`npm_config_cache_dir`), which an offline pnpm resolves versions from.
pub fn pnpm_cache() -> anyhow::Result<PathBuf> {
    cached(&format!("pnpm/{PNPM_VERSION}/cache"), "pnpm's metadata cache")
}

/// The directory with a `go.mod` and `go.sum` that build the packages of
/// `github.com/pulumi/pulumi/sdk/v3` a generated Go SDK imports: copy its `go.sum` into a
/// module and require what its `go.mod` requires.
pub fn go_sdk_dir() -> anyhow::Result<PathBuf> {
    let dir = cached(&format!("sdk/go/{PULUMI_SDK_VERSION}"), "the Go SDK")?;
    for file in ["go.mod", "go.sum", "gomodcache"] {
        cached(&format!("sdk/go/{PULUMI_SDK_VERSION}/{file}"), &format!("the Go SDK's {file}"))?;
    }
    Ok(dir)
}

/// The environment for `go build`/`go vet` of a module using the cached Go SDK, offline:
/// the module cache test-tools.sh downloaded into, no proxy, go.mod/go.sum updated from the
/// cache as needed, no checksum database (every module in the cache was verified against it
/// when downloaded), and cgo off as when test-tools.sh compiled the SDK's packages.
pub fn go_offline_env() -> anyhow::Result<Vec<(String, String)>> {
    let dir = go_sdk_dir()?;
    let gomodcache = std::fs::read_to_string(dir.join("gomodcache"))?.trim().to_owned();
    anyhow::ensure!(
        std::path::Path::new(&gomodcache).is_dir(),
        "the Go module cache {gomodcache} named in {} is gone: run scripts/test-tools.sh languages",
        dir.join("gomodcache").display()
    );
    Ok(vec![
        ("GOMODCACHE".into(), gomodcache),
        ("GOPROXY".into(), "off".into()),
        ("GOFLAGS".into(), "-mod=mod".into()),
        ("GOSUMDB".into(), "off".into()),
        ("GOTOOLCHAIN".into(), "local".into()),
        // As test-tools.sh built the SDK's packages, so the Go build cache has them.
        ("CGO_ENABLED".into(), "0".into()),
    ])
}
