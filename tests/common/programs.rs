//! Pulumi programs in TypeScript, Python, Go and Java (`examples/pulumi-{typescript,python,go,java}`) in
//! an offline `Workspace`: the language hosts beside the CLI, the SDKs from the caches
//! `scripts/test-tools.sh languages` fills (`languages`), and the three ways to add a bridged
//! package the tests use.
//!
//! Main items: `Language` (which example and toolchain) and `ProgramWorkspace` (a `Workspace`
//! set up for one language, with the steps that differ between languages: installing
//! dependencies, compiling generated code, editing the program).
//!
//! Architecture invariant: this helper knows the four toolchains and the examples' file
//! layout; the scenarios (what to change, what to expect) live in the tests.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context as _;

use super::Implementation;
use super::languages;
use super::pulumi::{Cli, CommandOutput, Workspace};

/// The language of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    TypeScript,
    Python,
    Go,
    Java,
}

impl Language {
    pub const ALL: [Language; 4] = [Language::TypeScript, Language::Python, Language::Go, Language::Java];

    pub fn label(self) -> &'static str {
        match self {
            Language::TypeScript => "typescript",
            Language::Python => "python",
            Language::Go => "go",
            Language::Java => "java",
        }
    }

    /// The example this language's tests start from.
    pub fn example_dir(self) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join(format!("pulumi-{}", self.label()))
    }

    /// The file holding the program.
    pub fn program_file(self) -> &'static str {
        match self {
            Language::TypeScript => "index.ts",
            Language::Python => "__main__.py",
            Language::Go => "main.go",
            Language::Java => "src/main/java/e2e/App.java",
        }
    }

    /// A Pulumi (camelCase) property name as this language's SDK spells it: camelCase in
    /// TypeScript and Java, snake_case in Python, PascalCase in Go.
    pub fn property_name(self, camel: &str) -> String {
        match self {
            Language::TypeScript | Language::Java => camel.to_owned(),
            Language::Python => {
                let mut out = String::new();
                for c in camel.chars() {
                    if c.is_ascii_uppercase() {
                        out.push('_');
                        out.push(c.to_ascii_lowercase());
                    } else {
                        out.push(c);
                    }
                }
                out
            }
            Language::Go => {
                let mut chars = camel.chars();
                chars.next().map(|first| first.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
            }
        }
    }
}

/// A `Workspace` holding one of the language examples.
pub struct ProgramWorkspace {
    pub ws: Workspace,
    pub language: Language,
}

impl std::ops::Deref for ProgramWorkspace {
    type Target = Workspace;
    fn deref(&self) -> &Workspace {
        &self.ws
    }
}

impl std::ops::DerefMut for ProgramWorkspace {
    fn deref_mut(&mut self) -> &mut Workspace {
        &mut self.ws
    }
}

/// The directory of the real Python interpreter (not a pyenv shim, which needs the real
/// `HOME`): the one the cached virtualenv was made from.
fn python_bin_dir() -> anyhow::Result<PathBuf> {
    let python = languages::python()?;
    let output = std::process::Command::new(&python)
        .args(["-c", "import os, sys; print(os.path.join(sys.base_prefix, 'bin'))"])
        .output()
        .with_context(|| format!("run {}", python.display()))?;
    anyhow::ensure!(
        output.status.success(),
        "{} failed: {}",
        python.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(PathBuf::from(String::from_utf8(output.stdout)?.trim()))
}

/// The machine's Go build cache, shared so a program's dependencies compile once, not per
/// workspace (the workspace's `HOME` is a temp directory).
fn go_build_cache() -> anyhow::Result<String> {
    if let Some(cache) = std::env::var_os("GOCACHE") {
        return Ok(cache.to_string_lossy().into_owned());
    }
    let output = std::process::Command::new("go").args(["env", "GOCACHE"]).output().context("run go env")?;
    anyhow::ensure!(output.status.success(), "go env GOCACHE failed");
    Ok(String::from_utf8(output.stdout)?.trim().to_owned())
}

/// Copies the regular files of `from` into `to` (not recursive: the examples are flat, but
/// for Java's `src/main/java`, see `copy_tree`).
pub fn copy_files(from: &Path, to: &Path) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(from).with_context(|| format!("read {}", from.display()))? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name()))?;
        }
    }
    Ok(())
}

