/// The cheapest signed call, to tell whether the API accepts a token.
extension MetrikaClient {
    /// `GET /management/v1/counters?per_page=1`: returns how many counters the token can see, or
    /// throws the `APIError` that says why not (`invalidToken` for a wrong or revoked token).
    package func checkToken() async throws -> Int {
        let page: CounterListResponse = try await get(
            "/management/v1/counters", query: [("offset", "1"), ("per_page", "1")])
        return page.rows
    }
}
