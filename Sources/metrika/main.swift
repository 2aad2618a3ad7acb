import Foundation
import MetrikaCLI
exit(await CLI.run(arguments: Array(CommandLine.arguments.dropFirst()), context: .live()))
