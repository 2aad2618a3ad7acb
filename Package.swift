// swift-tools-version:6.0
import PackageDescription

// The layers are targets, so a wrong arrow is a compile error. Each depends only on lower rows
// (docs/architecture.md has the table of exact arrows and the rule for where a new thing goes):
//
//   metrika → MetrikaCLI → MetrikaMCP · MetrikaBot (the entry points beside the commands)
//     → MetrikaServices (the composition root: token, config, history, client, deliverers)
//     → MetrikaUseCases → MetrikaWarehouse
//     → MetrikaAPI (CCurl) · MetrikaStore (CSQLite) · MetrikaRender → MetrikaSystem → MetrikaModel
//
// MetrikaModel depends on no other target of the project; the simulator shares no code with the client.
let package = Package(
    name: "metrika",
    // Mutex (Synchronization) guards shared state where the compiler can check it: macOS 15 or later.
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "metrika", targets: ["metrika"]),
        .executable(name: "metrika-fake-api", targets: ["metrika-fake-api"])
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        // `metrika mcp --listen`'s HTTP server (GNU libmicrohttpd).
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]
        ),
        .target(name: "MetrikaModel"),
        .target(name: "MetrikaSystem", dependencies: ["MetrikaModel"]),
        .target(name: "MetrikaAPI", dependencies: ["MetrikaModel", "MetrikaSystem", "CCurl"]),
        .target(name: "MetrikaStore", dependencies: ["MetrikaModel", "CSQLite"]),
        .target(name: "MetrikaRender", dependencies: ["MetrikaModel", "MetrikaSystem"]),
        .target(
            name: "MetrikaWarehouse", dependencies: ["MetrikaModel", "MetrikaSystem", "MetrikaAPI", "MetrikaStore"]),
        .target(
            name: "MetrikaUseCases",
            dependencies: [
                "MetrikaModel", "MetrikaSystem", "MetrikaAPI", "MetrikaStore", "MetrikaRender", "MetrikaWarehouse"
            ]),
        // What every entry point runs on: the world's seams and the run's selections in, the services out.
        .target(
            name: "MetrikaServices",
            dependencies: [
                "MetrikaModel", "MetrikaSystem", "MetrikaAPI", "MetrikaStore", "MetrikaRender", "MetrikaWarehouse",
                "MetrikaUseCases"
            ]),
        // The MCP server (`metrika mcp`): an entry point beside the CLI's commands, over the same services.
        .target(
            name: "MetrikaMCP",
            dependencies: [
                "MetrikaModel", "MetrikaSystem", "MetrikaAPI", "MetrikaStore", "MetrikaRender", "MetrikaWarehouse",
                "MetrikaUseCases", "MetrikaServices", "CMicroHTTPD"
            ]),
        // The Telegram bot (`metrika bot`): another entry point over the same services.
        .target(
            name: "MetrikaBot",
            dependencies: [
                "MetrikaModel", "MetrikaSystem", "MetrikaAPI", "MetrikaStore", "MetrikaRender", "MetrikaUseCases",
                "MetrikaServices"
            ]),
        .target(
            name: "MetrikaCLI",
            dependencies: [
                "MetrikaModel", "MetrikaSystem", "MetrikaAPI", "MetrikaStore", "MetrikaRender", "MetrikaWarehouse",
                "MetrikaUseCases", "MetrikaServices", "MetrikaMCP", "MetrikaBot"
            ]),
        .executableTarget(name: "metrika", dependencies: ["MetrikaCLI"]),
        .target(name: "MetrikaSimulator"),
        .executableTarget(name: "metrika-fake-api", dependencies: ["MetrikaSimulator"]),
        // What several test targets share: optional tools (skip when missing) and golden files.
        .target(name: "MetrikaTestSupport", dependencies: ["MetrikaAPI"], path: "Tests/MetrikaTestSupport"),
        // One test target per library target (and one for the CLI); EndToEndTests runs the built binaries.
        .testTarget(name: "MetrikaModelTests", dependencies: ["MetrikaModel"]),
        .testTarget(name: "MetrikaSystemTests", dependencies: ["MetrikaSystem", "MetrikaTestSupport"]),
        .testTarget(name: "MetrikaAPITests", dependencies: ["MetrikaAPI", "MetrikaCLI"]),
        .testTarget(name: "MetrikaStoreTests", dependencies: ["MetrikaStore", "MetrikaCLI", "MetrikaTestSupport"]),
        .testTarget(
            name: "MetrikaRenderTests", dependencies: ["MetrikaRender", "MetrikaAPI", "MetrikaTestSupport"],
            exclude: ["Golden", "scripts"]),
        .testTarget(name: "MetrikaSimulatorTests", dependencies: ["MetrikaSimulator"]),
        .testTarget(
            name: "MetrikaWarehouseTests",
            dependencies: [
                "MetrikaWarehouse", "MetrikaAPI", "MetrikaStore", "MetrikaModel", "MetrikaSystem", "MetrikaCLI"
            ]),
        .testTarget(
            name: "MetrikaUseCasesTests",
            dependencies: ["MetrikaUseCases", "MetrikaAPI", "MetrikaStore", "MetrikaModel", "MetrikaTestSupport"]),
        .testTarget(
            name: "MetrikaServicesTests",
            dependencies: [
                "MetrikaServices", "MetrikaUseCases", "MetrikaAPI", "MetrikaSystem", "MetrikaModel", "MetrikaRender"
            ]),
        .testTarget(
            name: "MetrikaMCPTests",
            dependencies: [
                "MetrikaMCP", "MetrikaBot", "MetrikaServices", "MetrikaUseCases", "MetrikaRender", "MetrikaSimulator",
                "MetrikaTestSupport"
            ]),
        .testTarget(
            name: "MetrikaBotTests",
            dependencies: [
                "MetrikaBot", "MetrikaServices", "MetrikaUseCases", "MetrikaAPI", "MetrikaStore", "MetrikaModel",
                "MetrikaRender", "MetrikaTestSupport"
            ]),
        .testTarget(
            name: "MetrikaCLITests",
            dependencies: ["MetrikaCLI", "MetrikaServices", "MetrikaUseCases", "MetrikaSimulator", "MetrikaTestSupport"]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["MetrikaCLI", "MetrikaUseCases", "MetrikaTestSupport", "metrika", "metrika-fake-api"],
            // The MCP end-to-end suites' drivers (the official Python SDK as the client) and the
            // answerability suite's questions.
            exclude: ["Support/mcp_driver.py", "Support/mcp_http_driver.py", "Support/mcp_answers.py", "Fixtures"]
        )
    ],
    swiftLanguageModes: [.v6]
)
