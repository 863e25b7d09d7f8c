import Foundation

/// XML as the SVG and GPX writers need it (https://www.w3.org/TR/xml/#syntax).
public enum XML {
    /// `s` safe as element text and inside a double-quoted attribute.
    public static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(
                of: "\"", with: "&quot;")
    }
}
