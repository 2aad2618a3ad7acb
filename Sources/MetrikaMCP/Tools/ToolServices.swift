import MetrikaServices

/// The tools' name for the run's services: the one seam every entry point beside the CLI takes
/// (`RunServices`, served by `Services`).
package typealias MCPServices = RunServices