/// JVM options for short Maven runs (`.mvn/jvm.config`, or `MAVEN_OPTS`).
pub const JAVA_JVM_OPTIONS: &str = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

/// Copies the tree `from` into `to` (regular files and directories).
pub fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from).with_context(|| format!("read {}", from.display()))? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&entry.path(), &to.join(entry.file_name()))?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name()))?;
        }
    }
    Ok(())
}

/// A copy of the `node_modules` tree `from` at `to`, its files hard links to the cached ones
/// (13,000 files: a copy would cost more than the install it saves). npm replaces a package
/// by removing and extracting, never by writing into its files, so the cache stays as it
/// was. The files at the tree's top are copied, and last: npm rewrites its hidden lockfile
/// (`.package-lock.json`) in place (through a link it would rewrite the cache's), and reads
/// it only when no package folder is newer, else it reads every package's package.json.
pub fn link_node_modules(from: &Path, to: &Path) -> anyhow::Result<()> {
    fn walk(from: &Path, to: &Path, top: bool) -> anyhow::Result<()> {
        std::fs::create_dir_all(to)?;
        let mut top_files = Vec::new();
        for entry in std::fs::read_dir(from).with_context(|| format!("read {}", from.display()))? {
            let entry = entry?;
            let (source, target) = (entry.path(), to.join(entry.file_name()));
            let kind = entry.file_type()?;
            if kind.is_dir() {
                walk(&source, &target, false)?;
            } else if kind.is_symlink() {
                std::os::unix::fs::symlink(std::fs::read_link(&source)?, &target)?;
            } else if top {
                top_files.push((source, target));
            } else {
                std::fs::hard_link(&source, &target)
                    .or_else(|_| std::fs::copy(&source, &target).map(drop))
                    .with_context(|| format!("link {} to {}", source.display(), target.display()))?;
            }
        }
        for (source, target) in top_files {
            std::fs::copy(&source, &target)?;
        }
        Ok(())
    }
    walk(from, to, true)
}

/// The Java example's pom.xml without the generated SDKs' dependencies (between its `SDKS`
/// markers), as a project is before `pulumi package add` made them.
fn pom_without_sdks(pom: &str) -> anyhow::Result<String> {
    let start = pom.find("<!-- SDKS").context("pom.xml has no <!-- SDKS marker")?;
    let end_marker = "<!-- /SDKS -->";
    let end = pom.find(end_marker).context("pom.xml has no <!-- /SDKS --> marker")? + end_marker.len();
    Ok(format!("{}{}", &pom[..start], &pom[end..]))
}

impl ProgramWorkspace {
    /// A workspace with `language`'s example copied in and the environment its toolchain
    /// needs to work offline.
    pub fn new(label: &str, implementation: Implementation, language: Language) -> anyhow::Result<ProgramWorkspace> {
        ProgramWorkspace::with_cli(label, implementation, language, Cli::from_env()?)
    }

