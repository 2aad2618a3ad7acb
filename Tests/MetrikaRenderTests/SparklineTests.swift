import Testing

@testable import MetrikaRender

@Suite("Sparkline")
struct SparklineTests {
    // Index = round((v - min) / (max - min) * 7), halves away from zero, into ▁▂▃▄▅▆▇█.
    static let nan = Double.nan
    static let infinity = Double.infinity
    static let cases: [([Double?], String)] = [
        ([], ""),
        ([1, 2, 3, 4, 5, 6, 7, 8], "▁▂▃▄▅▆▇█"),
        ([8, 7, 6, 5, 4, 3, 2, 1], "█▇▆▅▄▃▂▁"),
        ([0, 10], "▁█"),
        ([0, 5, 10], "▁▅█"),
        ([0, 1, 2, 3], "▁▃▆█"),
        ([-10, 0, 10], "▁▅█"),
        ([5, 5, 5], "▄▄▄"),
        ([42], "▄"),
        ([nil, 3, nil], "·▄·"),
        ([nil, nil], "··"),
        ([0, nil, 10], "▁·█"),
        ([nan, 0, infinity, 7, -infinity], "·▁·█·"),
        ([-1e308, 1e308, 0], "▁█▅")
    ]

    @Test(arguments: cases)
    func render(_ values: [Double?], expected: String) {
        #expect(Sparkline.render(values) == expected)
    }

    @Test func oneCharacterPerValueAndDeterministic() {
        var values: [Double?] = []
        for index in 0..<200 {
            let value = Double((index * 37) % 101)
            values.append(index % 17 == 0 ? nil : value)
        }
        let first = Sparkline.render(values)
        #expect(first.count == values.count)
        #expect(first == Sparkline.render(values))
        #expect(first.allSatisfy { Sparkline.bars.contains($0) || $0 == Sparkline.missing })
        #expect(first.filter { $0 == Sparkline.missing }.count == 12) // 0, 17, ..., 187
    }
}
