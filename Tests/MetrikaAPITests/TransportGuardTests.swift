import CCurl
import Foundation
import MetrikaCLI
import Testing

@testable import MetrikaAPI

/// What the clients make of the transport's guards: redirects, oversized answers and TLS failures are
/// final (never retried) and named; see also HostileServerEndToEndTests for the real transport.
struct TransportGuardTests {
    static let ok = #"{"rows":1,"counters":[{"id":7,"name":"x"}]}"#

    @Test(arguments: [
        (CURLE_PEER_FAILED_VERIFICATION, "SSL certificate problem: self-signed certificate"),
        (
            CURLE_PEER_FAILED_VERIFICATION,
            "SSL: no alternative certificate subject name matches target host name '127.0.0.1'"
        ),
        (CURLE_SSL_CACERT_BADFILE, "error setting certificate file: /nowhere"),
        (CURLE_SSL_CONNECT_ERROR, "error:0A00010B:SSL routines::wrong version number"),
        (CURLE_SSL_CONNECT_ERROR, "OpenSSL/3.0.19: error:0A000410:SSL routines::sslv3 alert handshake failure")
    ])
    func tlsFailuresAreInsecure(code: CURLcode, text: String) {
        #expect(CurlExchange.classify(code, message: text) == .insecure(text))
    }

    @Test(arguments: [
        (CURLE_BAD_CONTENT_ENCODING, "Error while processing content unencoding: incorrect header check"),
        (CURLE_WEIRD_SERVER_REPLY, "Invalid status line"),
        (CURLE_RECV_ERROR, "Malformed encoding found in chunked-encoding"),
        (CURLE_RECV_ERROR, "Too large response headers: 307222 > 307200"),
        (CURLE_UNSUPPORTED_PROTOCOL, "Unsupported HTTP version in response")
    ])
    func brokenHTTPIsMalformed(code: CURLcode, text: String) {
        #expect(CurlExchange.classify(code, message: text) == .malformed(text))
    }

    @Test func otherFailuresStayTransient() {
        let cut = "transfer closed with 1014 bytes remaining to read"
        #expect(CurlExchange.classify(CURLE_PARTIAL_FILE, message: cut) == .connectionLost(cut))
        #expect(
            CurlExchange.classify(
                CURLE_SSL_CONNECT_ERROR, message: "Connection reset by peer in connection to 127.0.0.1:443")
                == .connectionLost("Connection reset by peer in connection to 127.0.0.1:443"))
        #expect(
            CurlExchange.classify(CURLE_OPERATION_TIMEDOUT, message: "Operation timed out after 1000 milliseconds")
                == .timedOut)
        #expect(
            CurlExchange.classify(CURLE_COULDNT_CONNECT, message: "") == .cannotConnect("Couldn't connect to server"))
        #expect(
            CurlExchange.classify(CURLE_RECV_ERROR, message: "Connection reset by peer")
                == .connectionLost("Connection reset by peer"))
    }

    /// libcurl speaks dozens of protocols; metrika lets it speak two. A `file:` or `ftp:` URL (from a
    /// configuration, or a Location header were redirects ever followed) never reaches it.
    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1/x", "dict://127.0.0.1/x"])
    func onlyHTTPAndHTTPSAreSpoken(url: String) async throws {
        let error = await #expect(throws: TransportError.self) {
            _ = try await CurlTransport().send(HTTPRequest(url: URL(string: url)!, timeout: 5))
        }
        guard case .other(let text)? = error else {
            Issue.record("expected a refusal, got \(String(describing: error))")
            return
        }
        #expect(text.contains("http and https only"))
    }

    @Test func aTLSFailureIsNotRetried() async throws {
        let transport = FakeTransport([
            .fail(.insecure("SSL certificate problem: self-signed certificate")), .respond(200, Self.ok)
        ])
        let error = await #expect(throws: APIError.self) { try await makeClient(transport).fetchCounters() }
        #expect(transport.sentRequests.count == 1)
        #expect(error?.exitCode == 69)
        #expect(
            error?.message.contains(
                "TLS connection to api.example.test failed (SSL certificate problem: self-signed certificate); not retried"
            ) == true)
    }

    @Test func anOversizedAnswerIsNotRetried() async throws {
        let transport = FakeTransport([.fail(.tooLarge(limit: 64 << 20)), .respond(200, Self.ok)])
        let error = await #expect(throws: APIError.self) { try await makeClient(transport).fetchCounters() }
        #expect(transport.sentRequests.count == 1)
        #expect(error?.exitCode == 65)
        #expect(error?.message.contains("larger than the 64 MiB limit") == true)
        #expect(error?.message(.cli).contains("METRIKA_MAX_RESPONSE") == true)
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
        (302, "http://evil\u{1B}[2J.example/", "an unreadable Location")
    ])
    func aRedirectIsFinalAndNamesItsTarget(status: Int, location: String, named: String) async throws {
        let transport = FakeTransport([.respond(status, "", ["Location": location]), .respond(200, Self.ok)])
        let error = await #expect(throws: APIError.self) { try await makeClient(transport).fetchCounters() }
        #expect(transport.sentRequests.count == 1)
        #expect(error?.exitCode == 69)
        #expect(error?.message.contains("redirect (HTTP \(status)) to \(named);") == true, "\(error?.message ?? "")")
    }

    @Test func theOAuthClientRefusesARedirect() async throws {
        let transport = FakeTransport([
            .respond(307, "", ["Location": "http://127.0.0.1:9999/token"]), .respond(200, #"{"access_token":"evil"}"#)
        ])
        let oauth = OAuthClient(baseURL: oauthBase, transport: transport)
        let error = await #expect(throws: OAuthError.self) {
            try await oauth.refresh("refresh-secret", credentials: demoCredentials)
        }
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
