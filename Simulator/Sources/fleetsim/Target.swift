import ArgumentParser
import Foundation

/// A `--target` value: `host:port` (`[v6]:port` for IPv6 literals).
struct Target {
    let host: String
    let port: Int

    /// Throws a `ValidationError` naming the bad value.
    init(_ text: String) throws {
        guard let colon = text.lastIndex(of: ":"),
            let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port)
        else {
            throw ValidationError("--target must be host:port, found \"\(text)\"")
        }
        self.port = port
        host = String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    }
}
