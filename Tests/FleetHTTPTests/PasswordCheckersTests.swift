import Testing

@testable import FleetHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Password checks run on threads of their own at nice 19; the threads
/// that called them keep their priority.
@Suite struct PasswordCheckersTests {
    @Test func checksRunAtTheLowestPriorityAndOnlyThere() async {
        #if canImport(Glibc)
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            let mine = getpriority(which, 0)
            let theirs = await PasswordCheckers.shared.run { getpriority(which, 0) }
            #expect(theirs == 19)
            #expect(getpriority(which, 0) == mine)
            // Several at once all finish.
            let sum = await withTaskGroup(of: Int.self) { g in
                for k in 0..<8 { g.addTask { await PasswordCheckers.shared.run { k } } }
                return await g.reduce(0, +)
            }
            #expect(sum == 28)
        #endif
    }
}
