#!/usr/bin/env bash
# Regenerates the generated Swift files beside this script from openapi.yaml (and those of
# Benchmarks/courier-openapi-bench from its own openapi.yaml), with
# swift-openapi-generator 1.14.3 built in a throwaway package under /tmp: the integrations
# package does not depend on the generator (CI never builds it), it only compiles its output.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# GENERATOR_PACKAGE: a folder to build the generator in (kept between runs).
tool="${GENERATOR_PACKAGE:-/tmp/courier-openapi-generator}"
mkdir -p "$tool"
cat > "$tool/Package.swift" <<'PACKAGE'
// swift-tools-version:6.2
import PackageDescription
let package = Package(
    name: "generator",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3")],
    targets: []
)
PACKAGE
(cd "$tool" && swift build -c release --product swift-openapi-generator)
for folder in "$here" "$here/../../../Benchmarks/courier-openapi-bench"; do
    "$tool/.build/release/swift-openapi-generator" generate \
        --config "$folder/openapi-generator-config.yaml" \
        --output-directory "$folder" \
        "$folder/openapi.yaml"
done
