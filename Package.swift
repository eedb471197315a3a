// swift-tools-version:6.2
// Courier: an actor-based network layer. No package dependencies, by design:
// only the Swift toolchain (stdlib, Foundation/FoundationNetworking, Dispatch, Glibc) and the
// system's SQLite and libcurl (system library targets).
import PackageDescription

let package = Package(
    name: "Courier",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Courier", targets: ["Courier"]),
        .library(name: "CourierTesting", targets: ["CourierTesting"]),
        .executable(name: "courier-bench", targets: ["courier-bench"]),
    ],
    targets: [
        // The system's SQLite (`sqlite3.h` and `-lsqlite3`; Debian: libsqlite3-dev).
        .systemLibrary(name: "CSQLite"),
        // The system's libcurl and OpenSSL, for CurlTransport on Linux (Debian:
        // libcurl4-openssl-dev, libssl-dev). Apple platforms use URLSession and do not link it.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev", "libssl-dev"])]
        ),
        .target(
            name: "Courier",
            dependencies: ["CSQLite", .target(name: "CCurl", condition: .when(platforms: [.linux]))]
        ),
        .target(name: "CourierTesting", dependencies: ["Courier"]),
        .executableTarget(
            name: "courier-bench",
            dependencies: ["Courier", "CourierTesting", .target(name: "CCurl", condition: .when(platforms: [.linux]))],
            path: "Benchmarks/courier-bench"
        ),
        // Enqueues writes until killed: the offline queue's kill -9 test runs it.
        .executableTarget(name: "OfflineWriter", dependencies: ["Courier"], path: "Tests/OfflineWriter"),
        // Uploads and downloads a large body, printing its resident size: the transfer memory
        // test runs it.
        .executableTarget(name: "TransferChild", dependencies: ["Courier"], path: "Tests/TransferChild"),
        .testTarget(
            name: "CourierTests",
            dependencies: ["Courier", "CourierTesting", "OfflineWriter", "TransferChild"],
            exclude: ["Support/scripted_server.py", "Support/hostile_server.py", "Support/tls_server.py", "Support/httpbin_server.py",
                      "Support/graphql_server.py", "Support/sqlite_locker.py"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
