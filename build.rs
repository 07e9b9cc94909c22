//! Gives the plugin's main thread on Windows the stack Linux gives it.
//!
//! The plugin runs its whole async runtime on the main thread (a one-thread runtime, see
//! ARCHITECTURE.md), and a Pulumi call's future nests deeply: Linux gives a main thread 8 MiB,
//! Windows links 1 MiB, and the plugin overflowed it on its first resource call. The size is
//! a link-time setting of the executable there, so it is set here, for both Windows
//! toolchains; the tests' own threads are unaffected.

fn main() {
    const STACK: u32 = 8 * 1024 * 1024;
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "windows" {
        if env == "msvc" {
            println!("cargo:rustc-link-arg-bins=/STACK:{STACK}");
        } else {
            println!("cargo:rustc-link-arg-bins=-Wl,--stack,{STACK}");
        }
    }
}