    /// `new`, running `cli`.
    pub fn with_cli(
        label: &str,
        implementation: Implementation,
        language: Language,
        cli: Cli,
    ) -> anyhow::Result<ProgramWorkspace> {
        let bin = languages::pulumi_bin_dir_of(cli)?;
        let mut ws = Workspace::with_cli(&format!("{}-{label}", language.label()), implementation, cli)?;
        copy_files(&language.example_dir(), ws.project_dir())?;
        let mut path = vec![bin.display().to_string()];
        match language {
            Language::TypeScript => {
                // The npm cache holds every package the example and the generated SDKs need.
                let cache = languages::npm_cache()?;
                for (key, value) in [
                    ("npm_config_cache", cache.to_str().context("a UTF-8 path")?),
                    ("npm_config_offline", "true"),
                    ("npm_config_audit", "false"),
                    ("npm_config_fund", "false"),
                    ("npm_config_update_notifier", "false"),
                    ("npm_config_loglevel", "error"),
                ] {
                    ws.set_env(key, value);
                }
                // The project as `pulumi new typescript` leaves it: its own dependencies
                // installed. `package add` then installs only the SDK it generates, where it
                // would install all 220 packages (about 5 s of CPU, in every TypeScript
                // workspace; npm reconciles the tree with package.json either way).
                link_node_modules(&languages::node_modules()?, &ws.project_dir().join("node_modules"))?;
            }
            Language::Python => {
                path.push(python_bin_dir()?.display().to_string());
                // The example pins the pinned CLI's SDK; the newest CLI's programs use a newer
                // one (`Cli::python_sdk`).
                let requirements = ws.project_dir().join("requirements.txt");
                let text = std::fs::read_to_string(&requirements)?;
                let pin = format!("pulumi=={}", Cli::PINNED.python_sdk());
                anyhow::ensure!(text.contains(&pin), "the example's requirements.txt lacks {pin}");
                std::fs::write(&requirements, text.replace(&pin, &format!("pulumi=={}", cli.python_sdk())))?;
                let wheels = languages::python_wheels_of(cli)?;
                ws.set_env("PIP_NO_INDEX", "1");
                ws.set_env("PIP_FIND_LINKS", wheels.to_str().context("a UTF-8 path")?);
                ws.set_env("PIP_DISABLE_PIP_VERSION_CHECK", "1");
            }
            Language::Java => {
                path.push(languages::java_host_dir()?.display().to_string());
                copy_tree(&language.example_dir().join("src"), &ws.project_dir().join("src"))?;
                // Maven offline, on a copy of the cached repository (SDKs get installed into
                // it), for every `mvn` under the project, the host's included: Maven reads
                // .mvn/maven.config from the nearest directory above that has one.
                let m2 = ws.root().join("m2");
                copy_tree(&languages::maven_repo()?, &m2)?;
                let dot_mvn = ws.project_dir().join(".mvn");
                std::fs::create_dir_all(&dot_mvn)?;
                std::fs::write(
                    dot_mvn.join("maven.config"),
                    format!("-o\n-Dmaven.repo.local={}\n-Dstyle.color=never\n", m2.display()),
                )?;
                // Maven and the program (exec:java runs it in Maven's JVM) are short-lived:
                // the JIT's top tier and a parallel collector only cost start-up time. This
                // halves each `pulumi` command (about 30 s to 13 s for a preview here).
                std::fs::write(dot_mvn.join("jvm.config"), JAVA_JVM_OPTIONS)?;
            }
            Language::Go => {
                for (key, value) in languages::go_offline_env()? {
                    ws.set_env(&key, &value);
                }
                ws.set_env("GOCACHE", &go_build_cache()?);
                ws.set_env("CGO_ENABLED", "0");
                ws.set_env("GOTELEMETRY", "off");
                // The example's go.sum covers the Pulumi SDK; the cached one is the same set.
                std::fs::copy(languages::go_sdk_dir()?.join("go.sum"), ws.project_dir().join("go.sum"))?;
            }
        }
        path.extend(["/usr/local/go/bin", "/usr/local/bin", "/usr/bin", "/bin"].map(str::to_owned));
        ws.set_env("PATH", &path.join(":"));
        Ok(ProgramWorkspace { ws, language })
    }

    /// Removes the installed dependencies `new` linked into a TypeScript project, for a
    /// project as a clone of it is: `package add` or `pulumi install` then installs them all,
    /// and writes the lockfile from the npm cache alone.
    pub fn without_installed_dependencies(&mut self) -> anyhow::Result<()> {
        let modules = self.ws.project_dir().join("node_modules");
        if modules.exists() {
            std::fs::remove_dir_all(&modules)?;
        }
        Ok(())
    }

