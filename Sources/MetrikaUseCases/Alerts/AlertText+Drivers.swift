import MetrikaModel

extension AlertText {
    /// `, mostly Search engine traffic -336`: an alert line's main driver (`AlertDrivers`); nothing
    /// without one. The segment's name is server text: it passes the terminal sanitizer.
    package static func driverText(_ drivers: [AlertDriver]) -> String {
        guard let driver = drivers.first else { return "" }
        return ", mostly " + TerminalText.sanitize(driver.name, limit: 120) + " " + driver.changeText
    }
}
