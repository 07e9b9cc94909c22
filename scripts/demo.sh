#!/usr/bin/env bash
# The main job, end to end, on the built-in example. Today: build the provider in release
# mode, start it the way the Pulumi engine does, and show it answering over gRPC.
# This grows as capabilities land (next: a real Pulumi program through `pulumi up`).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --locked --bin pulumi-resource-terraform-provider --example smoke
./target/release/examples/smoke ./target/release/pulumi-resource-terraform-provider
