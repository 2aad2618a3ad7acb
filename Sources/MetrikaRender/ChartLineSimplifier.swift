/// Turns a series' positioned points into the runs of line that a chart draws: a gap (a missing day)
/// ends a run, and a run with more points than the plot has pixel columns keeps only the lowest and
/// highest point of each column, which looks the same at that width and keeps ten years of daily data
/// to a few thousand path points.
package enum ChartLineSimplifier {
    /// A point in plot coordinates.
    package struct Point: Hashable, Sendable {
        package var x: Double
        package var y: Double
        package init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// Splits `points` (ascending x; nil y = missing) at every nil into runs, simplifying each run that
    /// has more points than there are pixel columns between its ends.
    package static func runs(_ points: [(x: Double, y: Double?)]) -> [[Point]] {
        var runs: [[Point]] = []
        var current: [Point] = []
        for point in points {
            if let y = point.y, y.isFinite {
                current.append(Point(x: point.x, y: y))
            } else if !current.isEmpty {
                runs.append(current)
                current = []
            }
        }
        if !current.isEmpty { runs.append(current) }
        return runs.map(simplify)
    }

    /// Keeps, for every whole-pixel column, the column's lowest and highest point (in their original
    /// order) once there are more than two points per column: at one pixel per column the line drawn
    /// through them covers the same pixels as the full line, give or take one.
    package static func simplify(_ run: [Point]) -> [Point] {
        guard let first = run.first, let last = run.last else { return run }
        let columns = Int((last.x - first.x).rounded(.up)) + 1
        guard run.count > columns * 2 else { return run }
        var result: [Point] = []
        result.reserveCapacity(columns * 2)
        var index = 0
        while index < run.count {
            let column = Int(run[index].x.rounded(.down))
            var end = index
            var lowest = index
            var highest = index
            // The whole column is this index range: its points share one floor(x).
            while end < run.count, Int(run[end].x.rounded(.down)) == column {
                if run[end].y < run[lowest].y { lowest = end }
                if run[end].y > run[highest].y { highest = end }
                end += 1
            }
            result.append(run[min(lowest, highest)])
            if lowest != highest { result.append(run[max(lowest, highest)]) }
            index = end
        }
        return result
    }
}
