import Foundation

/// News a run is about to tell about one episode (an `AlertEpisode` of either grain), claimed
/// (`HistoryStore.claimNews`) before it is printed or delivered, so that overlapping runs tell it once.
package enum AlertNews: Sendable, Equatable {
    /// A new anomaly: claimed when no episode of its counter, metric and grain of the same kind is
    /// open; the claim opens it (replacing an episode of another kind).
    case open(AlertEpisode)
    /// An open episode that ended (back to normal): claimed while that episode is still open; the
    /// claim closes it.
    case close(AlertEpisode)

    /// The episode it is about.
    package var episode: AlertEpisode {
        switch self {
        case .open(let episode), .close(let episode): return episode
        }
    }
}

/// A claim won: the news, as written (an opened episode carries its new id), and the episode it
/// replaced or closed, restored when the news could not be delivered (`HistoryStore.releaseClaims`).
package struct AlertClaim: Sendable, Equatable {
    package var news: AlertNews
    package var previous: AlertEpisode?

    package init(news: AlertNews, previous: AlertEpisode?) {
        self.news = news
        self.previous = previous
    }
}
