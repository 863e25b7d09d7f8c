import FleetGeo
import FleetTracking
import Testing

/// Whose alerts a fence raises: a fence limited to groups, its groups'
/// vehicles only; any other fence (and an alert of no fence) everyone.
@Suite struct FenceAudienceTests {
    let shape = FenceShape.circle(center: Coordinate(lat: 48, lon: 11), radiusM: 100)

    @Test func aFenceLimitedToGroupsAlertsForItsGroupsOnly() {
        let audience = FenceAudience([
            Fence(id: "yard", name: "Yard", shape: shape, groups: ["North", "East"]),
            Fence(id: "depot", name: "Depot", shape: shape),
        ])
        #expect(!audience.isEmpty)
        func alert(_ fence: String?) -> Alert {
            Alert(type: .geofenceEnter, device: "v", time: 0, fence: fence, lat: 48, lon: 11)
        }
        #expect(audience.admits(alert("yard"), group: "North"))
        #expect(audience.admits(alert("yard"), group: "East"))
        #expect(!audience.admits(alert("yard"), group: "South"))
        #expect(!audience.admits(alert("yard"), group: nil))
        #expect(audience.admits(alert("depot"), group: nil))
        #expect(audience.admits(alert(nil), group: "South"))
        #expect(FenceAudience([Fence(id: "depot", name: "Depot", shape: shape)]).isEmpty)
    }
}
