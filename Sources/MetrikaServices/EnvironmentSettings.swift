/// The environment variables the services read, each named once: where it is read and the error
/// that names it use the same name. (What each means is in the CLI's `ReferenceTables`.)
package enum EnvironmentSettings {
    package static let apiURLVariable = "METRIKA_API_URL"
    package static let oauthURLVariable = "METRIKA_OAUTH_URL"
    package static let profileVariable = "METRIKA_PROFILE"
    package static let timeoutVariable = "METRIKA_TIMEOUT"
    package static let maxResponseVariable = "METRIKA_MAX_RESPONSE"
    package static let databaseMaxPagesVariable = "METRIKA_DB_MAX_PAGES"
    package static let webhookURLVariable = "METRIKA_WEBHOOK_URL"
    package static let telegramChatVariable = "METRIKA_TELEGRAM_CHAT"
    package static let telegramTokenVariable = "METRIKA_TELEGRAM_TOKEN"
    package static let telegramAPIURLVariable = "METRIKA_TELEGRAM_API_URL"
    package static let tokenVariable = "METRIKA_TOKEN"
    package static let quotaLedgerVariable = "METRIKA_QUOTA_LEDGER"
    package static let clientSecretVariable = "METRIKA_CLIENT_SECRET"
    package static let clickHousePasswordVariable = "METRIKA_CLICKHOUSE_PASSWORD"
}
