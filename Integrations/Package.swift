// swift-tools-version:6.2
// Courier's integrations with the server-side Swift ecosystem: swift-log, swift-metrics,
// swift-distributed-tracing, swift-service-lifecycle, swift-openapi-runtime and postgres-nio (the
// offline queue on PostgreSQL). A package of its own, so that Courier
// itself keeps no package dependency; each product is opt-in.
import Foundation
import PackageDescription

// Courier itself is the package one folder up, by path. A path package's identity is its
// folder's name, which differs between clones (`courier`, a worktree's name, CI's folder), so
// it is worked out here rather than spelled.
let courier = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "CourierIntegrations",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "CourierLogging", targets: ["CourierLogging"]),
        .library(name: "CourierMetrics", targets: ["CourierMetrics"]),
        .library(name: "CourierTracing", targets: ["CourierTracing"]),
        .library(name: "CourierServiceLifecycle", targets: ["CourierServiceLifecycle"]),
        .library(name: "CourierOpenAPI", targets: ["CourierOpenAPI"]),
        .library(name: "CourierPostgres", targets: ["CourierPostgres"]),
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The runtime generated clients call; the generator itself is not a dependency (its
        // output is committed: Tests/CourierOpenAPITests/Generated/README.md).
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // Only for the benchmark's comparison row (courier-openapi-bench).
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        // The offline queue on PostgreSQL, shared by a service's replicas (CourierPostgres).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .target(name: "CourierLogging", dependencies: [
            .product(name: "Courier", package: courier),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "CourierMetrics", dependencies: [
            .product(name: "Courier", package: courier),
            .product(name: "CoreMetrics", package: "swift-metrics"),
        ]),
        .target(name: "CourierTracing", dependencies: [
            .product(name: "Courier", package: courier),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ]),
        .target(name: "CourierServiceLifecycle", dependencies: [
            .product(name: "Courier", package: courier),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .target(name: "CourierOpenAPI", dependencies: [
            .product(name: "Courier", package: courier),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]),
        .target(name: "CourierPostgres", dependencies: [
            .product(name: "Courier", package: courier),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The generated client over CourierTransport and over swift-openapi-urlsession, against
        // the repository's nginx; its client is generated as the tests' is (README.md there).
        .executableTarget(
            name: "courier-openapi-bench",
            dependencies: [
                "CourierOpenAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ],
            path: "Benchmarks/courier-openapi-bench",
            exclude: ["openapi.yaml", "openapi-generator-config.yaml", "RESULTS.md"]
        ),
        // The PostgreSQL queue's enqueue and drain rates beside the SQLite queue's
        // (`--profile offline-postgres`), against the server .ci/postgres starts.
        .executableTarget(
            name: "courier-postgres-bench",
            dependencies: [
                "CourierPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Benchmarks/courier-postgres-bench",
            exclude: ["RESULTS.md"]
        ),
        .testTarget(name: "CourierIntegrationsTests", dependencies: [
            "CourierLogging", "CourierMetrics", "CourierTracing", "CourierServiceLifecycle",
            .product(name: "CourierTesting", package: courier),
            .product(name: "InMemoryLogging", package: "swift-log"),
            .product(name: "MetricsTestKit", package: "swift-metrics"),
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
        ]),
        .testTarget(
            name: "CourierOpenAPITests",
            dependencies: [
                "CourierOpenAPI", "CourierMetrics",
                .product(name: "CourierTesting", package: courier),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            exclude: ["Generated/openapi.yaml", "Generated/openapi-generator-config.yaml", "Generated/README.md", "Generated/regenerate.sh"]
        ),
        // A replica process for the kill test (SIGKILL mid-drain).
        .executableTarget(
            name: "PostgresReplica",
            dependencies: ["CourierPostgres", .product(name: "PostgresNIO", package: "postgres-nio")],
            path: "Tests/PostgresReplica"
        ),
        .testTarget(
            name: "CourierPostgresTests",
            dependencies: [
                "CourierPostgres", "PostgresReplica",
                .product(name: "CourierTesting", package: courier),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            exclude: ["Support/tcp_proxy.py", "Support/receiver.py"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
