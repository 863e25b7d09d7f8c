import NIOSSL
import PostgresNIO

/// A PostgreSQL failure in words: the server's message and SQLSTATE, the
/// client's error code, or the column that could not be read. Never the
/// statement's parameters (they may hold password hashes and secrets).
struct PGProblem: Error, CustomStringConvertible {
    let description: String

    init(message: String) { description = message }

    init(_ error: any Error) {
        switch error {
        case let e as PSQLError:
            if let info = e.serverInfo, let message = info[.message] {
                var text = message
                if let state = info[.sqlState] { text += " (SQLSTATE \(state))" }
                if let detail = info[.detail] { text += ": \(detail)" }
                description = text
            } else if let underlying = e.underlying,
                underlying is NIOSSLError || underlying is NIOSSLExtraError
            {
                description = "TLS: \(underlying)"
            } else if let underlying = e.underlying {
                description = "\(e.code): \(underlying)"
            } else {
                description = "\(e.code)"
            }
        case let e as PostgresDecodingError:
            description =
                "column \(e.columnIndex) (\(e.columnName)) of type \(e.postgresType) cannot be read as \(e.targetType): \(e.code)"
        default:
            description = String(describing: error)
        }
    }
}
