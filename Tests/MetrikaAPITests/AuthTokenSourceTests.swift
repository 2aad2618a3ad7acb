import Foundation
import Testing
@testable import MetrikaAPI

@Suite("Token source order and masking")
struct AuthTokenSourceTests {
    @Test func orderIsOptionThenEnvironmentThenDefaultFile() throws {
        let scratch = try AuthScratch()
        let environment = ["XDG_CONFIG_HOME": scratch.path, "HOME": "/nonexistent"]
        try TokenFile(path: scratch.path + "/metrika/token.json").write(StoredToken(accessToken: "from-default-file", obtainedAt: Date(), clientID: "c"))
        try TokenFile(path: scratch.path + "/other.json").write(StoredToken(accessToken: "from-option-file", obtainedAt: Date()))

        let fromDefault = try TokenSource.resolve(tokenFile: nil, environment: environment)
        #expect(fromDefault.token == "from-default-file")
        #expect(fromDefault.source == "token file \(scratch.path)/metrika/token.json")
        #expect(fromDefault.stored?.clientID == "c")

        var withVariable = environment
        withVariable["METRIKA_TOKEN"] = " from-variable\n"
        let fromVariable = try TokenSource.resolve(tokenFile: nil, environment: withVariable)
        #expect(fromVariable.token == "from-variable")
        #expect(fromVariable.source == "METRIKA_TOKEN")
        #expect(fromVariable.path == nil)

        let fromOption = try TokenSource.resolve(tokenFile: scratch.path + "/other.json", environment: withVariable)
        #expect(fromOption.token == "from-option-file")
        #expect(fromOption.path == scratch.path + "/other.json")
    }

    @Test(arguments: [
        ("y0_abc\r\nX-Injected: 1", "a line break (CR or LF) inside it"),
        ("y0_abc\ndef", "a line break (CR or LF) inside it"),
        ("y0_abc\u{1B}[2Jdef", "a control character inside it"),
        ("y0_abc\u{85}def", "a control character inside it"),
        ("y0_abc def", "a space or a non-ASCII character, which a token never has"),
        ("y0_abcтокен", "a space or a non-ASCII character, which a token never has"),
    ])
    func aTokenWithControlCharactersIsRefusedWithoutBeingQuoted(_ token: String, problem: String) throws {
        let scratch = try AuthScratch()
        let error = #expect(throws: AuthError.self) {
            try TokenSource.resolve(tokenFile: nil, environment: ["XDG_CONFIG_HOME": scratch.path, "METRIKA_TOKEN": token])
        }
        #expect(error == .malformedToken(source: "METRIKA_TOKEN", problem: problem))
        #expect(error?.exitCode == 78)
        #expect(error.map { !$0.message.contains("y0_abc") && $0.message.contains("METRIKA_TOKEN") } == true)

        let file = TokenFile(path: scratch.path + "/token.json")
        try file.write(StoredToken(accessToken: token, obtainedAt: Date()))
        let fromFile = #expect(throws: AuthError.self) { try TokenSource.resolve(tokenFile: file.path, environment: [:]) }
        #expect(fromFile == .malformedToken(source: "the token file \(file.path)", problem: problem))
        #expect(fromFile.map { !$0.message.contains("y0_abc") } == true)
    }

    @Test func notSignedInWhenNothingIsThere() throws {
        let scratch = try AuthScratch()
        #expect(throws: AuthError.notSignedIn) { try TokenSource.resolve(tokenFile: nil, environment: ["XDG_CONFIG_HOME": scratch.path, "METRIKA_TOKEN": "  "]) }
        #expect(AuthError.notSignedIn.message.contains("metrika login"))
        #expect(AuthError.notSignedIn.exitCode == 77)
    }

    @Test func defaultPathFollowsXDG() {
        #expect(TokenSource.defaultPath(environment: ["XDG_CONFIG_HOME": "/x/cfg", "HOME": "/h"]) == "/x/cfg/metrika/token.json")
        #expect(TokenSource.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]) == "/h/.config/metrika/token.json")
        #expect(TokenSource.defaultPath(environment: ["HOME": "/h"]) == "/h/.config/metrika/token.json")
    }

    @Test(arguments: [
        ("y0_AgAAAAAA" + String(repeating: "x", count: 45) + "Xk", "y0_A…Xk (58 characters)"),
        ("abcdefghijklmnop", "abcd…op (16 characters)"),
        ("abcdefghijklmno", "(hidden, 15 characters)"),
        ("demo-token", "(hidden, 10 characters)"),
        ("x", "(hidden, 1 character)"),
    ])
    func masksTokens(token: String, masked: String) {
        #expect(TokenMask.mask(token) == masked)
    }

    @Test func clientCredentialsOrder() throws {
        let scratch = try AuthScratch()
        let config = scratch.path + "/metrika/config.json"
        try FileManager.default.createDirectory(atPath: scratch.path + "/metrika", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: config, contents: Data(#"{"client_id": "cfg-id", "client_secret": "cfg-secret"}"#.utf8), attributes: [.posixPermissions: 0o600])
        var environment = ["XDG_CONFIG_HOME": scratch.path]
        #expect(try ClientCredentials.resolve(clientID: nil, clientSecret: nil, environment: environment)
            == ClientCredentials(clientID: "cfg-id", clientSecret: "cfg-secret", source: "config file \(config)"))
        environment["METRIKA_CLIENT_ID"] = "env-id"
        environment["METRIKA_CLIENT_SECRET"] = "env-secret"
        #expect(try ClientCredentials.resolve(clientID: nil, clientSecret: nil, environment: environment)
            == ClientCredentials(clientID: "env-id", clientSecret: "env-secret", source: "METRIKA_CLIENT_ID"))
        #expect(try ClientCredentials.resolve(clientID: "opt-id", clientSecret: "opt-secret", environment: environment)
            == ClientCredentials(clientID: "opt-id", clientSecret: "opt-secret", source: "--client-id"))
        // For refresh, the app that issued the token wins; another app's secret is not sent to it.
        #expect(try ClientCredentials.forIssuer("other-app", environment: environment)
            == ClientCredentials(clientID: "other-app", clientSecret: nil, source: "the token file"))
        #expect(try ClientCredentials.forIssuer("env-id", environment: environment)?.clientSecret == "env-secret")
        // A config file with a secret that others can read is refused.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: config)
        #expect(throws: AuthError.self) { try ClientCredentials.resolve(clientID: nil, clientSecret: nil, environment: ["XDG_CONFIG_HOME": scratch.path]) }
    }

    @Test func formEncodingIsStrict() {
        #expect(FormEncoding.encode([("a b", "x+y&z=1/é~._-")]) == "a%20b=x%2By%26z%3D1%2F%C3%A9~._-")
        let decoded = FormEncoding.decode("a%20b=x%2By%26z%3D1%2F%C3%A9&c=d+e&flag")
        #expect(decoded.map { $0.0 } == ["a b", "c", "flag"])
        #expect(decoded.map { $0.1 } == ["x+y&z=1/é", "d e", ""])
    }
}
