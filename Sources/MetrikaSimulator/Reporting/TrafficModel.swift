import Foundation

/// Whole-population figures of one counter on one day: the additive counts every metric is
/// computed from.
struct DayFigures: Sendable {
    var visits = 0
    var pageviews = 0
    var bounces = 0
    var durationSeconds = 0
    /// Distinct visitors that day (≤ visits).
    var users = 0
    /// Visitors whose first visit ever was that day (≤ users).
    var newUsers = 0
    var robotVisits = 0
    /// Visits that reached each goal of the counter, in fixture order.
    var goalReaches: [Int] = []
    /// E-commerce purchases and their revenue in kopecks (roubles × 100: sums stay exact).
    var purchases = 0
    var revenueKopecks = 0
}

/// Figures of a run of days (a report's period, or one bucket of it).
struct PeriodFigures: Sendable {
    var visits = 0
    var pageviews = 0
    var bounces = 0
    var durationSeconds = 0
    var dailyUsersSum = 0
    var maxDailyUsers = 0
    var newUsers = 0
    var robotVisits = 0
    var goalReaches: [Int]
    var purchases = 0
    var revenueKopecks = 0
    /// Days with at least one visit.
    var activeDays = 0

    init(goalCount: Int) {
        goalReaches = Array(repeating: 0, count: goalCount)
    }

    mutating func add(_ day: DayFigures) {
        guard day.visits > 0 else { return }
        visits += day.visits
        pageviews += day.pageviews
        bounces += day.bounces
        durationSeconds += day.durationSeconds
        dailyUsersSum += day.users
        maxDailyUsers = max(maxDailyUsers, day.users)
        newUsers += day.newUsers
        robotVisits += day.robotVisits
        for (index, reaches) in day.goalReaches.enumerated() where index < goalReaches.count {
            goalReaches[index] += reaches
        }
        purchases += day.purchases
        revenueKopecks += day.revenueKopecks
        activeDays += 1
    }

    /// Distinct visitors over the whole run. Users repeat across days, so this is less than the sum
    /// of daily users whenever two or more days have visits: every new visitor counts once, and only
    /// a shrinking share `1 / (1 + 0.45 ln n)` of the returning daily visitors are distinct people.
    /// It is never less than any single day's users nor than the period's new users.
    var users: Int {
        guard activeDays > 1 else { return dailyUsersSum }
        let returning = dailyUsersSum - newUsers
        let distinctShare = 1 / (1 + 0.45 * log(Double(activeDays)))
        var result = newUsers + Int((Double(returning) * distinctShare).rounded(.down))
        result = max(result, maxDailyUsers)
        result = min(result, dailyUsersSum - 1)
        return max(result, newUsers)
    }
}

/// The clock as one counter sees it: its local today, and how much of today has passed.
struct CounterClock: Sendable {
    let today: Day
    let fractionOfToday: Double
    /// The local hour running now (0–23), and the part of it that has passed.
    let hour: Int
    let fractionOfHour: Double

    init(now: Date, timeZone: TimeZone) {
        let offset = timeZone.secondsFromGMT(for: now)
        let local = now.timeIntervalSince1970 + Double(offset)
        today = Day(epochSeconds: now.timeIntervalSince1970, offsetSeconds: offset)
        let seconds = min(86_400, max(0, local - Double(today.number) * 86_400))
        fractionOfToday = seconds / 86_400
        hour = min(23, Int(seconds / 3_600))
        fractionOfHour = min(1, (seconds - Double(hour) * 3_600) / 3_600)
    }
}

/// The deterministic traffic generator: daily figures per counter from a seeded model with weekly
/// seasonality, a slow trend and noise. Nothing is stored; the same day always gives the same
/// figures (except today, which grows hour by hour along the daily curve as the day passes).
struct TrafficModel: Sendable {
    /// Monday-first weekly shape: weekdays busier than weekends.
    static let weekly: [Double] = [1.06, 1.09, 1.07, 1.04, 0.96, 0.84, 0.88]

    /// The daily curve by local hour (00:00 first), as shares of a whole day: the night low (04:00
    /// about a tenth of the afternoon), the afternoon high. Sums to 1.
    static let hourly: [Double] = {
        let shape: [Double] = [
            0.34, 0.22, 0.15, 0.11, 0.10, 0.12, 0.22, 0.42, 0.66, 0.86, 1.00, 1.08,
            1.12, 1.15, 1.18, 1.16, 1.12, 1.06, 1.02, 0.98, 0.94, 0.84, 0.68, 0.50
        ]
        let sum = shape.reduce(0, +)
        return shape.map { $0 / sum }
    }()

    /// The share of a whole day's traffic each local hour of `day` holds: the daily curve, with the
    /// hours that have not happened yet (today after the running hour) and the hours from the
    /// counter's `stops_at` on at 0, and the running hour scaled by the part of it that has passed.
    func hourWeights(_ counter: CounterFixture, on day: Day, clock: CounterClock) -> [Double] {
        var weights = TrafficModel.hourly
        for hour in 0..<24 {
            if day == clock.today, hour > clock.hour { weights[hour] = 0 }
            if day == clock.today, hour == clock.hour { weights[hour] *= clock.fractionOfHour }
            if let stop = counter.stopsAt, stop.covers(day, hour: hour) { weights[hour] = 0 }
        }
        return weights
    }

