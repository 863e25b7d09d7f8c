import FleetModel
import FleetStorage
import Foundation

/// What an attempt's outcome means for its batch (Standard Webhooks'
/// retry rules as the project states them): 2xx delivered; 410 disables
/// the subscription; 429 and 503 retried when the receiver says
/// (`Retry-After`) or on the back-off; any other 4xx retried on the
/// back-off and counted towards refusal; anything else (5xx, 1xx, 3xx, no
/// answer) retried on the back-off. Pure: the clock and the random draw
/// are the caller's.
public enum WebhookVerdict {
    public static func attempt(
        _ outcome: WebhookSender.Outcome, batch: WebhookBatch, nowMs: Int64, unit: Double,
        backoff: WebhookBackoff = WebhookBackoff()
    ) -> WebhookAttempt {
        let failures = batch.attempts + 1
        let retryAt = nowMs + Int64(backoff.delayS(failures: failures, unit: unit) * 1000)
        let when = RFC3339.format(millis: nowMs)
        switch outcome {
        case .failed(let f):
            return .failed(error: "\(when): \(f.description)", retryAtMs: retryAt)
        case .answered(let status, let retryAfter):
            switch status {
            case 200..<300:
                return .delivered(status: status)
            case 410:
                return .gone(error: "\(when): HTTP 410 Gone: subscription disabled")
            case 429, 503:
                let asked = retryAfter.flatMap {
                    backoff.retryAfterS($0, nowS: Double(nowMs) / 1000)
                }
                return .failed(
                    error: "\(when): HTTP \(status)",
                    retryAtMs: asked.map { nowMs + Int64($0 * 1000) } ?? retryAt)
            case 400..<500:
                return .refused(
                    status: status,
                    error: "\(when): HTTP \(status) (refusal \(batch.refusals + 1) of 3)",
                    retryAtMs: retryAt)
            default:
                return .failed(error: "\(when): HTTP \(status)", retryAtMs: retryAt)
            }
        }
    }
}
