import FleetTracking

/// What the engine keeps per device, in one dictionary entry of its shard
/// (one hash of the device id per fix for all of it).
///
/// A shard's dictionary holds its entries inline, empty buckets included
/// (a Swift dictionary keeps up to 4 buckets per 3 entries, and doubles
/// its storage as it grows, the old and the new both held while it
/// moves), so an entry is kept small: the tracker's state (416 bytes) and
/// the rewind (about 900 bytes, absent for nearly every device) live in
/// boxes of their own. Inline, 100 000 devices in two shards took 354 MB
/// of buckets, and the warm-up of the shared benchmark harness peaked at
/// 969 MB; boxed, see the benchmarks page.
struct TrackedDevice: Sendable {
    /// Wall-clock time the device was last heard from, Unix ms (for
    /// `device_silent`; the engine's start for devices loaded from the database).
    var heardMs: Int64 = 0
    /// The state changed since it was last written (its device waits in the
    /// engine's checkpoint order).
    var dirty = false
    /// What the silence check reads of `state`, kept beside it whenever it
    /// is stored: that state is `silent`. The check visits every entry each
    /// second; reading this (inline) instead of the state (in its box) keeps
    /// that visit to a few nanoseconds, not a copy of the state with its
    /// arrays retained and released (100 000 devices: 11–16 ms of the
    /// engine's thread every second, every fix arriving meanwhile held as
    /// long).
    private(set) var isSilent = false
    /// Where `state` lives once set (no observer: `Box.take` and `store`
    /// need it in place, and each caller here calls `mirror` after them).
    private var stateBox: Box<DeviceState>?
    /// Where `rewind` lives while the device has one.
    private var rewindBox: Box<Rewind>?

    init(
        state: DeviceState? = nil, heardMs: Int64 = 0, dirty: Bool = false, rewind: Rewind? = nil
    ) {
        self.heardMs = heardMs
        self.dirty = dirty
        stateBox = state.map(Box.init)
        rewindBox = rewind.map(Box.init)
        mirror()
    }

    /// Copies what the silence check reads from the state (`isSilent`).
    private mutating func mirror() {
        isSilent = stateBox?.value?.silent ?? false
    }

    /// The entry has a state (its box is dropped when the state is nil;
    /// only `withStateAndRewind` holds an empty one, for its call).
    var hasState: Bool { stateBox != nil }

    /// The tracker's state (nil until the first fix that set it).
    var state: DeviceState? {
        get { stateBox?.value }
        set {
            Box.store(newValue, in: &stateBox)
            mirror()
        }
    }

    /// The device's recent fixes, so that one arriving after newer ones is
    /// tracked in its place (`Rewind`; in memory only).
    var rewind: Rewind? { rewindBox?.value }

    /// Moves the device's state and rewind out of their boxes, to be
    /// changed in place and given back with `restore` (so the value's
    /// arrays stay uniquely referenced, not copied on change). In between,
    /// `state` and `rewind` read nil (unless a copy of the entry shares the
    /// boxes: then they are copied out, and the copy keeps its own). Not a closure: a closure capturing the
    /// caller's tracker `inout` made the compiler copy the tracker for each
    /// non-mutating call in it (all its fence index's buffers retained and
    /// released per fix).
    mutating func takeStateAndRewind() -> (state: DeviceState?, rewind: Rewind?) {
        (Box.take(&stateBox), Box.take(&rewindBox))
    }

    /// Puts back what `takeStateAndRewind` moved out (changed or not).
    mutating func restore(state: consuming DeviceState?, rewind: consuming Rewind?) {
        Box.store(state, in: &stateBox)
        Box.store(rewind, in: &rewindBox)
        mirror()
    }
}

/// A value out of line (`TrackedDevice`). Unchecked Sendable: a box
/// belongs to one entry of one shard, a shard is only ever changed by one
/// thread at a time (the tracking stage's), and a copy of an entry that
/// shares a box gets a box of its own at its first change (`store`, `take`).
private final class Box<Value>: @unchecked Sendable {
    var value: Value?

    init(_ value: consuming Value?) { self.value = value }

    /// Moves the value out of `box` (the box, if it is the entry's own,
    /// kept empty for `store`); a shared box gives a copy.
    ///
    /// No reference to the box may be bound before the uniqueness check
    /// (`guard let b = box` would be a second one, and the check would
    /// never pass: every fix then copied the state and every change to its
    /// arrays copied them).
    static func take(_ box: inout Box?) -> Value? {
        guard box != nil else { return nil }
        guard isKnownUniquelyReferenced(&box) else { return box!.value }
        var value: Value? = nil
        swap(&value, &box!.value)
        return value
    }

    /// Puts `value` in `box`, reusing the box when it is the entry's own;
    /// nil drops the box.
    static func store(_ value: consuming Value?, in box: inout Box?) {
        var value = value
        guard value != nil else {
            box = nil
            return
        }
        if box != nil, isKnownUniquelyReferenced(&box) {
            swap(&value, &box!.value)
        } else {
            box = Box(value)
        }
    }
}
