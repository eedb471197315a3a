// swift-tools-version:6.2
// Courier: an actor-based network layer. No package dependencies, by design:
// only the Swift toolchain (stdlib, Foundation/FoundationNetworking, Dispatch, Glibc) and the
// system's SQLite, libcurl, OpenSSL and zlib, which Courier declares in its own C headers and links
// by soname, so that no -dev package is needed to build (docs/system-libraries.md).
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
        // The system's SQLite: on Linux declared in CSQLite.h and linked as libsqlite3.so.0 (the
        // `:` asks the linker for that file, not for the libsqlite3.so link of the -dev package);
        // on Apple platforms the SDK's.
        .target(
            name: "CSQLite",
            linkerSettings: [
                .linkedLibrary(":libsqlite3.so.0", .when(platforms: [.linux])),
                .linkedLibrary("sqlite3", .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS])),
            ]
        ),
        // The system's libcurl and OpenSSL 3, for CurlTransport on Linux, declared in CCurl's
        // headers and linked by soname. Apple platforms use URLSession and do not build it.
        .target(
            name: "CCurl",
            linkerSettings: [
                .linkedLibrary(":libcurl.so.4", .when(platforms: [.linux])),
                .linkedLibrary(":libssl.so.3", .when(platforms: [.linux])),
                .linkedLibrary(":libcrypto.so.3", .when(platforms: [.linux])),
            ]
        ),
        // The system's zlib, for WebSocket compression (permessage-deflate): on Linux declared in
        // CZlib's headers and linked as libz.so.1; on Apple platforms the SDK's.
        .target(
            name: "CZlib",
            linkerSettings: [
                .linkedLibrary(":libz.so.1", .when(platforms: [.linux])),
                .linkedLibrary("z", .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS])),
            ]
        ),
        .target(
            name: "Courier",
            dependencies: ["CSQLite", "CZlib", .target(name: "CCurl", condition: .when(platforms: [.linux]))]
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
                      "Support/graphql_server.py", "Support/sqlite_locker.py",
                      "Support/websocket_peer.py", "Support/websockets_server.py"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
