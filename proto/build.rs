//! Compiles the .proto files with protox (a pure-Rust compiler), so building needs no
//! `protoc` binary on the machine.

fn main() {
    let files = [
        "tfplugin/tfplugin5.proto",
        "tfplugin/tfplugin6.proto",
        "goplugin/plugin.proto",
        "grpc/health/v1/health.proto",
        "pulumi/provider.proto",
        "pulumi/engine.proto",
    ];
    for dir in ["tfplugin", "goplugin", "grpc", "pulumi"] {
        println!("cargo:rerun-if-changed={dir}");
    }
    let descriptors = match protox::compile(files, ["."]) {
        Ok(descriptors) => descriptors,
        Err(err) => panic!("compiling the .proto files failed: {err:?}"),
    };
    // Both sides are generated for every protocol: the provider serves pulumirpc and calls
    // tfplugin; the fixture Terraform provider in tests/ serves tfplugin and go-plugin.
    if let Err(err) = tonic_prost_build::configure().build_server(true).build_client(true).compile_fds(descriptors) {
        panic!("generating Rust code from the .proto files failed: {err}");
    }
}
