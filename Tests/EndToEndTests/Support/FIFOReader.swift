import Foundation

/// A reader on the far end of a FIFO, on a thread of its own (a blocked read must not hold one of the
/// threads the suite shares out): `finish` waits for it at most `seconds` and returns what it read, or
/// nil when nothing ever came (a build that replaced the FIFO leaves the reader waiting for good: then
/// a writer is opened and closed to let it go).
final class FIFOReader: @unchecked Sendable {
    private let path: String
    private let box = OutputBox()
    private let done = DispatchSemaphore(value: 0)

    init(_ path: String) {
        self.path = path
        let box = box
        let done = done
        Thread {
            box.setOut(FileHandle(forReadingAtPath: path)?.readDataToEndOfFile() ?? Data())
            done.signal()
        }.start()
    }

    func finish(within seconds: Double = 30) -> Data? {
        guard done.wait(timeout: .now() + seconds) == .success else {
            if let unblock = FileHandle(forWritingAtPath: path) { try? unblock.close() }
            return nil
        }
        return box.out
    }
}
