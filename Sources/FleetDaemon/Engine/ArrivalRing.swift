/// The inbound queue's arrivals in the order they came: a ring within one
/// allocation of `maxSlots` slots, made at start and never moved.
///
/// The allocation (176 bytes a slot, a lone fix inline: 26 MB for the
/// default bound of 150 000) is large enough that glibc maps it fresh
/// (`M_MMAP_THRESHOLD`, `AllocatorPolicy`), and a mapped page is only
/// resident once a slot on it is written. The ring wraps within its
/// `room`, the first slots of the allocation, which doubles (from 1 024)
/// only when the ring is full, up to `maxSlots`: under steady load the
/// head goes round and round the room, so the memory resident is at most
/// twice the most arrivals that waited at once, not the whole allocation.
/// A room grows in place, the older arrivals moved to its new end (no
/// second copy of the ring held for a moment, as a growing array does:
/// NIO's `CircularBuffer`, rounded up to a power of two, took 262 144 slots
/// for a bound of 150 000).
///
/// A taken arrival is moved out of its slot at once, so the ring keeps
/// nothing of what it has handed over (its fixes, its reply, a waiting
/// transport). Not thread-safe: `InboundQueue` holds it under its lock.
final class ArrivalRing {
    private let slots: UnsafeMutablePointer<Arrival>
    /// The slots the ring wraps within now, `1...maxSlots`.
    private(set) var room: Int
    private var head = 0
    /// Arrivals held.
    private(set) var count = 0
    /// The most arrivals held at once.
    let maxSlots: Int

    /// A ring of at most `maxSlots` (≥ 1) arrivals.
    init(maxSlots: Int) {
        precondition(maxSlots >= 1, "a ring holds at least one arrival")
        self.maxSlots = maxSlots
        room = min(maxSlots, 1024)
        slots = .allocate(capacity: maxSlots)
    }

    deinit {
        while count > 0 { _ = removeFirst() }
        slots.deallocate()
    }

    var isEmpty: Bool { count == 0 }
    /// Whether `append` has room (`count < maxSlots`).
    var hasRoom: Bool { count < maxSlots }

    /// The oldest arrival's fixes (nil when empty).
    var firstFixCount: Int? { count == 0 ? nil : slots[head].fixes.count }
    /// The oldest arrival's receive time, Unix ms (nil when empty).
    var firstReceivedMs: Int64? { count == 0 ? nil : slots[head].receivedMs }

    /// Appends `arrival` behind the others. Precondition: `hasRoom`.
    func append(_ arrival: Arrival) {
        precondition(hasRoom, "the ring is full")
        if count == room { grow() }
        (slots + (head + count) % room).initialize(to: arrival)
        count += 1
    }

    /// Moves the oldest arrival out. Precondition: not empty.
    func removeFirst() -> Arrival {
        precondition(count > 0, "the ring is empty")
        let a = (slots + head).move()
        count -= 1
        head = count == 0 ? 0 : (head + 1) % room
        return a
    }

    /// Doubles the room (at most `maxSlots`) while full: the arrivals from
    /// the head to the old room's end (the older ones) move to the new
    /// room's end; those that wrapped to its start stay.
    private func grow() {
        let grown = min(maxSlots, room * 2)
        guard head > 0 else {  // in order already: the new slots follow
            room = grown
            return
        }
        let older = room - head
        let newHead = grown - older
        // The regions may overlap; `moveInitialize` allows it.
        (slots + newHead).moveInitialize(from: slots + head, count: older)
        head = newHead
        room = grown
    }
}
