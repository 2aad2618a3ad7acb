import Foundation
import MetrikaCLI
import MetrikaModel
import Testing

@testable import MetrikaAPI

@Suite("Token file")
struct AuthTokenFileTests {
    let sample = StoredToken(
        accessToken: "y0_AgAAAAB-access-token-Xk", refreshToken: "1:refresh/token+x",
        obtainedAt: Date(timeIntervalSince1970: 1_781_524_800),
        expiresAt: Date(timeIntervalSince1970: 1_781_524_800 + 31_536_000),
        clientID: "demo-client")

    @Test func encodesFixedBytes() {
        let expected = """
            {
              "version": 1,
              "access_token": "y0_AgAAAAB-access-token-Xk",
              "refresh_token": "1:refresh/token+x",
              "obtained_at": "2026-06-15T12:00:00Z",
              "expires_at": "2027-06-15T12:00:00Z",
              "client_id": "demo-client"
            }

            """
        #expect(String(decoding: sample.encoded(), as: UTF8.self) == expected)
        #expect(StoredToken.decode(sample.encoded()) == sample)
    }

    /// The scopes login asked for (issue 48: `metrika annotate` needs metrika:write) are kept in the
    /// file, read back, and carried over when the token is renewed; a file without them cannot write.
    @Test func keepsTheScopesThroughRenewal() {
        var writer = sample
        writer.scopes = ["metrika:read", "metrika:write"]
        let text = String(decoding: writer.encoded(), as: UTF8.self)
        #expect(text.contains("\"scope\": \"metrika:read metrika:write\"\n}"), "\(text)")
        let read = StoredToken.decode(writer.encoded())
        #expect(read == writer && read?.canWrite == true)
        let renewed = StoredToken(
            grant: TokenGrant(accessToken: "y0_new", refreshToken: nil, expiresIn: 60), obtainedAt: Date(),
            clientID: nil, previous: writer)
        #expect(renewed.scopes == writer.scopes)
        #expect(!sample.canWrite && StoredToken.decode(sample.encoded())?.canWrite == false)
    }

    @Test func encodesOptionalFieldsAway() {
        let bare = StoredToken(accessToken: "t\"q\\", obtainedAt: Date(timeIntervalSince1970: 0))
        #expect(
            String(decoding: bare.encoded(), as: UTF8.self)
                == "{\n  \"version\": 1,\n  \"access_token\": \"t\\\"q\\\\\",\n  \"obtained_at\": \"1970-01-01T00:00:00Z\"\n}\n"
        )
        #expect(StoredToken.decode(bare.encoded())?.accessToken == "t\"q\\")
    }

    @Test func writesPrivateFileInPrivateDirectory() throws {
        let scratch = try AuthScratch()
        let path = scratch.path + "/config/metrika/token.json"
        try TokenFile(path: path).write(sample, tightenDirectory: true)
        #expect(try scratch.mode(path) == 0o600)
        #expect(try scratch.mode(scratch.path + "/config/metrika") == 0o700)
        #expect(try scratch.mode(scratch.path + "/config") == 0o700)
        #expect(try TokenFile(path: path).read() == sample)
        // Nothing but the token file is left behind (no temporary files).
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/config/metrika") == ["token.json"])
    }

    @Test func tightensAnExistingConfigDirectoryOnlyWhenAsked() throws {
        let scratch = try AuthScratch()
        let directory = scratch.path + "/metrika"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try TokenFile(path: directory + "/a.json").write(sample)
        #expect(try scratch.mode(directory) == 0o755)
        try TokenFile(path: directory + "/token.json").write(sample, tightenDirectory: true)
        #expect(try scratch.mode(directory) == 0o700)
    }

    @Test func replacingKeepsMode0600EvenIfTheOldFileWasWider() throws {
        let scratch = try AuthScratch()
        let path = scratch.path + "/token.json"
        _ = FileManager.default.createFile(
            atPath: path, contents: Data("old".utf8), attributes: [.posixPermissions: 0o644])
        try TokenFile(path: path).write(sample)
        #expect(try scratch.mode(path) == 0o600)
        #expect(try TokenFile(path: path).read().accessToken == sample.accessToken)
    }

    @Test(arguments: [0o640, 0o604, 0o644, 0o660, 0o620, 0o602])
    func refusesFilesOthersCanAccess(mode: Int) async throws {
        let scratch = try AuthScratch()
        let path = scratch.path + "/token.json"
        try TokenFile(path: path).write(sample)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        #expect(throws: AuthError.insecureTokenFile(path: path, mode: mode)) { try TokenFile(path: path).read() }
        await #expect(throws: AuthError.insecureTokenFile(path: path, mode: mode)) {
            try await TokenSource.resolve(tokenFile: path, environment: [:])
        }
        let message = AuthError.insecureTokenFile(path: path, mode: mode).message(.cli)
        #expect(message.contains("chmod 600 \(path)"))
        #expect(message.contains("mode 0\(String(mode, radix: 8))"))
        #expect(!message.contains(sample.accessToken))
        // Logout may still read it, to revoke exactly that token.
        #expect(try TokenFile(path: path).read(enforcingPermissions: false) == sample)
    }

    @Test(arguments: [0o600, 0o400])
    func acceptsPrivateFiles(mode: Int) throws {
        let scratch = try AuthScratch()
        let path = scratch.path + "/token.json"
        try TokenFile(path: path).write(sample)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        #expect(try TokenFile(path: path).read() == sample)
    }

    @Test func acceptsABareTokenAndRejectsGarbage() throws {
        let scratch = try AuthScratch()
        let path = scratch.path + "/bare"
        _ = FileManager.default.createFile(
            atPath: path, contents: Data("  y0_bare-token\n".utf8), attributes: [.posixPermissions: 0o600])
        #expect(try TokenFile(path: path).read().accessToken == "y0_bare-token")
        _ = FileManager.default.createFile(
            atPath: path, contents: Data("{\"refresh_token\": \"x\"}".utf8), attributes: [.posixPermissions: 0o600])
        #expect(throws: AuthError.unreadableTokenFile(path: path, reason: "it holds no access_token")) {
            try TokenFile(path: path).read()
        }
        #expect(throws: AuthError.unreadableTokenFile(path: scratch.path + "/none", reason: "it does not exist")) {
            try TokenFile(path: scratch.path + "/none").read()
        }
    }

    @Test func deleteIsIdempotent() throws {
        let scratch = try AuthScratch()
        let file = TokenFile(path: scratch.path + "/token.json")
        try file.write(sample)
        #expect(file.exists)
        #expect(try file.delete() == true)
        #expect(!file.exists)
        #expect(try file.delete() == false)
    }
}

