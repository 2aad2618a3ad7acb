import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import MetrikaKit

/// What the clients make of the transport's guards: redirects, oversized answers and TLS failures are
/// final (never retried) and named; see also HostileServerEndToEndTests for the real transport.
struct TransportGuardTests {
    static let ok = #"{"rows":1,"counters":[{"id":7,"name":"x"}]}"#

    @Test(arguments: [
        (NSURLErrorServerCertificateUntrusted, "untrusted"),
        (NSURLErrorServerCertificateHasBadDate, "expired"),
        (NSURLErrorServerCertificateHasUnknownRoot, "unknown root"),
        (NSURLErrorServerCertificateNotYetValid, "not yet valid"),
        (NSURLErrorSecureConnectionFailed, "handshake"),
        // What swift-corelibs-foundation really reports: libcurl's words under NSURLErrorUnknown.
        (NSURLErrorUnknown, "SSL certificate problem: self-signed certificate"),
        (NSURLErrorUnknown, "SSL: no alternative certificate subject name matches target host name '127.0.0.1'"),
        (NSURLErrorUnknown, "error:0A00010B:SSL routines::wrong version number"),
    ])
    func tlsFailuresAreInsecure(code: Int, text: String) {
        let error = NSError(domain: NSURLErrorDomain, code: code, userInfo: [NSLocalizedDescriptionKey: text])
        #expect(URLSessionTransport.classify(error) == .insecure(text))
    }

    @Test func otherFailuresStayTransient() {
        let cut = NSError(domain: NSURLErrorDomain, code: NSURLErrorUnknown, userInfo: [NSLocalizedDescriptionKey: "transfer closed with 1014 bytes remaining to read"])
        #expect(URLSessionTransport.classify(cut) == .other("transfer closed with 1014 bytes remaining to read"))
        #expect(URLSessionTransport.classify(NSError(domain: NSURLErrorDomain, code: NSURLErrorTimedOut)) == .timedOut)
    }

    @Test func aTLSFailureIsNotRetried() async throws {
        let transport = FakeTransport([.fail(.insecure("SSL certificate problem: self-signed certificate")), .respond(200, Self.ok)])
        let error = await #expect(throws: APIError.self) { try await makeClient(transport).fetchCounters() }
        #expect(transport.sentRequests.count == 1)
        #expect(error?.exitCode == 69)
        #expect(error?.message.contains("TLS connection to api.example.test failed (SSL certificate problem: self-signed certificate); not retried") == true)
    }

    @Test func anOversizedAnswerIsNotRetried() async throws {
        let transport = FakeTransport([.fail(.tooLarge(limit: 64 << 20)), .respond(200, Self.ok)])
        let error = await #expect(throws: APIError.self) { try await makeClient(transport).fetchCounters() }
        #expect(transport.sentRequests.count == 1)
        #expect(error?.exitCode == 65)
        #expect(error?.message.contains("larger than the 64 MiB limit") == true)
        #expect(error?.message.contains("METRIKA_MAX_RESPONSE") == true)
    }

    @Test func theLimitTravelsWithEveryRequest() async throws {
        let transport = FakeTransport([.respond(200, Self.ok)])
        var client = makeClient(transport)
        client.maxResponseBytes = 12_345
        _ = try await client.fetchCounters()
        #expect(transport.sentRequests.map(\.maxResponseBytes) == [12_345])
    }

    @Test(arguments: [
        (301, "https://evil.example/x", "https://evil.example"),
        (302, "http://127.0.0.1:8081/management/v1/counters", "http://127.0.0.1:8081"),
        (307, "/elsewhere", "https://api.example.test"),
        (308, "javascript:alert(1)", "an unreadable Location"),
        (302, "http://evil\u{1B}[2J.example/", "an unreadable Location"),
    ])
    func aRedirectIsFinalAndNamesItsTarget(status: Int, location: String, named: String) async throws {
        let transport = FakeTransport([.respond(status, "", ["Location": location]), .respond(200, Self.ok)])
        let error = await #expect(throws: APIError.self) { try await makeClient(transport).fetchCounters() }
        #expect(transport.sentRequests.count == 1)
        #expect(error?.exitCode == 69)
        #expect(error?.message.contains("redirect (HTTP \(status)) to \(named);") == true, "\(error?.message ?? "")")
    }

    @Test func theOAuthClientRefusesARedirect() async throws {
        let transport = FakeTransport([.respond(307, "", ["Location": "http://127.0.0.1:9999/token"]), .respond(200, #"{"access_token":"evil"}"#)])
        let oauth = OAuthClient(baseURL: oauthBase, transport: transport)
        let error = await #expect(throws: OAuthError.self) { try await oauth.refresh("refresh-secret", credentials: demoCredentials) }
        #expect(transport.sentRequests.count == 1)
        #expect(error?.exitCode == 69)
        #expect(error?.message.contains("redirect (HTTP 307) to http://127.0.0.1:9999") == true)
    }

    @Test func limitsAreNamedInTheUnitTheyWereLikelySetIn() {
        #expect(APIError.describeBytes(64 << 20) == "64 MiB")
        #expect(APIError.describeBytes(512 << 10) == "512 KiB")
        #expect(APIError.describeBytes(1 << 30) == "1 GiB")
        #expect(APIError.describeBytes(1_000_000) == "1000000 bytes")
    }
}
