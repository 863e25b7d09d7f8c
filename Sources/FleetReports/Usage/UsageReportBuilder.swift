import FleetStorage

/// Makes a `UsageReport` from `UsageInputs`: pure (no store, no clock), so
/// it is tested on values. The rules are `UsageReport`'s.
public enum UsageReportBuilder {
    /// The report for `[fromMs, toMs)` made at `nowMs` (time after `nowMs`
    /// is not counted) from inputs holding their events (`inputs.events`).
    /// `fromMs < toMs` is the caller's to check.
    public static func make(
        _ inputs: consuming UsageInputs, fromMs: Int64, toMs: Int64, nowMs: Int64
    ) -> UsageReport {
        var events = inputs.events
        inputs.events = []
        events.removeAll { $0.time < fromMs || $0.time >= toMs }
        return make(
            inputs, fromMs: fromMs, toMs: toMs, nowMs: nowMs, devices: Set(events.map(\.device)),
            eventsOf: { range in events.filter { range.contains($0.device) } })
    }

    /// The same, with the devices' events asked for a slice of devices at a
    /// time (`eventsOf`: the events of the devices whose ids sort in the
    /// range, a store read; each range asked once, in order), so that a
    /// long period's alerts are never all in memory at once. The devices
    /// reported are `inputs.always`, those with positions or trips in the
    /// period, and `devices`; events of other devices in a range are left
    /// out. Rethrows what `eventsOf` throws.
    public static func make<E: Error>(
        _ inputs: UsageInputs, fromMs: Int64, toMs: Int64, nowMs: Int64,
        devices: Set<String> = [], slice: Int = 1000,
        eventsOf: (ClosedRange<String>) throws(E) -> [UsageEvent]
    ) throws(E) -> UsageReport {
        let end = max(fromMs, min(toMs, nowMs))
        var rows: [String: UsageRow] = [:]
        func row(_ device: String) -> UsageRow {
            rows[device] ?? UsageRow(device: device, name: inputs.names[device])
        }
        for device in inputs.always.union(devices) { rows[device] = row(device) }
        for s in inputs.spans {
            var r = row(s.device)
            r.firstFixMs = s.firstMs
            r.lastFixMs = s.lastMs
            r.fixes = s.count
            r.maxSpeedKmh = max(r.maxSpeedKmh, s.maxSpeedKmh ?? 0)
            rows[s.device] = r
        }
        var drivers: [String: DriverUsage] = [:]
        for t in inputs.trips where !t.open && t.startTime >= fromMs && t.startTime < toMs {
            var r = row(t.device)
            r.trips += 1
            r.distanceM += t.distanceM
            r.drivingS += t.durationS
            r.maxSpeedKmh = max(r.maxSpeedKmh, t.maxSpeedKmh)
            rows[t.device] = r
            if let key = t.driver {
                var u = drivers[key] ?? DriverUsage(driver: key)
                u.trips += 1
                u.distanceM += t.distanceM
                u.drivingS += t.durationS
                if !u.devices.contains(t.device) { u.devices.append(t.device) }
                drivers[key] = u
            }
        }
        // Fence visits, overspeed and trips under way, device by device:
        // each device's events, read when its turn comes, sorted by time.
        let finished = Set(inputs.trips.map { "\($0.device) \($0.startTime)" })
        func account(_ device: String, _ run: ArraySlice<UsageEvent>) {
            var r = row(device)
            r.fenceVisits = visits(
                run, inside: inputs.insideAtStart[device] ?? [], fromMs: fromMs, endMs: end)
            // An episode still open is counted up to the last fix.
            let overEnd = min(end, r.lastFixMs.map { max($0, fromMs) } ?? end)
            (r.overspeedEpisodes, r.overspeedS) = episodes(
                run, start: .overspeedStart, end: .overspeedEnd, fromMs: fromMs, endMs: overEnd)
            (r.idleEpisodes, r.idleS) = episodes(
                run, start: .idleStart, end: .idleEnd, fromMs: fromMs, endMs: overEnd)
            // A trip still under way (its `trip_start` matches no finished
            // trip): its driving time up to the last fix; its distance and
            // the trip itself count once it has ended.
            if let start = run.last(where: { $0.kind == .tripStart }),
                !finished.contains("\(device) \(start.time)"), let last = r.lastFixMs,
                last > start.time
            {
                r.drivingS += Double(last - start.time) / 1000
            }
            rows[device] = r
        }
        let sorted = rows.keys.sorted()
        for start in stride(from: 0, to: sorted.count, by: max(1, slice)) {
            let part = sorted[start..<min(sorted.count, start + max(1, slice))]
            var byDevice: [String: [UsageEvent]] = [:]
            for e in try eventsOf(part.first!...part.last!)
            where e.time >= fromMs && e.time < toMs && rows[e.device] != nil {
                byDevice[e.device, default: []].append(e)
            }
            for device in part {
                var events = byDevice.removeValue(forKey: device) ?? []
                events.sort { ($0.time, $0.id) < ($1.time, $1.id) }
                // Fences inside at the start count for the devices listed
                // anyway, not for one that has sent nothing for a year.
                if !events.isEmpty || inputs.insideAtStart[device] != nil {
                    account(device, events[...])
                }
            }
        }
        for (device, var r) in rows {
            r.drivingS = (r.drivingS * 10).rounded() / 10
            if let first = r.firstFixMs {
                let parked = max(0, Double(end - max(first, fromMs)) / 1000 - r.drivingS)
                r.parkedS = (parked * 10).rounded() / 10
            }
            r.distanceM = (r.distanceM * 10).rounded() / 10
            r.maxSpeedKmh = (r.maxSpeedKmh * 10).rounded() / 10
            rows[device] = r
        }
        let vehicles = rows.values.sorted { ($0.device ?? "") < ($1.device ?? "") }
        let byDriver = drivers.values.map {
            DriverUsage(
                driver: $0.driver, trips: $0.trips, distanceM: ($0.distanceM * 10).rounded() / 10,
                drivingS: ($0.drivingS * 10).rounded() / 10, devices: $0.devices.sorted())
        }.sorted { $0.driver < $1.driver }
        return UsageReport(
            fromMs: fromMs, toMs: toMs, generatedMs: nowMs, vehicles: vehicles,
            totals: totals(vehicles), drivers: byDriver)
    }

