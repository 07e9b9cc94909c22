//! Bad input to an install, each a clear error with nothing half-installed: a checksum that
//! does not match, a 404, a server that is down, a truncated download, an archive for
//! another architecture; and Pulumi 3.259's own checksum check, which refuses the right
//! checksum too, with the way around it (the checksums file, then `--file`).

use super::*;

/// Runs `plugin install` against `server_url`, expects a failure whose text contains every one
/// of `expected`, and checks that no plugin was left in `PULUMI_HOME`.
fn install_fails(label: &str, server_url: &str, extra: &[&str], expected: &[&str]) -> anyhow::Result<String> {
    let mut ws = Workspace::new(label, Implementation::Ours)?;
    without_our_plugin(&ws)?;
    let output = plugin_install(&mut ws, server_url, extra)?;
    assert!(!output.success() && !output.timed_out, "{output}");
    let text = output.all_text();
    for want in expected {
        assert!(text.contains(want), "{label}: expected {want:?} in\n{output}");
    }
    assert!(!installed_binary(&ws).exists(), "{label}: a plugin binary was installed");
    let left = our_plugin_entries(&ws)?;
    assert!(left.is_empty(), "{label}: PULUMI_HOME/plugins keeps {left:?}");
    // And the CLI does not list it as installed.
    let list = ws.pulumi_ok(&["plugin", "ls"])?;
    assert!(!list.stdout.contains("terraform-provider"), "{label}: {list}");
    Ok(text)
}

#[test]
fn a_checksum_that_does_not_match_installs_nothing() -> anyhow::Result<()> {
    let server = server_with_the_archive()?;
    let wrong = sha256_hex(b"not the archive");
    install_fails(
        "install-checksum",
        &format!("{}/releases", server.url()),
        &["--checksum", &wrong],
        &["checksum", &wrong],
    )?;
    Ok(())
}

/// FIXME(upstream): Pulumi 3.259's `--checksum` hashes every read of the download but the last:
/// Go's HTTP body returns the final bytes together with `io.EOF`, and its `checksumReader`
/// compares the hash on EOF before adding them. So with any server that sends a
/// `Content-Length` (as release hosts do), the right checksum is reported as invalid. This
/// asserts that behaviour, so the test fails (and README's advice can change) once a Pulumi
/// release fixes it. Nothing is installed either way.
#[test]
fn pulumis_checksum_check_rejects_the_right_checksum_too() -> anyhow::Result<()> {
    let server = server_with_the_archive()?;
    let right = sha256_hex(&std::fs::read(&release().archive)?);
    // The checksums file release.sh wrote holds the same value.
    assert!(std::fs::read_to_string(&release().checksums)?.starts_with(&right));
    let text = install_fails(
        "install-checksum-right",
        &format!("{}/releases", server.url()),
        &["--checksum", &right],
        &["invalid checksum", &format!("expected {right}")],
    )?;
    assert!(!text.contains(&format!("actual {right}")), "{text}");
    Ok(())
}

/// The route README gives for a verified install: `sha256sum -c` against the checksums file,
/// then `pulumi plugin install --file <archive>`. A tampered archive fails the check.
#[test]
fn checksums_file_then_install_from_the_file() -> anyhow::Result<()> {
    let release = release();
    let dir = common::scratch_dir("install-verified");
    std::fs::copy(&release.archive, dir.join(archive_name()))?;
    std::fs::copy(&release.checksums, dir.join("checksums.txt"))?;
    let check = Command::new("sha256sum").args(["-c", "checksums.txt"]).current_dir(&dir).output()?;
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stdout));

    let mut ws = Workspace::new("install-file", Implementation::Ours)?;
    without_our_plugin(&ws)?;
    let archive = dir.join(archive_name());
    ws.pulumi_ok(&[
        "plugin",
        "install",
        "resource",
        "terraform-provider",
        OURS,
        "--file",
        archive.to_str().context("UTF-8")?,
    ])?;
    assert!(std::fs::read(installed_binary(&ws))? == std::fs::read(&release.binary)?);

    // One flipped byte in the archive: the check names the file and fails.
    let mut bytes = std::fs::read(&archive)?;
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&archive, &bytes)?;
    let check = Command::new("sha256sum").args(["-c", "checksums.txt"]).current_dir(&dir).output()?;
    assert!(!check.status.success());
    assert!(String::from_utf8_lossy(&check.stdout).contains(&format!("{}: FAILED", archive_name())));
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn a_404_installs_nothing() -> anyhow::Result<()> {
    let server = ReleaseServer::start()?;
    install_fails("install-404", &format!("{}/releases", server.url()), &[], &["404", &archive_name()])?;
    assert_eq!(server.requests(), vec![format!("/releases/{}", archive_name())]);
    Ok(())
}

