/// The version of metrika, printed by `metrika --version` and sent in the User-Agent.
public enum MetrikaVersion {
    public static let current = "0.1.0"
}
