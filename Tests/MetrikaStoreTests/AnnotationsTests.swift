import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaStore

/// A counter's chart annotations kept in the history (migration 17): a read replaces the set whole,
/// one written by `metrika annotate` is added at once.
@Suite struct AnnotationsTests {
    let day = Day(iso: "2026-11-29")!
    let read = Date(timeIntervalSince1970: 1_795_953_600)

    @Test func aReadReplacesTheCountersSetAndSaysWhen() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/h.sqlite"
            let store = try await HistoryStore.open(path: path)
            #expect(try await store.storedAnnotations(counterID: 1005) == nil)
            let template = Annotation(
                id: 7, day: day, time: "10:00", title: "Новый шаблон сайта", message: "Вёрстка", group: "B")
            let sale = Annotation(id: 3, day: day.adding(days: -3), title: "Распродажа")
            try await store.storeAnnotations(counterID: 1005, [template, sale], readAt: read)
            try await store.storeAnnotations(counterID: 1001, [sale], readAt: read)
            // A reopened store (the next run) sees the set in the API's order, and when it was read.
            let kept = try #require(try await HistoryStore.open(path: path).storedAnnotations(counterID: 1005))
            #expect(kept.annotations == [template, sale] && kept.readAt == read)
            // Deleted in Metrika: the next read has it no more, and neither has the history.
            try await store.storeAnnotations(counterID: 1005, [sale], readAt: read.addingTimeInterval(3600))
            let after = try #require(try await store.storedAnnotations(counterID: 1005))
            #expect(after.annotations == [sale] && after.readAt == read.addingTimeInterval(3600))
            // An empty set is kept as read (not read again within the window), and other counters keep theirs.
            try await store.storeAnnotations(counterID: 1005, [], readAt: read)
            #expect(try await store.storedAnnotations(counterID: 1005)?.annotations == [])
            #expect(try await store.storedAnnotations(counterID: 1001)?.annotations == [sale])
            let version = try rawRows(
                path, "SELECT version FROM metrika_migrations WHERE name = 'chart_annotations'"
            ).first?.first?.int
            #expect(version == 17)
        }
    }

    @Test func aWrittenAnnotationIsAddedWithoutAReadTime() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        let written = Annotation(id: 100_150, day: day, title: "Распродажа")
        try await store.keepWrittenAnnotation(counterID: 1001, written)
        let alone = try #require(try await store.storedAnnotations(counterID: 1001))
        #expect(alone.annotations == [written] && alone.readAt == nil, "never read whole: the next online run reads")
        let earlier = Annotation(id: 5, day: day, title: "Старое")
        try await store.storeAnnotations(counterID: 1001, [earlier], readAt: read)
        try await store.keepWrittenAnnotation(counterID: 1001, written)
        try await store.keepWrittenAnnotation(counterID: 1001, written)
        let kept = try #require(try await store.storedAnnotations(counterID: 1001))
        #expect(kept.annotations == [earlier, written] && kept.readAt == read, "added last, once")
    }
}
