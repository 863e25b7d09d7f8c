import Testing

@testable import FleetDaemon

@Suite struct AllocatorPolicyTests {
    @Test func setsTheThresholdAndTurnsFastbinsOffUnlessTheOperatorDid() {
        // glibc accepts both settings (mallopt returns 1).
        #expect(AllocatorPolicy.apply(environment: [:]) == ["mmap_threshold", "mxfast"])
        #expect(
            AllocatorPolicy.apply(environment: ["GLIBC_TUNABLES": "glibc.malloc.mxfast=64"])
                == ["mmap_threshold"])
        #expect(
            AllocatorPolicy.apply(
                environment: [
                    "GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=131072:glibc.malloc.mxfast=0"
                ]) == [])
    }
}