    /// Makes a TypeScript workspace's dependencies pnpm's: the project asks the Node.js host for
    /// pnpm (`packagemanager: pnpm` in Pulumi.yaml), and pnpm is on `PATH`, offline, with the
    /// cached store and metadata cache. Everything else about the program stays as it was.
    pub fn use_pnpm(&mut self) -> anyhow::Result<()> {
        anyhow::ensure!(self.language == Language::TypeScript, "pnpm installs TypeScript programs only");
        let project_file = self.ws.project_dir().join("Pulumi.yaml");
        let project = std::fs::read_to_string(&project_file)?;
        anyhow::ensure!(project.contains("packagemanager: npm"), "Pulumi.yaml names no npm:\n{project}");
        std::fs::write(&project_file, project.replace("packagemanager: npm", "packagemanager: pnpm"))?;
        // A pnpm project starts without npm's tree (`new` links one in for npm).
        self.without_installed_dependencies()?;
        let path = self.ws.env_var("PATH").context("the workspace sets PATH")?.to_owned();
        let bin = languages::pnpm_bin_dir()?;
        self.ws.set_env("PATH", &format!("{}:{path}", bin.display()));
        // pnpm 10 reads its settings from npm_config_* variables (npm_config_offline, set for
        // npm, holds for it too). The store and metadata cache are shared, as the npm cache is.
        let store = languages::pnpm_store()?;
        let cache = languages::pnpm_cache()?;
        self.ws.set_env("npm_config_store_dir", store.to_str().context("a UTF-8 path")?);
        self.ws.set_env("npm_config_cache_dir", cache.to_str().context("a UTF-8 path")?);
        anyhow::ensure!(self.ws.env_var("npm_config_offline") == Some("true"), "npm_config_offline is set");
        // Offline means no registry at all: a request would go to a closed port and fail at once.
        for proxy in ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"] {
            self.ws.set_env(proxy, "http://127.0.0.1:9");
        }
        self.ws.set_env("NO_PROXY", "127.0.0.1,localhost");
        self.ws.set_env("no_proxy", "127.0.0.1,localhost");
        Ok(())
    }

    /// The program's source.
    pub fn program(&self) -> anyhow::Result<String> {
        let file = self.ws.project_dir().join(self.language.program_file());
        std::fs::read_to_string(&file).with_context(|| format!("read {}", file.display()))
    }

    /// Rewrites the program; `from` must occur in it, so a stale edit fails loudly.
    pub fn edit_program(&self, from: &str, to: &str) -> anyhow::Result<()> {
        let text = self.program()?;
        anyhow::ensure!(text.contains(from), "{} does not contain {from:?}:\n{text}", self.language.program_file());
        std::fs::write(self.ws.project_dir().join(self.language.program_file()), text.replacen(from, to, 1))?;
        Ok(())
    }

    /// `pulumi install`: the program's dependencies, including the SDKs `package add` linked
    /// (for Python, a virtualenv with them installed from the cached wheels).
    pub fn install(&mut self) -> anyhow::Result<CommandOutput> {
        self.ws.pulumi_ok(&["install"])
    }

    /// Runs a toolchain command in the project directory with the workspace's environment,
    /// and fails with its output unless it succeeds.
    pub fn run_tool(&mut self, program: &str, args: &[&str]) -> anyhow::Result<CommandOutput> {
        let output = self.ws.run_in_project(program, args, Duration::from_secs(300))?;
        anyhow::ensure!(output.success(), "{output}\n(workspace {})", self.ws.root().display());
        Ok(output)
    }

    /// Type-checks or compiles the project as its language does: `tsc --noEmit`, Python's
    /// byte-compiler over every program file, `go vet ./...` (which builds every package),
    /// `mvn compile`.
    pub fn compile(&mut self) -> anyhow::Result<CommandOutput> {
        match self.language {
            Language::TypeScript => {
                let tsc = self.ws.project_dir().join("node_modules/.bin/tsc");
                let tsc = tsc.to_str().context("a UTF-8 path")?.to_owned();
                self.run_tool(&tsc, &["--noEmit", "--pretty", "false"])
            }
            Language::Python => {
                let python = self.ws.project_dir().join("venv/bin/python");
                let python = python.to_str().context("a UTF-8 path")?.to_owned();
                let mut args = vec!["-m", "py_compile"];
                let files: Vec<String> = std::fs::read_dir(self.ws.project_dir())?
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|name| name.ends_with(".py"))
                    .collect();
                args.extend(files.iter().map(String::as_str));
                self.run_tool(&python, &args)
            }
            Language::Go => self.run_tool("go", &["vet", "./..."]),
            Language::Java => self.run_tool("mvn", &["--batch-mode", "--no-transfer-progress", "-q", "compile"]),
        }
    }
}

/// The three ways the tests add a bridged package.
impl ProgramWorkspace {
    /// `pulumi package add terraform-provider@<v> <provider binary> [-- <flags>]`.
    pub fn add_local_binary(&mut self, binary: &Path, flags: &[&str]) -> anyhow::Result<CommandOutput> {
        let mut args = vec![binary.to_str().context("a UTF-8 path")?];
        if !flags.is_empty() {
            args.push("--");
            args.extend_from_slice(flags);
        }
        self.ws.package_add(&args)
    }

