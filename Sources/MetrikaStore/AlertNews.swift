import Foundation
import MetrikaModel

/// News a run is about to tell about one episode (an `AlertEpisode` of either grain), claimed
/// (`HistoryStore.claimNews`) before it is printed or delivered, so that overlapping runs tell it once.
package enum AlertNews: Sendable, Equatable {
    /// A new anomaly: claimed when no episode of its counter, metric and grain of the same kind is
    /// open; the claim opens it (replacing an episode of another kind).
    case open(AlertEpisode)
    /// An open episode that ended (back to normal): claimed while that episode is still open; the
    /// claim closes it.
    case close(AlertEpisode)
    /// An open hour's episode whose story the daily check continues for `day` (`still stopped since
    /// …`): claimed while that episode is open and was not continued for `day` yet (once a day at most).
    case continueStory(AlertEpisode, day: Day)

    /// The episode it is about.
    package var episode: AlertEpisode {
        switch self {
        case .open(let episode), .close(let episode), .continueStory(let episode, _): return episode
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
