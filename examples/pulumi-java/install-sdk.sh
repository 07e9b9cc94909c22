#!/usr/bin/env bash
# Builds a Java SDK that `pulumi package add` or `pulumi package gen-sdk` wrote (sources, and
# Gradle files or none) with Maven, and installs it into the local Maven repository as
# com.pulumi:<package>.
#
# Usage: install-sdk.sh SDK_DIR [MAVEN_ARGS...]     e.g. install-sdk.sh sdks/random -o
#   MAVEN_GOAL=package install-sdk.sh …              compile and package only (no install)
#
# What Gradle's genPulumiResources task would do, done here: the SDK reads
# com/pulumi/<package>/version.txt at start-up, and the Java language host tells the engine
# which plugin a program needs (for a parameterized package: the base plugin, its version and
# the parameter) from com/pulumi/<package>/plugin.json. Both are written into
# SDK_DIR/src/main/resources. The values come from the generated code itself: the package's
# directory is the one holding Utilities.java, a parameterized package's base plugin and
# parameter are in its getPackageRef(), and the version is the version.txt `package add`
# writes or else the default version in the build.gradle gen-sdk writes. SDK_DIR/pom.xml is
# sdk-pom.xml (beside this script) with the artifact and version filled in.
set -euo pipefail

sdk=${1:?usage: install-sdk.sh SDK_DIR [MAVEN_ARGS...]}
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fail() { echo "install-sdk.sh: $*" >&2; exit 1; }

utilities=$(find "$sdk/src/main/java" -name Utilities.java 2>/dev/null | sort | head -n1)
[[ -n $utilities ]] || fail "$sdk/src/main/java has no Utilities.java: not a generated Java SDK"
# com/pulumi/random: where the SDK looks for version.txt.
path=${utilities#"$sdk/src/main/java/"}
path=${path%/Utilities.java}
artifact=${path##*/}
resources=$sdk/src/main/resources/$path

if [[ -f $resources/version.txt ]]; then
  version=$(tr -d '[:space:]' <"$resources/version.txt")
elif [[ -f $sdk/build.gradle ]]; then
  # def resolvedVersion = … (project.version == "unspecified" ? "3.9.0" : project.version)
  version=$({ grep -m1 -E '^\s*\?\s*"' "$sdk/build.gradle" || true; } | sed -E 's/^[^"]*"([^"]*)".*/\1/')
else
  version=
fi
[[ -n $version ]] || fail "found no version for $sdk (no $resources/version.txt, no build.gradle)"

# getPackageRef(): registerPackage("<base>", "<base version>", "<download URL>", "<package>",
# getVersion(), "<parameter>"), one argument a line.
mapfile -t args < <(sed -n '/registerPackage(/,/);/p' "$utilities" | grep -o '"[^"]*"' | tr -d '"' || true)
if ((${#args[@]} == 0)); then
  plugin_json=$(printf '{\n    "resource": true,\n    "name": "%s",\n    "version": "%s"\n}' "$artifact" "$version")
elif ((${#args[@]} == 5)); then
  server=
  [[ -n ${args[2]} ]] && server=$(printf '\n    "server": "%s",' "${args[2]}")
  plugin_json=$(printf '{\n    "resource": true,\n    "name": "%s",%s\n    "version": "%s",\n    "parameterization": {\n        "name": "%s",\n        "version": "%s",\n        "value": "%s"\n    }\n}' \
    "${args[0]}" "$server" "${args[1]}" "${args[3]}" "$version" "${args[4]}")
else
  fail "could not read getPackageRef() in $utilities"
fi

mkdir -p "$resources"
printf '%s' "$version" >"$resources/version.txt"
printf '%s\n' "$plugin_json" >"$resources/plugin.json"
sed -e "s/@ARTIFACT@/$artifact/" -e "s/@VERSION@/$version/" "$here/sdk-pom.xml" >"$sdk/pom.xml"

cd "$sdk"
exec mvn --batch-mode --no-transfer-progress -q -Dstyle.color=never "$@" "${MAVEN_GOAL:-install}"
