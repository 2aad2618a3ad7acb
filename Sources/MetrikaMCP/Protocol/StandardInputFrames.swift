import Foundation

/// The frames of a file descriptor (stdin), read on a thread of their own — a blocking `read` must
/// not hold one of the few cooperative threads the calls run on. The stream ends at end of input
/// (or a read error), after the last line.
package enum StandardInputFrames {
    package static func frames(fileDescriptor: Int32 = 0, maxLineBytes: Int = LineFramer.defaultMaxLineBytes)
        -> AsyncStream<MCPFrame>
    {
        let (stream, continuation) = AsyncStream.makeStream(of: MCPFrame.self)
        let thread = Thread {
            var framer = LineFramer(maxLineBytes: maxLineBytes)
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                for frame in framer.feed(buffer[0..<count]) { continuation.yield(frame) }
            }
            for frame in framer.finish() { continuation.yield(frame) }
            continuation.finish()
        }
        thread.name = "metrika mcp stdin"
        thread.start()
        return stream
    }
}
