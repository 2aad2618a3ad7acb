/// The version of metrika, printed by `metrika --version` and sent in the User-Agent.
package enum MetrikaVersion {
    package static let current = "0.1.0"
}