    /// A report's `ym:s:date`/`ym:s:hour` filter, for reports not by hour: each day's figures are the
    /// sum of the hours it passes (`hourFigures`, so they agree with a report by hour exactly; nil:
    /// every hour). Reports by hour cut their rows instead.
    var timeFilter: TimeFilter? = nil

    /// The part of a whole day's traffic `day` has: exactly 1 for a past day the counter recorded
    /// whole; less for today (the hours so far) and for the day tracking stopped.
    func dayShare(_ counter: CounterFixture, on day: Day, clock: CounterClock) -> Double {
        let partial = day == clock.today || (counter.stopsAt.map { $0.day <= day } ?? false)
        return partial ? hourWeights(counter, on: day, clock: clock).reduce(0, +) : 1
    }

    /// The figures of `counter` on `day` by local hour (00:00 first): the day's figures split over
    /// `hourWeights` with largest-remainder rounding, so each count's hours add up to the day's
    /// exactly. Hours that have not happened (and hours after a stop) are all zero.
    func hourFigures(_ counter: CounterFixture, on day: Day, clock: CounterClock) -> [DayFigures] {
        let whole = figures(counter, on: day, clock: clock)
        var hours = Array(
            repeating: DayFigures(goalReaches: Array(repeating: 0, count: counter.goals.count)), count: 24)
        guard whole.visits > 0 else { return hours }
        let weights = hourWeights(counter, on: day, clock: clock)
        func split(_ total: Int, _ assign: (inout DayFigures, Int) -> Void) {
            var parts = Array(repeating: 0, count: 24)
            PathSet.splitLargestRemainder(total, shares: weights, range: 0..<24, into: &parts)
            for hour in 0..<24 { assign(&hours[hour], parts[hour]) }
        }
        split(whole.visits) { $0.visits = $1 }
        split(whole.pageviews) { $0.pageviews = $1 }
        split(whole.bounces) { $0.bounces = $1 }
        split(whole.durationSeconds) { $0.durationSeconds = $1 }
        split(whole.users) { $0.users = $1 }
        split(whole.newUsers) { $0.newUsers = $1 }
        split(whole.robotVisits) { $0.robotVisits = $1 }
        for (index, reaches) in whole.goalReaches.enumerated() { split(reaches) { $0.goalReaches[index] = $1 } }
        split(whole.purchases) { $0.purchases = $1 }
        split(whole.revenueKopecks) { $0.revenueKopecks = $1 }
        return hours
    }

    /// The per-counter constants of the model.
    struct Profile: Sendable {
        let depth: Double
        let bounce: Double
        let duration: Double
        let userRatio: Double
        let newShare: Double
        let robotShare: Double

        init(counterID id: Int) {
            depth = Seed.between(1.6...3.4, id, 1)
            bounce = Seed.between(0.12...0.34, id, 2)
            duration = Seed.between(85...260, id, 3)
            userRatio = Seed.between(0.74...0.88, id, 4)
            newShare = Seed.between(0.52...0.74, id, 5)
            robotShare = Seed.between(0.01...0.06, id, 6)
        }
    }

