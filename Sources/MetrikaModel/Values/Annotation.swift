/// A chart annotation the counter's owner wrote in Metrika ("Новый шаблон сайта", "sale started"):
/// context shown beside a change, never a value. `GET /management/v1/counter/{id}/chart_annotations`.
package struct Annotation: Sendable, Equatable {
    package var id: Int
    package var day: Day
    /// `HH:MM` when the annotation names a time of day; nil for the whole day.
    package var time: String?
    package var title: String
    package var message: String
    /// Metrika's group, A to E (its colour in Metrika's charts).
    package var group: String

    package init(id: Int, day: Day, time: String? = nil, title: String, message: String = "", group: String = "A") {
        self.id = id
        self.day = day
        self.time = time
        self.title = title
        self.message = message
        self.group = group
    }
}
