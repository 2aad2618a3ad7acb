import MetrikaModel

/// A problem with the history database, worded for the person who has to fix it.
///
/// Unusable files (not SQLite, damaged, someone else's database, written by a newer metrika, read-only
/// or in a read-only directory) exit with 78 (bad configuration) and are never modified; so does a
/// database (or its directory) that cannot be created: the history is metrika's state at a configured
/// place (METRIKA_DB, --db, XDG_DATA_HOME), not an output file the user asked for (73 is theirs). A
/// full disk exits with 74 (an I/O error); anything else with 1.
package struct StoreError: WordedFailure, CustomStringConvertible, Equatable {
    /// What went wrong.
    package enum Kind: Sendable, Hashable {
        /// The file at the path is not an SQLite database (a text file, random bytes, an encrypted file).
        case notADatabase
        /// The file is an SQLite database but damaged.
        case corrupt
        /// The file is a healthy SQLite database that metrika did not create.
        case notMetrikaDatabase
        /// The database was migrated by a newer metrika to a schema version this build does not know.
        case newerSchema(found: Int, supported: Int)
        /// The database file or its directory could not be created or opened.
        case cannotCreate
        /// An existing database cannot be written: the file is read-only, or its directory is and
        /// SQLite cannot create its write-ahead log files there (even to read, in WAL mode).
        case readOnly
        /// The database cannot grow: its disk is full (SQLITE_FULL), or the size limit is reached.
        case full
        /// The caller stored data for a counter it never stored with `upsertCounters`.
        case unknownCounter(Int)
        /// The caller passed values that do not fit (rows of the wrong width, repeated metrics).
        case invalidInput
        /// Any other SQLite failure, with its result code.
        case sqlite(code: Int32)
    }

    /// What went wrong.
    package let kind: Kind
    /// The database path.
    package let path: String
    /// SQLite's own words, or details from metrika.
    package let detail: String

    /// Creates an error.
    package init(_ kind: Kind, path: String, detail: String = "") {
        self.kind = kind
        self.path = path
        self.detail = detail
    }

    /// The sysexits code: 78 for an unusable file or one that cannot be created, 74 for a full disk,
    /// 1 otherwise (README's exit-code table and `metrika --help` say the same).
    package var exitCode: Int32 {
        switch kind {
        case .notADatabase, .corrupt, .notMetrikaDatabase, .newerSchema, .readOnly, .cannotCreate:
            return ExitCode.config
        case .full: return ExitCode.ioError
        case .unknownCounter, .invalidInput, .sqlite: return ExitCode.failure
        }
    }

    /// One line naming the file, the problem and what to do (`fix`, as the entry point words it).
    package func message(_ naming: ParameterNaming) -> String {
        fix.map { "\(problem) — \(naming.action($0))" } ?? problem
    }

    /// What would fix it, when the user can: another database, or one of its own fixes.
    package var fix: SuggestedAction? {
        switch kind {
        case .notADatabase, .notMetrikaDatabase: return .chooseAnotherDatabase
        case .corrupt: return .restoreDatabase
        case .newerSchema: return .upgradeForDatabase
        case .cannotCreate: return .checkDatabaseDirectory
        case .readOnly: return .makeDatabaseWritable
        case .full: return .freeDatabaseDisk
        case .unknownCounter, .invalidInput, .sqlite: return nil
        }
    }

    /// The file and what is wrong with it, without what to do about it.
    package var problem: String {
        let because = detail.isEmpty ? "" : " (\(detail))"
        switch kind {
        case .notADatabase:
            return "the history database \(path) is not an SQLite database\(because); metrika left it untouched"
        case .corrupt:
            return "the history database \(path) is damaged\(because); metrika left it untouched"
        case .notMetrikaDatabase:
            return "\(path) is an SQLite database that metrika did not create; metrika left it untouched"
        case .newerSchema(let found, let supported):
            return "the history database \(path) was written by a newer metrika (schema version \(found), "
                + "this metrika knows up to \(supported)); it was left untouched"
        case .cannotCreate:
            return "cannot create or open the history database \(path)\(because)"
        case .readOnly:
            return "the history database \(path) cannot be written\(because)"
        case .full:
            return "the history database \(path) is full\(because)"
        case .unknownCounter(let id):
            return "counter \(id) is not in the history database \(path); it must be stored before its statistics"
        case .invalidInput:
            return "refused to write to the history database \(path): \(detail)"
        case .sqlite:
            return "the history database \(path) failed\(because)"
        }
    }

    package var description: String { message }
}