    /// The figures of `counter` on `day`; zero visits for days before creation, after today, and
    /// on the fixture's zero days. Today is scaled by the part of the day that has passed.
    func figures(_ counter: CounterFixture, on day: Day, clock: CounterClock) -> DayFigures {
        if let timeFilter {
            var whole = self
            whole.timeFilter = nil
            var sum = DayFigures(goalReaches: Array(repeating: 0, count: counter.goals.count))
            for (hour, figures) in whole.hourFigures(counter, on: day, clock: clock).enumerated()
            where timeFilter.passes(day: day, hour: hour) {
                sum.visits += figures.visits
                sum.pageviews += figures.pageviews
                sum.bounces += figures.bounces
                sum.durationSeconds += figures.durationSeconds
                sum.users += figures.users
                sum.newUsers += figures.newUsers
                sum.robotVisits += figures.robotVisits
                for index in sum.goalReaches.indices { sum.goalReaches[index] += figures.goalReaches[index] }
                sum.purchases += figures.purchases
                sum.revenueKopecks += figures.revenueKopecks
            }
            return sum
        }
        guard day >= counter.createDay, day <= clock.today, !counter.zeroDays.contains(day),
            !counter.outages.contains(where: { $0.contains(day) })
        else {
            return DayFigures(goalReaches: Array(repeating: 0, count: counter.goals.count))
        }
        let id = counter.id
        let n = day.number
        let age = Double(day.number - counter.createDay.number)
        let trend = 1 + 0.3 * min(age, 1_500) / 730
        let season = 1 + 0.08 * sin(2 * Double.pi * Double(n) / 365.25 + Seed.between(0...6.28, id, 7))
        let noise = Seed.between(0.88...1.12, id, 10, n)
        let rampUp = min(1, (age + 1) / 10)
        let shape = counter.weekly?[day.weekdayFromMonday] ?? TrafficModel.weekly[day.weekdayFromMonday]
        var expected = counter.traffic * trend * season * shape * noise * rampUp
        for wave in counter.waves where wave.days.contains(day) { expected *= wave.factor }
        let segments = counter.segmentWaveEffect(on: day)
        expected *= segments.scale
        // Today so far (the hours that have passed, by the daily curve) or a day cut short by a stop.
        let share = dayShare(counter, on: day, clock: clock)
        expected *= share
        let visits = Int(expected.rounded())
        guard visits > 0 else { return DayFigures(goalReaches: Array(repeating: 0, count: counter.goals.count)) }

        let profile = Profile(counterID: id)
        let v = Double(visits)
        var f = DayFigures()
        f.visits = visits
        // A fixture's steady rates have no day-to-day noise; a day's moved mix or rate waves move them
        // (`rateMix`: what the segments' own rates make of the day's rate).
        func rateNoise(_ range: ClosedRange<Double>, _ salt: Int) -> Double {
            counter.steadyRates ? 1 : Seed.between(range, id, salt, n)
        }
        let mix = counter.rateWaves.isEmpty && counter.segmentWaves.isEmpty ? .one : counter.rateMix(on: day)
        let depth = (profile.depth - 1) * rateNoise(0.92...1.08, 11) * mix[AttributeModel.Facet.depth.rawValue - 1]
        f.pageviews = visits + Int((v * depth).rounded())
        let bounce = profile.bounce * rateNoise(0.9...1.1, 12) * mix[AttributeModel.Facet.bounce.rawValue - 1]
        f.bounces = min(visits, Int((v * bounce).rounded()))
        let duration = profile.duration * rateNoise(0.9...1.1, 13) * mix[AttributeModel.Facet.duration.rawValue - 1]
        f.durationSeconds = Int((v * duration).rounded())
        f.users = max(1, min(visits, Int((v * profile.userRatio * rateNoise(0.97...1.03, 14)).rounded())))
        // At least one returning visitor whenever there are two: period users stay below the daily sum.
        let newUsers = Int((Double(f.users) * profile.newShare * Seed.between(0.95...1.05, id, 15, n)).rounded())
        f.newUsers = f.users >= 2 ? min(newUsers, f.users - 1) : min(newUsers, f.users)
        f.robotVisits = min(visits, Int((v * profile.robotShare * Seed.between(0.8...1.2, id, 16, n)).rounded()))
        // A bot wave on one segment: the visits it added are robots'.
        f.robotVisits = min(visits, f.robotVisits + Int((v * segments.robots).rounded()))
        f.goalReaches = counter.goals.map { goal in
            if goal.outages.contains(where: { $0.contains(day) }) { return 0 }
            if let perDay = goal.perDay {
                var mean = perDay * shape
                mean *= share
                return min(visits, TrafficModel.poisson(mean: mean, uniform: Seed.unit(id, goal.id &* 7919, n)))
            }
            let conversion = goal.conversionPercent / 100 * mix[AttributeModel.Facet.conversion.rawValue - 1]
            return min(visits, Int((v * conversion * Seed.between(0.85...1.15, id, goal.id, n)).rounded()))
        }
        if let percent = counter.purchasePercent {
            // Some days have no purchase at all (small shops): their average order value is undefined.
            let purchaseSpread: ClosedRange<Double> = counter.steadyShop ? 0.9...1.1 : 0.3...1.5
            f.purchases = min(visits, Int((v * percent / 100 * Seed.between(purchaseSpread, id, 17, n)).rounded(.down)))
            var order = counter.averageOrder * Seed.between(counter.steadyShop ? 0.95...1.05 : 0.7...1.3, id, 18, n)
            for wave in counter.orderWaves where wave.days.contains(day) { order *= wave.factor }
            f.revenueKopecks = Int((Double(f.purchases) * order * 100).rounded())
        }
        return f
    }

    /// A Poisson count with `mean` by inversion of one uniform number (deterministic for a seed).
    static func poisson(mean: Double, uniform: Double) -> Int {
        guard mean > 0 else { return 0 }
        var k = 0
        var probability = exp(-mean)
        var cumulative = probability
        while uniform > cumulative, k < 10_000 {
            k += 1
            probability *= mean / Double(k)
            cumulative += probability
        }
        return k
    }

    /// The figures of `counter` summed over `first...last`.
    func period(_ counter: CounterFixture, from first: Day, through last: Day, clock: CounterClock) -> PeriodFigures {
        var result = PeriodFigures(goalCount: counter.goals.count)
        guard first <= last else { return result }
        let start = max(first, counter.createDay)
        let end = min(last, clock.today)
        guard start <= end else { return result }
        for day in start...end {
            result.add(figures(counter, on: day, clock: clock))
        }
        return result
    }
}
