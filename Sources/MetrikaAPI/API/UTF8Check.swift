/// Whether bytes are well-formed UTF-8 (Unicode 15, table 3-7): no stray continuation bytes,
/// no overlong forms, no surrogates (U+D800–U+DFFF), nothing above U+10FFFF, no cut sequence.
///
/// Exactly the bytes that `String(decoding:as: UTF8.self)` keeps unchanged; everything else it
/// would repair to U+FFFD, so the page reader keeps a name's bytes as they are only when this
/// says yes (the differential test in StatDataScannerTests holds the two together).
enum UTF8Check {
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // The second byte's allowed range depends on the lead byte; later ones are 80…BF.
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                high = 0x9F
            case 0xF0:
                length = 4
                low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                high = 0x8F
            default: return false
            }
            guard index + length <= count else { return false }
            let second = bytes[index + 1]
            guard second >= low, second <= high else { return false }
            for offset in 2..<max(length, 2) where bytes[index + offset] & 0xC0 != 0x80 { return false }
            index += length
        }
        return true
    }
}
