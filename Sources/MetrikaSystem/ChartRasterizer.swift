import Foundation
import MetrikaModel

/// Turns a chart's SVG document into PNG bytes. The one seam between metrika and the raster library:
/// `chart --output FILE.png` and `mail` call it, production wires `RSVGConvertRasterizer`, tests can
/// swap in their own.
package protocol ChartRasterizer: Sendable {
    /// The PNG image of `svg` (a complete SVG document), drawn at `scale` times its pixel size.
    func png(fromSVG svg: Data, scale: Double) async throws -> Data
    /// The same rasterizer for a child run in `environment` (the run's, less a secret a child must not
    /// see); one that runs no child is itself.
    func forChildren(in environment: [String: String]) -> any ChartRasterizer
}

extension ChartRasterizer {
    /// A rasterizer that runs no child program serves any environment as it is.
    package func forChildren(in environment: [String: String]) -> any ChartRasterizer { self }
}

/// Why no PNG came out of the rasterizer: exit 69 (a program metrika relies on is unavailable),
/// with what to do about it.
package struct ChartRasterizerError: WordedFailure, Equatable {
    /// What went wrong, and how to fix it (but for the SVG alternative).
    package let problem: String
    /// Whether an SVG chart would do instead (said with the entry point's name of the format).
    package let svgWouldDo: Bool
    package var exitCode: Int32 { ExitCode.unavailable }

    /// Creates the error from its sentence.
    package init(_ problem: String, svgWouldDo: Bool = false) {
        self.problem = problem
        self.svgWouldDo = svgWouldDo
    }

    package func message(_ naming: ParameterNaming) -> String {
        svgWouldDo ? "\(problem), or write SVG (\(naming[.format]) svg)" : problem
    }
}

/// PNG facts the rasterizer's callers check.
package enum PNGImage {
    /// The eight bytes every PNG file starts with.
    package static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// True when `data` starts with the PNG signature followed by an IHDR chunk.
    package static func isPNG(_ data: Data) -> Bool {
        size(of: data) != nil
    }

    /// Width and height in pixels from the IHDR chunk, or nil when `data` is not a PNG.
    package static func size(of data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(24))
        guard bytes.count == 24, Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
            return nil
        }
        func number(_ offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        let width = number(16)
        let height = number(20)
        return width > 0 && height > 0 ? (width, height) : nil
    }
}