/// The token file's members and the OAuth server's answers, decoded by their `Decodable` types as
/// tolerantly as the dictionary reading before them: a member of another type is absent, never a failure.
@Suite("Token file and OAuth answer members")
struct TokenFileMembersTests {
    @Test func aMemberOfAnotherTypeIsAbsentAndTextsAreTrimmed() throws {
        let members = try #require(
            TokenFileMembers.decode(
                Data(
                    #"""
                    {"access_token": "  tok  ", "refresh_token": 5, "client_id": " ", "expires_at": "2026-06-15T12:00:00Z", "extra": [1]}
                    """#.utf8)))
        #expect(members.accessToken == "tok" && members.refreshToken == nil && members.clientID == nil)
        let token = try #require(StoredToken(members: members))
        #expect(
            token.expiresAt == RFC3339.parse("2026-06-15T12:00:00Z")
                && token.obtainedAt == Date(timeIntervalSince1970: 0))
        #expect(TokenFileMembers.decode(Data("[1]".utf8)) == nil)
        #expect(TokenFileMembers.decode(Data(#"{"access_token": ""}"#.utf8)).flatMap(StoredToken.init(members:)) == nil)
        let note = try #require(
            TokenFileMembers.decode(Data(#"{"version": 1, "store": "secret-service", "account": 7}"#.utf8)))
        #expect(note.store == "secret-service" && note.account == nil && note.accessToken == nil)
    }

    @Test func anOAuthAnswerIsReadTolerantly() throws {
        let answer = try #require(
            WireOAuthAnswer.decode(
                Data(
                    #"""
                    {"device_code": "dc", "user_code": "", "interval": "7", "expires_in": 299.9, "error": 5, "verification_uri": "https://v"}
                    """#.utf8)))
        #expect(answer.deviceCode == "dc" && answer.userCode == nil && answer.error == nil)
        #expect(answer.interval == 7 && answer.expiresIn == 299 && answer.verificationURI == "https://v")
        #expect(WireOAuthAnswer.decode(Data(#"{"expires_in": 1e13, "interval": true}"#.utf8))?.expiresIn == nil)
        #expect(WireOAuthAnswer.decode(Data(#"{"expires_in": 1e13, "interval": true}"#.utf8))?.interval == nil)
        #expect(WireOAuthAnswer.decode(Data("[]".utf8)) == nil)
        // Nesting beyond the preflight's bound is refused before any parser recurses.
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(WireOAuthAnswer.decode(Data(("{\"a\": " + deep + "}").utf8)) == nil)
    }

    @Test func theFirstErrorsTypeDecidesWhetherA403IsAboutTheToken() {
        #expect(
            WireFirstErrorType.decode(Data(#"{"errors": [{"error_type": "access_denied"}, 5]}"#.utf8))
                == "access_denied")
        #expect(WireFirstErrorType.decode(Data(#"{"errors": [{"error_type": 5}]}"#.utf8)) == nil)
        #expect(WireFirstErrorType.decode(Data(#"{"message": "x"}"#.utf8)) == nil)
        #expect(
            TokenRefreshingTransport.isInvalidToken(
                status: 403, body: Data(#"{"errors": [{"error_type": "invalid_token"}]}"#.utf8)))
        #expect(
            !TokenRefreshingTransport.isInvalidToken(
                status: 403, body: Data(#"{"errors": [{"error_type": "counter_in_connect"}]}"#.utf8)))
        #expect(TokenRefreshingTransport.isInvalidToken(status: 403, body: Data("not json".utf8)))
    }
}
