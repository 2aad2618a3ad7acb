import Foundation
import MetrikaTestSupport

/// A stand-in for libsecret's `secret-tool` in a scratch directory: it keeps the one secret it is
/// given in a file and records, for the tests to inspect, every argument vector and environment it
/// was started with and what it read on stdin. Put `directory` first on PATH.
final class FakeSecretTool: @unchecked Sendable {
    let scratch: TemporaryDirectory
    var directory: String { scratch.path + "/bin" }
    var secretPath: String { scratch.path + "/secret" }

    /// `hangSeconds` > 0 makes every call sleep that long first (a keyring waiting for a dialog).
    init(hangSeconds: Int = 0) throws {
        scratch = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let state = scratch.path
        let script = """
            #!/bin/sh
            state='\(state)'
            \(hangSeconds > 0 ? "sleep \(hangSeconds)" : "")
            printf '%s\\n' "$*" >> "$state/args"
            env >> "$state/environments"
            case "$1" in
            store) cat > "$state/secret"; cat "$state/secret" >> "$state/stdin" ;;
            lookup) [ -f "$state/secret" ] || exit 1; cat "$state/secret" ;;
            clear) [ -f "$state/secret" ] || exit 1; rm -f "$state/secret" ;;
            *) echo "secret-tool: unknown command" >&2; exit 2 ;;
            esac
            """
        let path = directory + "/secret-tool"
        try ExecutableFile.write(script, to: path)
    }

    /// The secret it holds now, or nil.
    var secret: String? { (try? String(contentsOfFile: secretPath, encoding: .utf8)) }
    /// Every argument vector, one line per call.
    var arguments: String { (try? String(contentsOfFile: scratch.path + "/args", encoding: .utf8)) ?? "" }
    /// Every environment it saw, `env` output appended per call.
    var environments: String { (try? String(contentsOfFile: scratch.path + "/environments", encoding: .utf8)) ?? "" }
    /// Everything it was handed on stdin by `store`.
    var stdin: String { (try? String(contentsOfFile: scratch.path + "/stdin", encoding: .utf8)) ?? "" }
}
