import Foundation
import MetrikaCLI
import MetrikaSystem
import Testing

@testable import MetrikaAPI

@Suite("Token source order and masking")
struct AuthTokenSourceTests {
    @Test func orderIsOptionThenEnvironmentThenDefaultFile() async throws {
        let scratch = try AuthScratch()
        let environment = ["XDG_CONFIG_HOME": scratch.path, "HOME": "/nonexistent"]
        try TokenFile(path: scratch.path + "/metrika/token.json").write(
            StoredToken(accessToken: "from-default-file", obtainedAt: Date(), clientID: "c"))
        try TokenFile(path: scratch.path + "/other.json").write(
            StoredToken(accessToken: "from-option-file", obtainedAt: Date()))

        let fromDefault = try await TokenSource.resolve(tokenFile: nil, environment: environment)
        #expect(fromDefault.token == "from-default-file")
        #expect(fromDefault.source == "token file \(scratch.path)/metrika/token.json")
        #expect(fromDefault.stored?.clientID == "c")

        var withVariable = environment
        withVariable["METRIKA_TOKEN"] = " from-variable\n"
        let fromVariable = try await TokenSource.resolve(tokenFile: nil, environment: withVariable)
        #expect(fromVariable.token == "from-variable")
        #expect(fromVariable.source == "METRIKA_TOKEN")
        #expect(fromVariable.path == nil)

        let fromOption = try await TokenSource.resolve(
            tokenFile: scratch.path + "/other.json", environment: withVariable)
        #expect(fromOption.token == "from-option-file")
        #expect(fromOption.path == scratch.path + "/other.json")
    }

    @Test(arguments: [
        ("y0_abc\r\nX-Injected: 1", "a line break (CR or LF) inside it"),
        ("y0_abc\ndef", "a line break (CR or LF) inside it"),
        ("y0_abc\u{1B}[2Jdef", "a control character inside it"),
        ("y0_abc\u{85}def", "a control character inside it"),
        ("y0_abc def", "a space or a non-ASCII character, which a token never has"),
        ("y0_abcтокен", "a space or a non-ASCII character, which a token never has")
    ])
    func aTokenWithControlCharactersIsRefusedWithoutBeingQuoted(_ token: String, problem: String) async throws {
        let scratch = try AuthScratch()
        let error = await #expect(throws: AuthError.self) {
            try await TokenSource.resolve(
                tokenFile: nil, environment: ["XDG_CONFIG_HOME": scratch.path, "METRIKA_TOKEN": token])
        }
        #expect(error == .malformedToken(source: "METRIKA_TOKEN", problem: problem))
        #expect(error?.exitCode == 78)
        #expect(error.map { !$0.message.contains("y0_abc") && $0.message.contains("METRIKA_TOKEN") } == true)

