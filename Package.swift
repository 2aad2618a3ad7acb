// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "metrika",
    products: [
        .executable(name: "metrika", targets: ["metrika"]),
        .executable(name: "metrika-fake-api", targets: ["metrika-fake-api"]),
        .library(name: "MetrikaKit", targets: ["MetrikaKit"]),
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
        .target(name: "MetrikaKit", dependencies: ["CSQLite", "CCurl"]),
        .target(name: "MetrikaCLI", dependencies: ["MetrikaKit"]),
        .executableTarget(name: "metrika", dependencies: ["MetrikaCLI"]),
        .target(name: "MetrikaSimulator"),
        .executableTarget(name: "metrika-fake-api", dependencies: ["MetrikaSimulator"]),
        .testTarget(name: "MetrikaKitTests", dependencies: ["MetrikaKit"]),
        .testTarget(name: "StoreTests", dependencies: ["MetrikaKit"]),
        .testTarget(name: "RenderTests", dependencies: ["MetrikaKit"], exclude: ["Golden", "scripts"]),
        .testTarget(name: "SimulatorTests", dependencies: ["MetrikaSimulator"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["MetrikaCLI", "MetrikaKit", "metrika", "metrika-fake-api"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
