// swift-tools-version:6.1
import PackageDescription

/// Settings every target of the project shares: Swift 6 language mode (strict
/// concurrency) and `any` spelled out for existentials.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

/// The property tests' oracles (exact `Int128` geometry, brute force over
/// every edge) are compiled optimised even in debug builds: unoptimised,
/// their generic integer conversions cost minutes of the suite's two cores.
let optimisedTests: [SwiftSetting] = strict + [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "fleetd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "fleetd", targets: ["fleetd"]),
        .executable(name: "fleetctl", targets: ["fleetctl"]),
        .executable(name: "fleetsim", targets: ["fleetsim"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // The strict JSON reader (RFC 8259) and writer helpers every JSON input and output uses.
        .target(name: "FleetJSON", swiftSettings: strict),
        // The values every layer shares: `Fix`, `RFC3339` time, reject
        // reasons, and the one `WallClock` the edges read.
        .target(name: "FleetModel", swiftSettings: strict),
        // Pure geometry: coordinates, haversine, fences, GeoJSON, the spatial index
        // (and the groups a fence is limited to, named as `FleetModel` names them).
        .target(
            name: "FleetGeo", dependencies: ["CPrefetch", "FleetJSON", "FleetModel"],
            swiftSettings: strict),
        // The CPU's prefetch hint, which Swift does not expose.
        .target(name: "CPrefetch"),
        // Pure decoders: bytes in, fixes and device replies out.
        .target(
            name: "FleetProtocols", dependencies: ["FleetModel", "FleetJSON"], swiftSettings: strict
        ),
        // Pure tracking: fixes and state in, events and new state out.
        .target(
            name: "FleetTracking", dependencies: ["FleetModel", "FleetGeo", "FleetJSON"],
            swiftSettings: strict),
        // The storage interface: what the commit stage writes (`WriteBatch`), the
        // `Store` and `StoreReading` protocols every backend implements, and the
        // records readers get (their JSON is the contract `fleetctl` and the API share).
        // fleetd.toml: the parser and every section's settings, read by
        // fleetd and fleetctl (which need not link the daemon for it).
        .target(
            name: "FleetConfig",
            dependencies: [
                "FleetModel", "FleetGeo", "FleetProtocols", "FleetStorage", "FleetTracking",
            ],
            swiftSettings: strict),
        .target(
            name: "FleetStorage",
            dependencies: ["FleetModel", "FleetJSON", "FleetProtocols", "FleetTracking"],
            swiftSettings: strict),
        // The SQLite backend: schema, migrations, the batched writer and the readers' queries.
        .target(
            name: "FleetSQLite",
            dependencies: [
                "FleetModel", "FleetStorage", "FleetTracking",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
        // The PostgreSQL backend (postgres-nio): the same schema and semantics
        // as SQLite's, for one node or many sharing one database.
        .target(
            name: "FleetPostgres",
            dependencies: [
                "FleetModel", "FleetStorage", "FleetTracking",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // Reports and pictures: the usage report and the track map (pure:
        // records in, report and SVG out), shared by fleetctl and the API.
        .target(
            name: "FleetReports",
            dependencies: ["FleetModel", "FleetGeo", "FleetJSON", "FleetStorage"],
            swiftSettings: strict),
        // libsystemd through pkg-config, and the Swift face of it.
        .systemLibrary(
            name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .target(
            name: "FleetSystemd",
            dependencies: ["CSystemd", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        // The daemon: config, UDP listeners, the engine (tracking + group commit), lifecycle.
        .target(
            name: "FleetDaemon",
            dependencies: [
                "FleetModel", "FleetConfig", "FleetGeo", "FleetHTTP", "FleetProtocols",
                "FleetTracking", "FleetStorage",
                "FleetSystemd", "FleetWebhooks", "FleetMail", "FleetReports",
                "CBatchUDP", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strict),
        // Credentials' cryptography: bcrypt password hashes, API token secrets.
        .target(
            name: "FleetAuth",
            dependencies: [
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict),
        // Webhooks as the Standard Webhooks specification has them: secrets
        // (`whsec_`), signatures (HMAC-SHA256, swift-crypto), the rules a
        // subscription keeps, and the signed request (AsyncHTTPClient).
        // Mail: messages (RFC 5322, MIME) and an SMTP client with STARTTLS and AUTH.
        .target(
            name: "FleetMail",
            dependencies: [
                "FleetConfig", "FleetReports", "FleetStorage",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict),
        .target(
            name: "FleetWebhooks",
            dependencies: [
                "FleetModel", "FleetJSON", "FleetStorage", "FleetTracking",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict),
        // The HTTP API, login, the live event stream and the OsmAnd door (Hummingbird 2).
        .target(
            name: "FleetHTTP",
            dependencies: [
                "FleetModel", "FleetAuth", "FleetConfig", "FleetGeo", "FleetJSON", "FleetProtocols",
                "FleetReports",
                "FleetStorage", "FleetTracking", "FleetWebhooks",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The console's page, script and style, and the OpenAPI document,
            // compiled into the binary (`PackageResources`): installed with
            // fleetd, nothing to copy.
            resources: [
                .embedInCode("OpenAPI/openapi.json"),
                .embedInCode("Console/Files/index.html"),
                .embedInCode("Console/Files/console.js"),
                .embedInCode("Console/Files/console.css"),
                .embedInCode("Console/Files/favicon.svg"),
                .embedInCode("Console/Files/natural_earth_110m_countries.geojson"),
                .embedInCode("Console/Files/basemap.js"),
                .embedInCode("Console/Files/people.js"),
                .embedInCode("Share/Files/share.html"),
                .embedInCode("Share/Files/share.js"),
                .embedInCode("Share/Files/share.css"),
            ],
            swiftSettings: strict),
        // The one place a backend is opened from the config (fleetd and fleetctl).
        .target(
            name: "FleetBackends",
            dependencies: [
                "FleetConfig", "FleetPostgres", "FleetSQLite", "FleetStorage", "FleetTracking",
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "fleetd",
            dependencies: [
                "FleetBackends", "FleetConfig", "FleetDaemon", "FleetPostgres", "FleetStorage",
                "FleetSystemd",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "fleetctl",
            dependencies: [
                "FleetModel", "FleetAuth", "FleetBackends", "FleetConfig", "FleetGeo", "FleetJSON",
                "FleetPostgres",
                "FleetProtocols", "FleetReports",
                "FleetStorage", "FleetSQLite", "FleetTracking", "FleetWebhooks", "FleetMail",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        // Benchmarks behind `make bench` (figures printed, never asserted in tests).
        .executableTarget(
            name: "fleetbench",
            dependencies: [
                "FleetModel", "FleetGeo", "FleetProtocols", "FleetTracking", "FleetStorage",
                "FleetSQLite",
                "FleetSimCore", "FleetPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // sendmmsg/recvmmsg, malloc_trim and mallopt, which Swift's Glibc module does not declare.
        .target(name: "CBatchUDP"),
        // The simulator: route files, the replaying device, the load generator, the UDP client.
        .target(
            name: "FleetSimCore",
            dependencies: ["FleetModel", "FleetProtocols", "FleetGeo", "CBatchUDP"],
            path: "Simulator/Sources/FleetSimCore", swiftSettings: strict),
        .executableTarget(
            name: "fleetsim",
            dependencies: [
                "FleetModel", "FleetSimCore", "FleetGeo", "FleetProtocols", "FleetSQLite",
                "FleetStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Simulator/Sources/fleetsim", swiftSettings: strict),

        .testTarget(
            name: "FleetGeoTests", dependencies: ["FleetGeo", "FleetSimCore"],
            swiftSettings: optimisedTests),
        .testTarget(
            name: "FleetProtocolsTests", dependencies: ["FleetModel", "FleetProtocols"],
            swiftSettings: strict),
        .testTarget(
            name: "FleetTrackingTests",
            dependencies: ["FleetModel", "FleetTracking", "FleetGeo", "FleetJSON"],
            // Golden files, read from the source tree by path.
            exclude: ["Golden"], swiftSettings: strict),
        .testTarget(name: "FleetJSONTests", dependencies: ["FleetJSON"], swiftSettings: strict),
        .testTarget(
            name: "FleetMailTests", dependencies: ["FleetMail", "FleetStorage", "FleetJSON"],
            swiftSettings: strict),
        .testTarget(
            name: "FleetHTTPTests",
            dependencies: [
                "FleetAuth", "FleetConfig", "FleetHTTP", "FleetStorage", "FleetGeo",
                "FleetProtocols",
                "FleetTracking",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "FleetReportsTests",
            dependencies: [
                "FleetModel", "FleetReports", "FleetGeo", "FleetStorage", "FleetTracking",
            ],
            // Golden files, read from the source tree by path.
            exclude: ["Golden"], swiftSettings: strict),
        .testTarget(
            name: "FleetWebhooksTests",
            dependencies: ["FleetWebhooks", "FleetStorage", "FleetTracking", "FleetTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "FleetStorageTests",
            dependencies: ["FleetModel", "FleetStorage", "FleetJSON"],
            swiftSettings: strict),
        .testTarget(
            name: "FleetSQLiteTests",
            dependencies: [
                "FleetModel", "FleetSQLite", "FleetStorage", "FleetTracking", "FleetGeo",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
        // Servers tests start of their own (a throwaway PostgreSQL).
        .target(name: "FleetTestSupport", path: "Tests/FleetTestSupport", swiftSettings: strict),
        // One behaviour suite run against every storage backend.
        .testTarget(
            name: "StorageBehaviourTests",
            dependencies: [
                "FleetModel", "FleetStorage", "FleetSQLite", "FleetPostgres", "FleetTracking",
                "FleetTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "FleetPostgresTests",
            dependencies: [
                "FleetModel", "FleetPostgres", "FleetStorage", "FleetTracking", "FleetTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "FleetConfigTests",
            dependencies: [
                "FleetConfig", "FleetModel", "FleetProtocols", "FleetStorage", "FleetTracking",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "FleetDaemonTests",
            dependencies: [
                "FleetModel", "FleetConfig", "FleetDaemon", "FleetGeo", "FleetProtocols",
                "FleetStorage",
                "FleetTracking",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "FleetSimCoreTests",
            dependencies: ["FleetModel", "FleetSimCore", "FleetProtocols"],
            path: "Simulator/Tests/FleetSimCoreTests", swiftSettings: strict),
        // Starts the built binaries as real processes; sends real UDP on loopback.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "FleetModel", "FleetSimCore", "FleetProtocols", "FleetTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            // schemathesis's configuration, the browser check and the
            // webhook receiver (Python), read from the source tree by path.
            exclude: ["Schemathesis", "Browser", "Webhooks", "Mail"], swiftSettings: strict),
    ]
)
