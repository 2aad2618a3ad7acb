import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaSystem
import MetrikaUseCases

/// The Telegram delivery's settings, from the environment and the config file (never an argument:
/// a token on the command line would be in `ps` and the shell's history).
extension Services {
    /// The chats to send to when the entry point names none: METRIKA_TELEGRAM_CHAT, else the
    /// profile's or the config file's `"telegram"` `"chat"`; empty when none says.
    package func telegramChats() throws -> [TelegramChatID] {
        if let text = world.environment[EnvironmentSettings.telegramChatVariable],
            !text.trimmingCharacters(in: .whitespaces).isEmpty
        {
            return try TelegramChatID.list(text, source: EnvironmentSettings.telegramChatVariable)
        }
        let config = try configFile()
        if let text = try profile()?.telegram?.chats ?? config?.telegram?.chats {
            return try TelegramChatID.list(
                text, source: "\"telegram\" \"chat\" in \(config?.path ?? "the config file")")
        }
        return []
    }

    /// The bot: its token from METRIKA_TELEGRAM_TOKEN, else the profile's, else the config file's
    /// `"telegram"` `"token"`, else the keyring entry the profile's or the file's `"telegram"`
    /// `"keyring"` names (added to the run's secrets at once); its base from METRIKA_TELEGRAM_API_URL.
    /// No token: `ConfigError.missingTelegramToken` (78); the named entry missing:
    /// `ConfigError.missingTelegramKeyringEntry` (78); the keyring unreachable: `AuthError.keyringUnavailable` (69).
    package func telegramBot() async throws -> TelegramBot {
        let environment = world.environment
        let token: String
        let source: String
        if let text = environment[EnvironmentSettings.telegramTokenVariable],
            !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        {
            token = text
            source = EnvironmentSettings.telegramTokenVariable
        } else {
            let config = try configFile()
            let profile = try profile()
            if let profile, let text = profile.telegram?.token {
                token = text
                source = "the \"telegram\" token of profile \"\(profile.name)\""
            } else if let text = config?.telegram?.token {
                token = text
                source = "the \"telegram\" token of \(config?.path ?? "the config file")"
            } else if let account = profile?.telegram?.keyring ?? config?.telegram?.keyring {
                var keyring = Keyring(kind: .system, account: account, environment: environment)
                keyring.instead =
                    "give the bot's token in \(EnvironmentSettings.telegramTokenVariable) or as the "
                    + "private config file's \"telegram\" \"token\""
                guard let data = try await keyring.lookup(),
                    case let text = String(decoding: data, as: UTF8.self).trimmingCharacters(
                        in: .whitespacesAndNewlines), !text.isEmpty
                else {
                    throw ConfigError.missingTelegramKeyringEntry(
                        account: account, keyring: keyring.displayName,
                        store: keyring.manualStore(label: Self.telegramKeyringLabel))
                }
                token = text
                source = "the keyring entry '\(account)' (\(keyring.displayName))"
            } else {
                throw ConfigError.missingTelegramToken(path: ConfigFile.path(environment: environment))
            }
        }
        world.secrets.add(token.trimmingCharacters(in: .whitespacesAndNewlines))
        let base = try secretBearingBaseURL(
            environment[EnvironmentSettings.telegramAPIURLVariable],
            variable: EnvironmentSettings.telegramAPIURLVariable,
            fallback: TelegramBot.defaultBaseURL.absoluteString, secret: "the Telegram bot token")
        let world = self.world
        let bot = try TelegramBot(
            token: token, tokenSource: source, baseURL: base, transport: world.transport, environment: environment,
            timeout: try requestTimeout(), note: { world.activity.note($0) })
        for secret in bot.secrets { world.secrets.add(secret) }
        return bot
    }
}

extension Services {
    /// The label of the keyring entry holding a Telegram bot's token (what a keyring's window shows).
    package static let telegramKeyringLabel = "metrika Telegram bot"
}