    /// Visits per fence: an enter opens one (counted), an exit closes it;
    /// fences inside at the start open one at `fromMs`; open ones close at `endMs`.
    static func visits(
        _ events: ArraySlice<UsageEvent>, inside: [String], fromMs: Int64, endMs: Int64
    ) -> [FenceVisits] {
        var open: [String: Int64] = [:]
        var out: [String: FenceVisits] = [:]
        for f in inside {
            open[f] = fromMs
            out[f] = FenceVisits(fence: f, visits: 1, insideS: 0)
        }
        for a in events {
            guard let fence = a.fence else { continue }
            switch a.kind {
            case .enter:
                guard open[fence] == nil else { continue }
                open[fence] = a.time
                out[fence, default: FenceVisits(fence: fence, visits: 0, insideS: 0)].visits += 1
            case .exit:
                // An exit with no entry seen: inside since before the period.
                let since = open.removeValue(forKey: fence) ?? fromMs
                var v = out[fence] ?? FenceVisits(fence: fence, visits: 1, insideS: 0)
                v.insideS += Double(max(0, min(a.time, endMs) - since)) / 1000
                out[fence] = v
            default: continue
            }
        }
        for (fence, since) in open {
            out[fence]!.insideS += Double(max(0, endMs - since)) / 1000
        }
        return out.values.map {
            FenceVisits(
                fence: $0.fence, visits: $0.visits, insideS: ($0.insideS * 10).rounded() / 10)
        }.sorted { $0.fence < $1.fence }
    }

    /// Episodes that began in the period and their time in it, seconds:
    /// `start` (dated at the episode's start: `overspeed_start`,
    /// `idle_start`) to `end` (dated at its end, with `duration_s`:
    /// `overspeed_end`, `idle_end`); one still open counts up to `endMs`.
    static func episodes(
        _ events: ArraySlice<UsageEvent>, start: UsageEvent.Kind, end: UsageEvent.Kind,
        fromMs: Int64, endMs: Int64
    ) -> (Int, Double) {
        var episodes = 0
        var inMs: Int64 = 0
        var since: Int64?
        for a in events {
            if a.kind == start {
                episodes += 1
                since = a.time
            } else if a.kind == end {
                let begun = since ?? (a.time - Int64(((a.durationS ?? 0) * 1000).rounded()))
                inMs += max(0, min(a.time, endMs) - max(begun, fromMs))
                since = nil
            }
        }
        if let since { inMs += max(0, endMs - since) }
        return (episodes, (Double(inMs) / 100).rounded() / 10)
    }

    static func totals(_ rows: [UsageRow]) -> UsageRow {
        var t = UsageRow(device: nil, name: nil)
        var fences: [String: FenceVisits] = [:]
        for r in rows {
            t.distanceM += r.distanceM
            t.drivingS += r.drivingS
            t.trips += r.trips
            t.parkedS += r.parkedS
            t.maxSpeedKmh = max(t.maxSpeedKmh, r.maxSpeedKmh)
            t.overspeedEpisodes += r.overspeedEpisodes
            t.overspeedS += r.overspeedS
            t.idleEpisodes += r.idleEpisodes
            t.idleS += r.idleS
            t.fixes += r.fixes
            for v in r.fenceVisits {
                var f = fences[v.fence] ?? FenceVisits(fence: v.fence, visits: 0, insideS: 0)
                f.visits += v.visits
                f.insideS += v.insideS
                fences[v.fence] = f
            }
            if let f = r.firstFixMs { t.firstFixMs = min(t.firstFixMs ?? f, f) }
            if let l = r.lastFixMs { t.lastFixMs = max(t.lastFixMs ?? l, l) }
        }
        func tenth(_ v: Double) -> Double { (v * 10).rounded() / 10 }
        t.distanceM = tenth(t.distanceM)
        t.drivingS = tenth(t.drivingS)
        t.parkedS = tenth(t.parkedS)
        t.overspeedS = tenth(t.overspeedS)
        t.idleS = tenth(t.idleS)
        t.fenceVisits = fences.values.map {
            FenceVisits(fence: $0.fence, visits: $0.visits, insideS: tenth($0.insideS))
        }.sorted { $0.fence < $1.fence }
        return t
    }
}