    /// `pulumi package add terraform-provider@<v> <address> <version>` with no network: the
    /// provider binary `binary` is placed where the implementation looks before the registry.
    ///
    /// Ours reads the Terraform CLI configuration, so it gets a `filesystem_mirror` (the
    /// unpacked layout) and every proxy variable points at a closed port. The Go
    /// implementation reads no Terraform CLI configuration, so it has no mirrors; its one
    /// offline path is its own plugin cache (`$PULUMI_HOME/dynamic_tf_plugins`, OpenTofu's cache layout), which it
    /// uses without asking the registry when a cached version satisfies the constraint.
    pub fn add_by_registry_name(
        &mut self,
        address: &str,
        version: &str,
        binary: &Path,
    ) -> anyhow::Result<CommandOutput> {
        self.offline_registry_source(self.ws.implementation, address, version, binary)?;
        self.ws.package_add(&[address, version])
    }

    /// Puts `binary` where `implementation` finds `address` `version` without the network
    /// (see `add_by_registry_name`), and sends every other attempt at a closed port.
    pub fn offline_registry_source(
        &mut self,
        implementation: Implementation,
        address: &str,
        version: &str,
        binary: &Path,
    ) -> anyhow::Result<()> {
        let (namespace, kind) = address.split_once('/').context("an address namespace/type")?;
        let host = "registry.opentofu.org";
        let leaf_within = format!("{host}/{namespace}/{kind}/{version}/linux_amd64");
        let leaf = match implementation {
            Implementation::Ours => self.ws.root().join("mirror").join(&leaf_within),
            Implementation::Go => self.ws.root().join("pulumi-home/dynamic_tf_plugins").join(&leaf_within),
        };
        std::fs::create_dir_all(&leaf)?;
        let target = leaf.join(format!("terraform-provider-{kind}"));
        if !target.exists() && std::fs::hard_link(binary, &target).is_err() {
            std::fs::copy(binary, &target)?;
        }
        if implementation == Implementation::Ours {
            let rc = self.ws.root().join("mirror.tfrc");
            let mirror = self.ws.root().join("mirror");
            std::fs::write(
                &rc,
                format!(
                    "provider_installation {{\n  filesystem_mirror {{\n    path = \"{}\"\n  }}\n}}\n",
                    mirror.display()
                ),
            )?;
            self.ws.set_env("TF_CLI_CONFIG_FILE", rc.to_str().context("a UTF-8 path")?);
        }
        for proxy in ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"] {
            self.ws.set_env(proxy, "http://127.0.0.1:9");
        }
        // npm, pip and go run offline already; loopback must stay reachable.
        self.ws.set_env("NO_PROXY", "127.0.0.1,localhost");
        self.ws.set_env("no_proxy", "127.0.0.1,localhost");
        Ok(())
    }

    /// `Workspace::serve_with`, plus random 3.9.0 where `other` finds it offline (the
    /// example adds random by registry name).
    pub fn serve_with(&mut self, other: Implementation) -> anyhow::Result<std::path::PathBuf> {
        let served = self.ws.serve_with(other)?;
        let random = super::real_provider("random", super::versions::RANDOM)?;
        self.offline_registry_source(other, "hashicorp/random", super::versions::RANDOM, &random)?;
        Ok(served)
    }

    /// Adds the example's three packages as its README says (random by registry name, local
    /// with `--include`, our sdkv2test provider by local binary), then `pulumi install`.
    pub fn add_example_packages(&mut self) -> anyhow::Result<()> {
        self.add_example_packages_only()?;
        self.install()?;
        Ok(())
    }

    /// `add_example_packages` without the `pulumi install`, which a TypeScript program does not
    /// need: npm installed and compiled each SDK as `package add` linked it. In tests about
    /// something other than installing (`e2e_lang` and `e2e_install` run `pulumi install` on
    /// TypeScript), it saves regenerating and recompiling every SDK, 10 s of CPU.
    pub fn add_example_packages_only(&mut self) -> anyhow::Result<()> {
        let random = super::real_provider("random", super::versions::RANDOM)?;
        let local = super::real_provider("local", super::versions::LOCAL)?;
        let sdkv2test = super::real_provider("sdkv2test", "current")?;
        // The Go host runs `go mod tidy` after each `package add`, which fails while the
        // program imports a package not added yet: as a Go user would, start from a program
        // that uses only the Pulumi SDK (as `pulumi new go` makes) and write the real one
        // after adding its packages.
        let program = self.ws.project_dir().join(self.language.program_file());
        let held = self.ws.root().join("program-held-back");
        // The Java host runs `mvn compile` after each `package add`, and the example's pom
        // depends on the SDKs, which Maven finds only once install-sdk.sh installed them: as
        // above, start from the pom and program `pulumi new java` makes and write the real
        // ones after installing the SDKs.
        let pom = self.ws.project_dir().join("pom.xml");
        let held_pom = self.ws.root().join("pom-held-back");
        if self.language == Language::Java {
            std::fs::rename(&program, &held)?;
            std::fs::write(
                &program,
                "package e2e;\n\npublic class App {\n    public static void main(String[] args) {\n        \
                 com.pulumi.Pulumi.run(ctx -> {});\n    }\n}\n",
            )?;
            std::fs::copy(&pom, &held_pom)?;
            std::fs::write(&pom, pom_without_sdks(&std::fs::read_to_string(&held_pom)?)?)?;
        }
        if self.language == Language::Go {
            std::fs::rename(&program, &held)?;
            std::fs::write(
                &program,
                "package main\n\nimport \"github.com/pulumi/pulumi/sdk/v3/go/pulumi\"\n\n\
                 func main() { pulumi.Run(func(*pulumi.Context) error { return nil }) }\n",
            )?;
        }
        self.add_by_registry_name("hashicorp/random", super::versions::RANDOM, &random)?;
        match self.language {
            Language::TypeScript | Language::Python => {
                self.add_local_binary(&local, &["--include", "local_file,direxists"])?;
            }
            Language::Go | Language::Java => {
                // See examples/pulumi-go/main.go: direxists' Go SDK does not compile (and its
                // Java SDK drops the result), so the provider function comes from time.
                self.add_local_binary(&local, &["--include", "local_file"])?;
                self.add_local_binary(&super::real_provider("time", super::versions::TIME)?, &[])?;
            }
        }
        self.add_local_binary(&sdkv2test, &[])?;
        if self.language == Language::Go {
            std::fs::rename(&held, &program)?;
        }
        if self.language == Language::Java {
            for package in ["random", "local", "time", "sdkv2test"] {
                self.install_java_sdk(package)?;
            }
            // Written anew rather than renamed back: Maven compiles only sources newer than
            // their classes, and the held-back file is older than the stand-in's class.
            for (from, to) in [(&held, &program), (&held_pom, &pom)] {
                std::fs::write(to, std::fs::read(from)?)?;
                std::fs::remove_file(from)?;
            }
        }
        Ok(())
    }

    /// The Java SDK `package add` wrote into `sdks/<package>`, built with Maven and installed
    /// into the workspace's Maven repository by the example's install-sdk.sh, as its README
    /// tells a user to.
    pub fn install_java_sdk(&mut self, package: &str) -> anyhow::Result<CommandOutput> {
        let script = self.ws.project_dir().join("install-sdk.sh");
        let script = script.to_str().context("a UTF-8 path")?.to_owned();
        self.run_tool("bash", &[&script, &format!("sdks/{package}")])
    }

    /// Every file name under the generated SDK of `package` (`sdks/<package>`), relative to it.
    pub fn sdk_files(&self, package: &str) -> anyhow::Result<Vec<String>> {
        let root = self.ws.project_dir().join("sdks").join(package);
        let mut files = Vec::new();
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).with_context(|| format!("read {}", dir.display()))? {
                let entry = entry?;
                let name = entry.file_name().to_string_lossy().into_owned();
                if entry.file_type()?.is_dir() {
                    if name != "node_modules" && name != "bin" && name != "__pycache__" && name != "target" {
                        stack.push(entry.path());
                    }
                } else {
                    files.push(entry.path().strip_prefix(&root)?.display().to_string());
                }
            }
        }
        files.sort();
        Ok(files)
    }
}