#[test]
fn a_server_that_is_down_installs_nothing() -> anyhow::Result<()> {
    // A port that was just free: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    install_fails(
        "install-down",
        &format!("http://127.0.0.1:{port}/releases"),
        &[],
        &["connection refused", &archive_name()],
    )?;
    Ok(())
}

#[test]
fn a_truncated_download_installs_nothing() -> anyhow::Result<()> {
    let server = ReleaseServer::start()?;
    let body = std::fs::read(&release().archive)?;
    let sent = body.len() / 2;
    server.route(&format!("/releases/{}", archive_name()), Reply::Truncated { body, sent });
    install_fails("install-truncated", &format!("{}/releases", server.url()), &[], &["unexpected EOF"])?;
    Ok(())
}

/// An archive holding a binary for another architecture under this machine's name (what a
/// wrong upload would be; `release.sh` refuses to make it, so it is packed by hand here):
/// Pulumi 3.259 installs it without looking inside, and the failure comes when the engine
/// first starts it, naming the cause.
#[test]
fn an_archive_for_another_architecture_installs_but_fails_when_started() -> anyhow::Result<()> {
    let dir = common::scratch_dir("install-wrong-arch");
    // An ELF header for aarch64: the kernel refuses it on x86_64 with ENOEXEC.
    let mut header = vec![0u8; 64];
    header[..4].copy_from_slice(b"\x7fELF");
    header[4] = 2;
    header[5] = 1;
    header[6] = 1;
    header[16] = 2; // ET_EXEC
    header[18] = 0xb7;
    let binary = dir.join(NAME);
    std::fs::write(&binary, &header)?;
    std::fs::set_permissions(&binary, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    let archive = dir.join(archive_name());
    let status = Command::new("tar").arg("-czf").arg(&archive).arg("-C").arg(&dir).arg(NAME).status()?;
    assert!(status.success());

    let server = ReleaseServer::start()?;
    server.route(&format!("/releases/{}", archive_name()), Reply::Bytes(std::fs::read(&archive)?));
    let mut ws = Workspace::new("install-wrong-arch", Implementation::Ours)?;
    without_our_plugin(&ws)?;
    let install = plugin_install(&mut ws, &format!("{}/releases", server.url()), &[])?;
    assert!(install.success(), "Pulumi installs what the archive holds: {install}");
    assert_eq!(std::fs::read(installed_binary(&ws))?, header);

    std::fs::write(ws.project_dir().join("Pulumi.yaml"), "name: wrong-arch\nruntime: yaml\n")?;
    let random = common::real_provider("random", versions::RANDOM)?;
    let source = format!("terraform-provider@{OURS}");
    let add = ws.pulumi_fails(&["package", "add", &source, random.to_str().context("UTF-8")?])?;
    // The kernel refuses it ("exec format error"), unless qemu-user is registered in
    // binfmt_misc for aarch64 (scripts/cross-test.sh registers it), which then refuses it.
    let text = add.all_text();
    assert!(text.contains("exec format error") || text.contains("Invalid ELF image for this architecture"), "{add}");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// A teammate's fresh machine: `pulumi install` fetches the plugin from the recorded location.

/// A project pinned to a version of ours that was never released (a typo, a version from
/// another branch): `package add` asks the recorded location for exactly that version, fails
/// naming the plugin and the version, and leaves the project and the plugin cache as they were.
/// It does not fall back to the version that is installed.
#[test]
fn a_pinned_version_of_ours_that_does_not_exist_fails_clearly() -> anyhow::Result<()> {
    const MISSING: &str = "100.99.0";
    let server = server_with_the_archive()?;
    let mut ws = Workspace::new("install-missing-version", Implementation::Ours)?;
    ws.copy_example("random")?;
    let before = ws.program()?;
    let random = common::real_provider("random", versions::RANDOM)?;
    let source = format!("terraform-provider@{MISSING}");
    let server_url = format!("{}/releases", server.url());
    let output =
        ws.pulumi_fails(&["package", "add", &source, random.to_str().context("UTF-8")?, "--server", &server_url])?;
    let asked = format!("/releases/{NAME}-v{MISSING}-linux-amd64.tar.gz");
    let text = output.all_text();
    for want in [format!("terraform-provider-{MISSING}: 404 HTTP error"), asked.clone()] {
        assert!(text.contains(&want), "expected {want:?} in\n{output}");
    }
    assert_eq!(server.requests(), vec![asked]);
    assert_eq!(ws.program()?, before, "Pulumi.yaml is unchanged");
    assert_eq!(our_plugin_entries(&ws)?, vec![format!("resource-terraform-provider-v{OURS}")]);
    Ok(())
}
