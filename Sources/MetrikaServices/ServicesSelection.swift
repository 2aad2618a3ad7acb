/// What the person chose for this run, as the entry point read it (the CLI from its options): which
/// token file, profile and history database, and whether requests are logged. The services read the
/// environment and the config file for the rest.
package struct ServicesSelection: Sendable, Equatable {
    /// A profile named by the entry point, and what named it (`--profile`): said in its errors. Nil:
    /// METRIKA_PROFILE, if set, chooses.
    package struct Profile: Sendable, Equatable {
        package var name: String
        package var selectedBy: String

        package init(name: String, selectedBy: String) {
            self.name = name
            self.selectedBy = selectedBy
        }
    }

    /// The token file to read (login and logout: to write, to delete); nil: METRIKA_TOKEN, the
    /// profile's, the default one.
    package var tokenFile: String?
    package var profile: Profile?
    /// The history database's path (`HistoryStore.defaultPath` unless the entry point chose one).
    package var databasePath: String
    /// Every request logged as a note.
    package var verbose: Bool
    /// The OAuth app given for this run (login's own options), before the environment and the config.
    package var clientID: String?
    package var clientSecret: String?

    package init(
        tokenFile: String? = nil, profile: Profile? = nil, databasePath: String, verbose: Bool = false,
        clientID: String? = nil, clientSecret: String? = nil
    ) {
        self.tokenFile = tokenFile
        self.profile = profile
        self.databasePath = databasePath
        self.verbose = verbose
        self.clientID = clientID
        self.clientSecret = clientSecret
    }
}
