import FleetModel

/// An arrival's fixes: a lone fix (the usual datagram of a phone or a
/// tracker) held inline, or an array for two or more.
///
/// A lone fix waiting in the inbound queue then takes its ring slot and no
/// block of its own: 176 bytes an arrival, instead of an 88-byte slot and
/// a 160-byte array (a fix of 96 bytes) allocated by the door's thread and
/// freed by the engine's, up to 150 000 of them when the queue is full.
/// As large as a fix either way.
struct ArrivalFixes: RandomAccessCollection, MutableCollection, Sendable {
    private enum Storage {
        case one(Fix)
        case many([Fix])
    }
    private var storage: Storage

    /// `fixes`, the lone one inline.
    init(_ fixes: [Fix]) {
        storage = fixes.count == 1 ? .one(fixes[0]) : .many(fixes)
    }

    var startIndex: Int { 0 }
    var endIndex: Int {
        switch storage {
        case .one: 1
        case .many(let fixes): fixes.count
        }
    }

    subscript(i: Int) -> Fix {
        get {
            switch storage {
            case .one(let fix):
                precondition(i == 0, "index out of range")
                return fix
            case .many(let fixes): return fixes[i]
            }
        }
        set {
            switch storage {
            case .one:
                precondition(i == 0, "index out of range")
                storage = .one(newValue)
            case .many(var fixes):
                storage = .many([])  // `fixes` uniquely referenced: changed in place
                fixes[i] = newValue
                storage = .many(fixes)
            }
        }
    }

    /// Appends every fix to `out` (no array made for a lone fix).
    func append(to out: inout [Fix]) {
        switch storage {
        case .one(let fix): out.append(fix)
        case .many(let fixes): out.append(contentsOf: fixes)
        }
    }
}
