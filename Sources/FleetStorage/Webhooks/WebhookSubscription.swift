/// One webhook subscription: where to send which alerts, and how.
///
/// Subscriptions come from the config file (`[[webhooks]]`, `origin`
/// `.config`, replaced on every start and SIGHUP) or from the API
/// (`PUT /api/v1/webhooks/{name}`, `origin` `.api`); both are stored with
/// their outbox, so that what is owed to each survives restarts. Checked by
/// `WebhookRules` (FleetWebhooks) before they are stored.
public struct WebhookSubscription: Sendable, Equatable {
    /// Where a subscription was defined.
    public enum Origin: String, Sendable, Equatable {
        case config, api
    }

    /// Unique; 1–64 characters of `[A-Za-z0-9_-]`.
    public var name: String
    /// `http://` or `https://` URL the batches are POSTed to.
    public var url: String
    /// The signing key in the Standard Webhooks form (`whsec_` + base64).
    public var secret: String
    /// Alert types sent (`AlertType` raw values); empty: every type.
    public var types: [String]
    /// Device ids sent; empty: every device.
    public var devices: [String]
    /// Fences whose alerts are sent (geofence alerts only name a fence);
    /// empty: every alert. When set, alerts without a fence are left out.
    public var fences: [String]
    /// The URL may resolve to loopback, private or link-local addresses.
    public var allowPrivate: Bool
    /// Most alerts in one request, 1–1000.
    public var batchMax: Int
    /// A request not answered within this many seconds has failed, 1–120.
    public var timeoutS: Double
    /// A batch still undelivered this many hours after its oldest alert
    /// was committed is dead-lettered, 1–8760.
    public var maxAgeH: Double
    public var origin: Origin
    /// Why deliveries are stopped (a 410 from the receiver), or nil.
    /// State, not settings: `fleetctl webhooks retry` clears it.
    public var disabled: String?

    public init(
        name: String, url: String, secret: String, types: [String] = [], devices: [String] = [],
        fences: [String] = [], allowPrivate: Bool = false, batchMax: Int = 100,
        timeoutS: Double = 10, maxAgeH: Double = 72, origin: Origin = .api,
        disabled: String? = nil
    ) {
        self.name = name
        self.url = url
        self.secret = secret
        self.types = types
        self.devices = devices
        self.fences = fences
        self.allowPrivate = allowPrivate
        self.batchMax = batchMax
        self.timeoutS = timeoutS
        self.maxAgeH = maxAgeH
        self.origin = origin
        self.disabled = disabled
    }

    /// The same settings (everything but `disabled`).
    public func sameSettings(as other: WebhookSubscription) -> Bool {
        var a = self
        a.disabled = other.disabled
        return a == other
    }
}

/// A subscription's filters, made once for matching every committed alert.
public struct WebhookMatcher: Sendable {
    public let name: String
    private let types: Set<String>
    private let devices: Set<String>
    private let fences: Set<String>

    public init(_ s: WebhookSubscription) {
        name = s.name
        types = Set(s.types)
        devices = Set(s.devices)
        fences = Set(s.fences)
    }

    /// Whether an alert of `type` for `device` (about `fence`) goes to this subscription.
    public func matches(type: String, device: String, fence: String?) -> Bool {
        takes(type: type) && takes(device: device, fence: fence)
    }

    /// Whether the type filter lets an alert of `type` through.
    public func takes(type: String) -> Bool { types.isEmpty || types.contains(type) }

    /// Whether the device and fence filters let an alert for `device`
    /// (about `fence`) through.
    public func takes(device: String, fence: String?) -> Bool {
        if !devices.isEmpty, !devices.contains(device) { return false }
        if !fences.isEmpty {
            guard let fence, fences.contains(fence) else { return false }
        }
        return true
    }

    /// Whether it filters on devices or fences (not on the type alone).
    public var filtersMore: Bool { !devices.isEmpty || !fences.isEmpty }
}