        let file = TokenFile(path: scratch.path + "/token.json")
        try file.write(StoredToken(accessToken: token, obtainedAt: Date()))
        let fromFile = await #expect(throws: AuthError.self) {
            try await TokenSource.resolve(tokenFile: file.path, environment: [:])
        }
        #expect(fromFile == .malformedToken(source: "the token file \(file.path)", problem: problem))
        #expect(fromFile.map { !$0.message.contains("y0_abc") } == true)
    }

    @Test func notSignedInWhenNothingIsThere() async throws {
        let scratch = try AuthScratch()
        await #expect(throws: AuthError.notSignedIn) {
            try await TokenSource.resolve(
                tokenFile: nil, environment: ["XDG_CONFIG_HOME": scratch.path, "METRIKA_TOKEN": "  "])
        }
        #expect(AuthError.notSignedIn.message(.cli).contains("metrika login"))
        #expect(AuthError.notSignedIn.exitCode == 77)
    }

    @Test func defaultPathFollowsXDG() async {
        #expect(
            TokenSource.defaultPath(environment: ["XDG_CONFIG_HOME": "/x/cfg", "HOME": "/h"])
                == "/x/cfg/metrika/token.json")
        #expect(
            TokenSource.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"])
                == "/h/.config/metrika/token.json")
        #expect(TokenSource.defaultPath(environment: ["HOME": "/h"]) == "/h/.config/metrika/token.json")
    }

    @Test(arguments: [
        ("y0_AgAAAAAA" + String(repeating: "x", count: 45) + "Xk", "y0_A…Xk (58 characters)"),
        ("abcdefghijklmnop", "abcd…op (16 characters)"),
        ("abcdefghijklmno", "(hidden, 15 characters)"),
        ("demo-token", "(hidden, 10 characters)"),
        ("x", "(hidden, 1 character)")
    ])
    func masksTokens(token: String, masked: String) {
        #expect(TokenMask.mask(token) == masked)
    }

    @Test func clientCredentialsOneOrderEachOnItsOwn() async throws {
        let config = ConfigFile(
            path: "/c/config.json", clientID: "cfg-id", clientSecret: "cfg-secret", counters: nil, profiles: [:])
        let profile = ConfigFile.Profile(name: "work", clientID: "prof-id", clientSecret: "prof-secret")
        func resolve(
            _ option: (String?, String?) = (nil, nil), environment: [String: String] = [:],
            profile: ConfigFile.Profile? = nil,
            config: ConfigFile? = nil, token: String? = nil
        ) -> ClientCredentials? {
            ClientCredentials.resolve(
                clientID: option.0, clientSecret: option.1, environment: environment, profile: profile, config: config,
                tokenClientID: token)
        }
        #expect(resolve() == nil)
        #expect(
            resolve(token: "tok-id")
                == ClientCredentials(clientID: "tok-id", clientSecret: nil, source: "the token file"))
        #expect(
            resolve(config: config, token: "cfg-id")
                == ClientCredentials(
                    clientID: "cfg-id", clientSecret: "cfg-secret", source: "the config file /c/config.json"))
        #expect(
            resolve(profile: profile, config: config)
                == ClientCredentials(clientID: "prof-id", clientSecret: "prof-secret", source: "profile 'work'"))
        let environment = ["METRIKA_CLIENT_ID": "env-id", "METRIKA_CLIENT_SECRET": "env-secret"]
        #expect(
            resolve(environment: environment, profile: profile, config: config)
                == ClientCredentials(
                    clientID: "env-id", clientSecret: "env-secret", source: "METRIKA_CLIENT_ID",
                    secretSource: "METRIKA_CLIENT_SECRET"))
        #expect(
            resolve(("opt-id", "opt-secret"), environment: environment)
                == ClientCredentials(
                    clientID: "opt-id", clientSecret: "opt-secret", source: "--client-id",
                    secretSource: "--client-secret"))
        // Each on its own: the secret alone completes the token file's id (the cron set-up).
        #expect(
            resolve(environment: ["METRIKA_CLIENT_SECRET": "env-secret"], token: "tok-id")
                == ClientCredentials(
                    clientID: "tok-id", clientSecret: "env-secret", source: "the token file",
                    secretSource: "METRIKA_CLIENT_SECRET"))
        #expect(
            resolve(
                environment: ["METRIKA_CLIENT_ID": "env-id"],
                config: ConfigFile(
                    path: "/c/config.json", clientID: nil, clientSecret: "cfg-secret", counters: nil, profiles: [:]))
                == ClientCredentials(
                    clientID: "env-id", clientSecret: "cfg-secret", source: "METRIKA_CLIENT_ID",
                    secretSource: "the config file /c/config.json"))
        // A secret next to another app's id belongs to that app: skipped.
        #expect(resolve(environment: ["METRIKA_CLIENT_ID": "env-id"], config: config)?.clientSecret == nil)

        // For a stored token: complete credentials of the issuing app, or why not.
        let complete = try #require(resolve(environment: environment))
        #expect(ClientCredentials.forToken(issuer: "env-id", resolved: complete) == .success(complete))
        #expect(ClientCredentials.forToken(issuer: nil, resolved: complete) == .success(complete))
        #expect(
            ClientCredentials.forToken(issuer: "other-app", resolved: complete)
                == .failure(.anotherApp(issuer: "other-app", configured: "env-id", source: "METRIKA_CLIENT_ID")))
        #expect(
            ClientCredentials.forToken(issuer: "tok-id", resolved: resolve(token: "tok-id"))
                == .failure(.noClientSecret(clientID: "tok-id")))
        #expect(ClientCredentials.forToken(issuer: nil, resolved: nil) == .failure(.noClientID))
    }

    @Test func formEncodingIsStrict() async {
        #expect(FormEncoding.encode([("a b", "x+y&z=1/é~._-")]) == "a%20b=x%2By%26z%3D1%2F%C3%A9~._-")
        let decoded = FormEncoding.decode("a%20b=x%2By%26z%3D1%2F%C3%A9&c=d+e&flag")
        #expect(decoded.map { $0.0 } == ["a b", "c", "flag"])
        #expect(decoded.map { $0.1 } == ["x+y&z=1/é", "d e", ""])
    }
}
