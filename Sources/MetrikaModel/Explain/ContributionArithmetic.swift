/// The numbers a change is decomposed in: `Double` in metrika, an exact rational in the property
/// test, so the test can show the decomposition adds up exactly and not only to a rounding error.
package protocol ContributionArithmetic: Comparable, Sendable {
    static var zero: Self { get }
    init(_ value: Int)
    static func + (lhs: Self, rhs: Self) -> Self
    static func - (lhs: Self, rhs: Self) -> Self
    static func * (lhs: Self, rhs: Self) -> Self
    static func / (lhs: Self, rhs: Self) -> Self
    /// The value as a double (for ranking ties and the displayed text).
    var doubleValue: Double { get }
}

extension Double: ContributionArithmetic {
    package var doubleValue: Double { self }
}

extension ContributionArithmetic {
    var magnitude: Self { self < .zero ? .zero - self : self }
    static func sum<S: Sequence>(_ values: S) -> Self where S.Element == Self {
        values.reduce(.zero, +)
    }
}
