#!/usr/bin/env bash
# Writes docs/transcript.md: what a user sees running the MySQL example
# (examples/pulumi-yaml/mysql) through package add, up, preview, an update, refresh after
# drift, import and destroy, ours beside the Go implementation's, and every line that differs
# with the reason (scripts/mysql-session.py has the steps and the reasons). Rerun it after a
# change to what either implementation prints, so the document stays true.
#
#   scripts/transcript.sh            # builds the debug plugin; OURS_BINARY=<path> to use another
#
# Needs the peers (scripts/test-tools.sh mysql pulumi anchor services) and a MariaDB server
# binary; starts two throw-away servers on loopback and removes them at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/test-tools.sh mysql pulumi anchor services >/dev/null
# shellcheck source=scripts/peers.env
. scripts/peers.env
export TOOLS=${TFBRIDGE_TOOLS_DIR:-$HOME/.cache/tfbridge-tools}
if [[ -z ${OURS_BINARY:-} ]]; then
  cargo build --locked --bin pulumi-resource-terraform-provider -p pulumi-resource-terraform-provider >&2
  OURS_BINARY=${CARGO_TARGET_DIR:-$PWD/target}/debug/pulumi-resource-terraform-provider
fi
export OURS_BINARY
export GO_BINARY=$TOOLS/anchor/$BRIDGE_VER/pulumi-resource-terraform-provider
export MYSQL_PROVIDER=$TOOLS/providers/mysql/$MYSQL_VER/terraform-provider-mysql
# The version our plugin is installed under: the workspace's.
OURS_VERSION=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
GO_VERSION=${ANCHOR_LDVERSION#v}
export OURS_VERSION GO_VERSION PULUMI_VER YAML_VER
python3 scripts/mysql-session.py transcript docs/transcript.md
echo "wrote docs/transcript.md" >&2
