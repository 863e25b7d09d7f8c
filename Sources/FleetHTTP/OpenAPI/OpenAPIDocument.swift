import Hummingbird

/// `GET /api/v1/openapi.json`: the API described in OpenAPI 3.1
/// (https://spec.openapis.org/oas/v3.1.0), written by hand beside the
/// routes. Kept true by `OpenAPIDocumentTests` (every route and query
/// parameter is in it, and nothing else) and by the end-to-end run of
/// schemathesis against a live daemon. Served without credentials: it holds
/// no data.
enum OpenAPIDocument {
    static func make(_ d: RouteDeps) -> [Route] {
        [Route(.get, "/api/v1/openapi.json", role: nil) { _ in Replies.json(json) }]
    }

    /// The document. Add operations and fields; never rename one.
    static let json = #"""
        {
          "openapi": "3.1.0",
          "info": {
            "title": "fleetd API",
            "version": "1",
            "description": "fleetd's HTTP API: devices, positions, alerts, trips, fences, status and the live event stream. Every route but /healthz, /readyz, /api/v1/openapi.json and logging in needs credentials: the session cookie (POST /api/v1/session) or a token (Authorization: Bearer). Records have the fields of `fleetctl … --json`; fields are added, never renamed. Errors are always {\"error\", \"detail\"} (and \"problems\" for 422). A query parameter the operation does not list, or one given twice, is a 400.",
            "license": { "name": "see the project's LICENSE" }
          },
          "servers": [{ "url": "/" }],
          "security": [{ "bearer": [] }, { "session": [] }],
          "tags": [
            { "name": "health" }, { "name": "session" }, { "name": "devices" }, { "name": "positions" },
            { "name": "alerts" }, { "name": "trips" }, { "name": "reports" }, { "name": "fences" }, { "name": "status" },
            { "name": "events" }, { "name": "webhooks" }
          ],
          "paths": {
            "/healthz": {
              "get": {
                "operationId": "health", "tags": ["health"], "security": [],
                "summary": "The process answers.",
                "responses": {
                  "200": { "description": "Alive.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Status" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" }
                }
              }
            },
            "/readyz": {
              "get": {
                "operationId": "ready", "tags": ["health"], "security": [],
                "summary": "Ready: fences loaded, storage working, not starting or stopping.",
                "responses": {
                  "200": { "description": "Ready.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Status" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              }
            },
            "/metrics": {
              "get": {
                "operationId": "metrics", "tags": ["health"], "security": [],
                "summary": "The daemon's metrics in the Prometheus text format (version 0.0.4). Open to clients on loopback; from any other address it needs a token or session of any role (401 without).",
                "responses": {
                  "200": { "description": "The metrics.", "content": { "text/plain": { "schema": { "type": "string" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "404": { "$ref": "#/components/responses/NotFound" }
                }
              }
            },
            "/api/v1/openapi.json": {
              "get": {
                "operationId": "openapi", "tags": ["health"], "security": [],
                "summary": "This document.",
                "responses": {
                  "200": { "description": "The OpenAPI 3.1 document.", "content": { "application/json": { "schema": { "type": "object" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" }
                }
              }
            },
            "/api/v1/session": {
              "post": {
                "operationId": "login", "tags": ["session"], "security": [],
                "summary": "Log in: sets the session cookie fleetd_session (HttpOnly, SameSite=Strict; Secure behind TLS).",
                "requestBody": {
                  "required": true,
                  "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Login" } } }
                },
                "responses": {
                  "200": {
                    "description": "Logged in.",
                    "headers": { "Set-Cookie": { "schema": { "type": "string" }, "description": "fleetd_session=…" } },
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Caller" } } }
                  },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "408": { "$ref": "#/components/responses/Timeout" },
                  "413": { "$ref": "#/components/responses/TooLarge" },
                  "415": { "$ref": "#/components/responses/UnsupportedType" },
                  "422": { "$ref": "#/components/responses/Invalid" },
                  "429": { "$ref": "#/components/responses/TooMany" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              },
              "get": {
                "operationId": "whoami", "tags": ["session"],
                "summary": "Who the credentials are.",
                "responses": {
                  "200": { "description": "The caller.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Caller" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              },
              "delete": {
                "operationId": "logout", "tags": ["session"], "security": [],
                "summary": "Log out: ends the session of the cookie sent (if any) and clears the cookie.",
                "responses": {
                  "200": { "description": "Logged out.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Status" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" }
                }
              }
            },
            "/api/v1/devices": {
              "get": {
                "operationId": "listDevices", "tags": ["devices"],
                "summary": "Devices (registered or seen) by id, paged by id.",
                "parameters": [
                  { "$ref": "#/components/parameters/limit" },
                  { "name": "after", "in": "query", "description": "Only devices whose id sorts after this one (the cursor in next).", "schema": { "$ref": "#/components/schemas/DeviceId" } }
                ],
                "responses": {
                  "200": { "description": "A page of devices.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/DevicePage" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              }
            },
            "/api/v1/devices/{id}": {
              "parameters": [{ "$ref": "#/components/parameters/deviceId" }],
              "get": {
                "operationId": "getDevice", "tags": ["devices"],
                "summary": "One device with its newest position.",
                "responses": {
                  "200": { "description": "The device.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/DeviceDetail" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "404": { "$ref": "#/components/responses/NotFound" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              },
              "put": {
                "operationId": "putDevice", "tags": ["devices"],
                "summary": "Register a device or update its name, plate and VIN (operator).",
                "requestBody": {
                  "required": true,
                  "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Registration" } } }
                },
                "responses": {
                  "200": { "description": "The device as now stored.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Device" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "403": { "$ref": "#/components/responses/Forbidden" },
                  "404": { "$ref": "#/components/responses/NotFound" },
                  "408": { "$ref": "#/components/responses/Timeout" },
                  "413": { "$ref": "#/components/responses/TooLarge" },
                  "415": { "$ref": "#/components/responses/UnsupportedType" },
                  "422": { "$ref": "#/components/responses/Invalid" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              },
              "delete": {
                "operationId": "deleteDevice", "tags": ["devices"],
                "summary": "Unregister a device (operator); its positions, alerts and trips stay.",
                "responses": {
                  "200": { "description": "Unregistered.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Unregistered" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "403": { "$ref": "#/components/responses/Forbidden" },
                  "404": { "$ref": "#/components/responses/NotFound" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              }
            },
            "/api/v1/devices/{id}/positions": {
              "parameters": [{ "$ref": "#/components/parameters/deviceId" }],
              "get": {
                "operationId": "listPositions", "tags": ["positions"],
                "summary": "A device's positions in time order, from ≤ time < to; JSON (paged), GeoJSON or CSV by Accept.",
                "parameters": [
                  { "$ref": "#/components/parameters/from" },
                  { "$ref": "#/components/parameters/to" },
                  { "$ref": "#/components/parameters/positionLimit" }
                ],
                "responses": {
                  "200": {
                    "description": "The positions.",
                    "content": {
                      "application/json": { "schema": { "$ref": "#/components/schemas/PositionPage" } },
                      "application/geo+json": { "schema": { "$ref": "#/components/schemas/Track" } },
                      "text/csv": { "schema": { "type": "string" } }
                    }
                  },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "404": { "$ref": "#/components/responses/NotFound" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              }
            },
            "/api/v1/devices/{id}/track.gpx": {
              "parameters": [{ "$ref": "#/components/parameters/deviceId" }],
              "get": {
                "operationId": "getTrackGPX", "tags": ["positions"],
                "summary": "A device's track as GPX 1.1.",
                "parameters": [
                  { "$ref": "#/components/parameters/from" },
                  { "$ref": "#/components/parameters/to" },
                  { "$ref": "#/components/parameters/positionLimit" }
                ],
                "responses": {
                  "200": { "description": "GPX 1.1.", "content": { "application/gpx+xml": { "schema": { "type": "string" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "404": { "$ref": "#/components/responses/NotFound" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              }
            },
            "/api/v1/alerts": {
              "get": {
                "operationId": "listAlerts", "tags": ["alerts"],
                "summary": "Alerts oldest first after since (an alert id, or a time).",
                "parameters": [
                  { "name": "since", "in": "query", "description": "An alert id below 10^12 (the cursor in next), else a time (Unix ms or RFC 3339).", "schema": { "anyOf": [{ "type": "string", "pattern": "^[0-9]{1,18}$" }, { "$ref": "#/components/schemas/TimeParameter" }] } },
                  { "$ref": "#/components/parameters/deviceFilter" },
                  { "$ref": "#/components/parameters/typeFilter" },
                  { "$ref": "#/components/parameters/fenceFilter" },
                  { "$ref": "#/components/parameters/limit" }
                ],
                "responses": {
                  "200": { "description": "A page of alerts.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/AlertPage" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              }
            },
            "/api/v1/alerts/{id}/ack": {
              "parameters": [
                { "name": "id", "in": "path", "required": true, "description": "The alert's id.", "schema": { "type": "integer", "minimum": 1, "maximum": 9223372036854775807 } }
              ],
              "post": {
                "operationId": "ackAlert", "tags": ["alerts"],
                "summary": "Acknowledge an alert (operator); the first acknowledgement stays.",
                "responses": {
                  "200": { "description": "The alert, with acked_by and acked_at.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Alert" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "403": { "$ref": "#/components/responses/Forbidden" },
                  "404": { "$ref": "#/components/responses/NotFound" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              }
            },
            "/api/v1/trips": {
              "get": {
                "operationId": "listTrips", "tags": ["trips"],
                "summary": "Finished trips overlapping [from, to), by start then id, limit per page; the last page adds the trips under way (open: true).",
                "parameters": [
                  { "$ref": "#/components/parameters/deviceFilter" },
                  { "$ref": "#/components/parameters/from" },
                  { "$ref": "#/components/parameters/to" },
                  { "$ref": "#/components/parameters/limit" },
                  { "name": "after", "in": "query", "description": "The cursor in next: START_MS.ID of the last trip of the page before.", "schema": { "type": "string", "pattern": "^-?[0-9]{1,18}\\.-?[0-9]{1,18}$" } }
                ],
                "responses": {
                  "200": { "description": "A page of trips.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/TripPage" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              }
            },
            "/api/v1/positions/latest": {
              "get": {
                "operationId": "latestPositions", "tags": ["positions"],
                "summary": "Every device with an accepted position: its newest one, its name, whether it is silent; by id, paged by id (what the live map starts from).",
                "parameters": [
                  { "name": "limit", "in": "query", "description": "Most vehicles in a page (1…100000, default 10000).", "schema": { "type": "integer", "minimum": 1, "maximum": 100000 } },
                  { "name": "after", "in": "query", "description": "Only devices whose id sorts after this one (the cursor in next).", "schema": { "$ref": "#/components/schemas/DeviceId" } }
                ],
                "responses": {
                  "200": { "description": "A page of vehicles.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/VehiclePage" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              }
            },
            "/api/v1/reports/usage": {
              "get": {
                "operationId": "usageReport", "tags": ["reports"],
                "summary": "Per vehicle and for the fleet, use in [from, to): distance, driving and parked time, trips, top speed, overspeed, fence visits (rules in docs/reports.md). JSON, or CSV with Accept: text/csv or format=csv.",
                "parameters": [
                  { "name": "from", "in": "query", "required": true, "description": "Start of the period (RFC 3339 or Unix ms).", "schema": { "$ref": "#/components/schemas/TimeParameter" } },
                  { "name": "to", "in": "query", "required": true, "description": "End of the period, not included (RFC 3339 or Unix ms); after from.", "schema": { "$ref": "#/components/schemas/TimeParameter" } },
                  { "$ref": "#/components/parameters/deviceFilter" },
                  { "name": "format", "in": "query", "description": "csv: the report as a CSV download whatever Accept says.", "schema": { "type": "string", "enum": ["json", "csv"] } }
                ],
                "responses": {
                  "200": { "description": "The report.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/UsageReport" } }, "text/csv": { "schema": { "type": "string" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              }
            },
            "/api/v1/fences": {
              "get": {
                "operationId": "getFences", "tags": ["fences"],
                "summary": "The loaded fences file, every property kept.",
                "responses": {
                  "200": { "description": "A GeoJSON FeatureCollection (RFC 7946).", "content": { "application/geo+json": { "schema": { "$ref": "#/components/schemas/FeatureCollection" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" }
                }
              },
              "put": {
                "operationId": "putFences", "tags": ["fences"],
                "summary": "Replace the fences (admin): validated as the file is; when valid, written to the fences file atomically and loaded as SIGHUP does.",
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/geo+json": { "schema": { "$ref": "#/components/schemas/FeatureCollection" } },
                    "application/json": { "schema": { "$ref": "#/components/schemas/FeatureCollection" } }
                  }
                },
                "responses": {
                  "200": { "description": "Loaded.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Status" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "403": { "$ref": "#/components/responses/Forbidden" },
                  "408": { "$ref": "#/components/responses/Timeout" },
                  "413": { "$ref": "#/components/responses/TooLarge" },
                  "415": { "$ref": "#/components/responses/UnsupportedType" },
                  "422": { "$ref": "#/components/responses/Invalid" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              }
            },
            "/api/v1/webhooks": {
              "get": {
                "operationId": "listWebhooks", "tags": ["webhooks"],
                "summary": "Every webhook subscription with how its deliveries stand (admin); never a secret.",
                "responses": {
                  "200": { "description": "The subscriptions, by name (next is always null).", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/WebhookPage" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "403": { "$ref": "#/components/responses/Forbidden" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              }
            },
            "/api/v1/webhooks/{name}": {
              "parameters": [{ "name": "name", "in": "path", "required": true, "description": "The subscription's name.", "schema": { "$ref": "#/components/schemas/WebhookName" } }],
              "get": {
                "operationId": "getWebhook", "tags": ["webhooks"],
                "summary": "One subscription with how its deliveries stand (admin).",
                "responses": {
                  "200": { "description": "The subscription.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Webhook" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "403": { "$ref": "#/components/responses/Forbidden" },
                  "404": { "$ref": "#/components/responses/NotFound" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              },
              "put": {
                "operationId": "putWebhook", "tags": ["webhooks"],
                "summary": "Create (201) or replace (200) a subscription (admin). Without a secret, a new one keeps the old and a created one gets one made, returned in secret this once. A new one starts with the next alert, or with the alerts after since.",
                "requestBody": {
                  "required": true,
                  "content": { "application/json": { "schema": { "$ref": "#/components/schemas/WebhookSettings" } } }
                },
                "responses": {
                  "200": { "description": "Replaced; as now stored.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Webhook" } } } },
                  "201": {
                    "description": "Created; with secret when fleetd made it.",
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Webhook" } } },
                    "links": {
                      "GetWebhook": { "operationId": "getWebhook", "parameters": { "name": "$request.path.name" } },
                      "DeleteWebhook": { "operationId": "deleteWebhook", "parameters": { "name": "$request.path.name" } }
                    }
                  },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "403": { "$ref": "#/components/responses/Forbidden" },
                  "408": { "$ref": "#/components/responses/Timeout" },
                  "409": { "$ref": "#/components/responses/FromConfig" },
                  "413": { "$ref": "#/components/responses/TooLarge" },
                  "415": { "$ref": "#/components/responses/UnsupportedType" },
                  "422": { "$ref": "#/components/responses/Invalid" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              },
              "delete": {
                "operationId": "deleteWebhook", "tags": ["webhooks"],
                "summary": "Delete a subscription and what it is still owed (admin).",
                "responses": {
                  "200": { "description": "Deleted.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/WebhookDeleted" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "403": { "$ref": "#/components/responses/Forbidden" },
                  "404": { "$ref": "#/components/responses/NotFound" },
                  "409": { "$ref": "#/components/responses/FromConfig" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              }
            },
            "/api/v1/status": {
              "get": {
                "operationId": "getStatus", "tags": ["status"],
                "summary": "What fleetctl status --json shows.",
                "responses": {
                  "200": { "description": "The daemon's status.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/DaemonStatus" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" }
                }
              }
            },
            "/api/v1/events": {
              "get": {
                "operationId": "events", "tags": ["events"],
                "summary": "The live stream (Server-Sent Events): event alert (id = the alert id, data = the alert) and event position (a device's newest committed position, at most once a second per device). With Last-Event-ID, the alerts missed first, then the live ones.",
                "parameters": [
                  { "$ref": "#/components/parameters/deviceFilter" },
                  { "$ref": "#/components/parameters/typeFilter" },
                  { "$ref": "#/components/parameters/fenceFilter" },
                  { "name": "positions", "in": "query", "description": "off: no position events; batch: each round's positions as one positions event (a JSON array), for a client without device, type or fence.", "schema": { "type": "string", "enum": ["on", "off", "batch"] } },
                  { "name": "last_event_id", "in": "query", "description": "As the Last-Event-ID header, for clients that cannot send it.", "schema": { "type": "string", "pattern": "^[0-9]{1,18}$" } },
                  { "name": "Last-Event-ID", "in": "header", "description": "The last alert id received.", "schema": { "type": "string", "pattern": "^[0-9]{1,18}$" } }
                ],
                "responses": {
                  "200": { "description": "An endless text/event-stream; a comment line every http.keepalive_s.", "content": { "text/event-stream": { "schema": { "type": "string" } } } },
                  "400": { "$ref": "#/components/responses/BadRequest" },
                  "401": { "$ref": "#/components/responses/Unauthorized" },
                  "503": { "$ref": "#/components/responses/Unavailable" }
                }
              }
            }
          },
          "components": {
            "securitySchemes": {
              "bearer": { "type": "http", "scheme": "bearer", "description": "A token made with fleetctl tokens add." },
              "session": { "type": "apiKey", "in": "cookie", "name": "fleetd_session", "description": "Set by POST /api/v1/session." }
            },
            "parameters": {
              "deviceId": { "name": "id", "in": "path", "required": true, "description": "A device id.", "schema": { "$ref": "#/components/schemas/DeviceId" } },
              "deviceFilter": { "name": "device", "in": "query", "description": "Only this device.", "schema": { "$ref": "#/components/schemas/DeviceId" } },
              "typeFilter": { "name": "type", "in": "query", "description": "Only alerts of this type.", "schema": { "$ref": "#/components/schemas/AlertType" } },
              "fenceFilter": { "name": "fence", "in": "query", "description": "Only alerts of this fence (its id).", "schema": { "type": "string" } },
              "limit": { "name": "limit", "in": "query", "description": "Page size.", "schema": { "type": "integer", "minimum": 1, "maximum": 10000, "default": 1000 } },
              "positionLimit": { "name": "limit", "in": "query", "description": "Page size.", "schema": { "type": "integer", "minimum": 1, "maximum": 100000, "default": 1000 } },
              "from": { "name": "from", "in": "query", "description": "From this time on (RFC 3339 or Unix ms).", "schema": { "$ref": "#/components/schemas/TimeParameter" } },
              "to": { "name": "to", "in": "query", "description": "Before this time (RFC 3339 or Unix ms); after from.", "schema": { "$ref": "#/components/schemas/TimeParameter" } }
            },
            "responses": {
              "BadRequest": { "description": "A bad parameter, named in detail; or bad JSON.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
              "Unauthorized": {
                "description": "No valid credentials.",
                "headers": { "WWW-Authenticate": { "schema": { "type": "string" } } },
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
              },
              "Forbidden": { "description": "The caller's role is too low (detail names the role needed).", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
              "NotFound": { "description": "No such thing.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
              "Timeout": { "description": "The body did not arrive within http.body_timeout_s.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
              "TooLarge": { "description": "The body exceeds its limit (http.max_body_bytes).", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
              "UnsupportedType": { "description": "The body is not JSON.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
              "Invalid": { "description": "The body is valid JSON but wrong: problems lists every problem.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
              "TooMany": {
                "description": "Too many failed logins for this user or from this address.",
                "headers": { "Retry-After": { "schema": { "type": "string" } } },
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
              },
              "FromConfig": { "description": "The subscription is defined in the config file: change it there and reload.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
              "Unavailable": {
                "description": "Storage failing, stopping, not ready, or too many streams.",
                "headers": { "Retry-After": { "schema": { "type": "string" } } },
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
              }
            },
            "schemas": {
              "Error": {
                "type": "object", "required": ["error", "detail"],
                "properties": {
                  "error": { "type": "string" },
                  "detail": { "type": "string" },
                  "problems": { "type": "array", "items": { "type": "string" } }
                }
              },
              "Status": { "type": "object", "required": ["status"], "properties": { "status": { "type": "string" } } },
              "WebhookName": { "type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$" },
              "WebhookSettings": {
                "type": "object", "required": ["url"], "additionalProperties": false,
                "properties": {
                  "url": { "type": "string", "minLength": 1, "maxLength": 2048, "description": "http:// or https:// with a host; no user information or fragment." },
                  "secret": { "type": "string", "pattern": "^whsec_", "maxLength": 4096, "description": "whsec_ and the base64 of at least 24 random bytes." },
                  "types": { "type": "array", "items": { "$ref": "#/components/schemas/AlertType" }, "description": "Empty or absent: every type." },
                  "devices": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "Empty or absent: every device." },
                  "fences": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "Empty or absent: every alert; else only alerts of these fences." },
                  "allow_private": { "type": "boolean", "default": false },
                  "batch_max": { "type": "integer", "minimum": 1, "maximum": 1000, "default": 100 },
                  "timeout_s": { "type": "number", "minimum": 1, "maximum": 120, "default": 10 },
                  "max_age_h": { "type": "number", "minimum": 1, "maximum": 8760, "default": 72 },
                  "since": { "type": "integer", "minimum": 0, "maximum": 9000000000000000, "description": "For a new subscription: also owed every stored alert with a greater id." }
                },
                "examples": [{ "url": "https://dispatch.example/fleet-alerts", "types": ["geofence_exit", "overspeed_start"] }]
              },
              "Webhook": {
                "type": "object",
                "required": ["name", "url", "origin", "enabled", "disabled_reason", "types", "devices", "fences", "allow_private", "batch_max", "timeout_s", "max_age_h", "delivered", "pending", "oldest_pending", "last_error", "last_delivery", "refused", "dead"],
                "properties": {
                  "name": { "$ref": "#/components/schemas/WebhookName" },
                  "url": { "type": "string" },
                  "origin": { "type": "string", "enum": ["config", "api"] },
                  "enabled": { "type": "boolean" },
                  "disabled_reason": { "type": ["string", "null"], "description": "Why deliveries stopped (a 410), until fleetctl webhooks retry." },
                  "types": { "type": "array", "items": { "type": "string" } },
                  "devices": { "type": "array", "items": { "type": "string" } },
                  "fences": { "type": "array", "items": { "type": "string" } },
                  "allow_private": { "type": "boolean" },
                  "batch_max": { "type": "integer" },
                  "timeout_s": { "type": "number" },
                  "max_age_h": { "type": "number" },
                  "delivered": { "type": "integer", "description": "Alerts delivered since the subscription was made." },
                  "pending": { "type": "integer", "description": "Alerts owed." },
                  "oldest_pending": { "oneOf": [{ "$ref": "#/components/schemas/Time" }, { "type": "null" }], "description": "When the oldest alert owed was committed." },
                  "last_error": { "type": ["string", "null"] },
                  "last_delivery": { "oneOf": [{ "$ref": "#/components/schemas/Time" }, { "type": "null" }] },
                  "refused": { "type": "integer", "description": "Alerts in batches the receiver refused (4xx three times)." },
                  "dead": { "type": "integer", "description": "Alerts in batches dead-lettered after max_age_h." },
                  "secret": { "type": "string", "description": "Only in the answer to the PUT that made it." }
                }
              },
              "WebhookPage": {
                "type": "object", "required": ["items", "next"],
                "properties": { "items": { "type": "array", "items": { "$ref": "#/components/schemas/Webhook" } }, "next": { "type": "null" } }
              },
              "WebhookDeleted": {
                "type": "object", "required": ["webhook", "deleted"],
                "properties": { "webhook": { "type": "string" }, "deleted": { "const": true } }
              },
              "DeviceId": { "type": "string", "pattern": "^[A-Za-z0-9._:-]{1,64}$" },
              "TimeParameter": {
                "type": "string",
                "description": "Unix milliseconds, or an RFC 3339 time.",
                "pattern": "^([0-9]{1,15}|[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))$"
              },
              "Time": { "type": "string", "description": "RFC 3339, UTC, milliseconds.", "format": "date-time" },
              "Login": {
                "type": "object", "required": ["user", "password"], "additionalProperties": false,
                "properties": { "user": { "type": "string" }, "password": { "type": "string" } }
              },
              "Caller": {
                "type": "object", "required": ["user", "kind", "role"],
                "properties": {
                  "user": { "type": "string" },
                  "kind": { "type": "string", "enum": ["user", "token"] },
                  "role": { "$ref": "#/components/schemas/Role" }
                }
              },
              "Role": { "type": "string", "enum": ["viewer", "operator", "admin"] },
              "AlertType": { "type": "string", "enum": ["geofence_enter", "geofence_exit", "overspeed_start", "overspeed_end", "trip_start", "trip_end", "device_silent", "device_back"] },
              "Registration": {
                "type": "object", "additionalProperties": false,
                "properties": {
                  "name": { "type": ["string", "null"], "maxLength": 200 },
                  "plate": { "type": ["string", "null"], "maxLength": 200 },
                  "vin": { "type": ["string", "null"], "maxLength": 200 }
                }
              },
              "Unregistered": {
                "type": "object", "required": ["device", "registered"],
                "properties": { "device": { "type": "string" }, "registered": { "const": false } }
              },
              "Device": {
                "type": "object",
                "required": ["device", "name", "plate", "vin", "registered", "positions", "odometer_m", "silent", "last_fix"],
                "properties": {
                  "device": { "type": "string" },
                  "name": { "type": ["string", "null"] },
                  "plate": { "type": ["string", "null"] },
                  "vin": { "type": ["string", "null"] },
                  "registered": { "type": "boolean" },
                  "positions": { "type": "integer", "description": "Positions stored." },
                  "odometer_m": { "type": "number" },
                  "silent": { "type": "boolean" },
                  "last_fix": { "oneOf": [{ "$ref": "#/components/schemas/Time" }, { "type": "null" }] }
                }
              },
              "DeviceDetail": {
                "allOf": [
                  { "$ref": "#/components/schemas/Device" },
                  {
                    "type": "object", "required": ["last_position", "fences"],
                    "properties": {
                      "last_position": { "oneOf": [{ "$ref": "#/components/schemas/Position" }, { "type": "null" }] },
                      "fences": { "type": "array", "items": { "type": "string" }, "description": "Fences it is inside, by its newest enter/exit alert per fence." }
                    }
                  }
                ]
              },
              "Position": {
                "type": "object",
                "required": ["device", "time", "lat", "lon", "valid", "flag"],
                "properties": {
                  "device": { "type": "string" },
                  "time": { "$ref": "#/components/schemas/Time" },
                  "lat": { "type": "number" },
                  "lon": { "type": "number" },
                  "speed_kmh": { "type": ["number", "null"] },
                  "course": { "type": ["number", "null"] },
                  "alt_m": { "type": ["number", "null"] },
                  "accuracy_m": { "type": ["number", "null"] },
                  "sats": { "type": ["integer", "null"] },
                  "ignition": { "type": ["boolean", "null"] },
                  "valid": { "type": "boolean" },
                  "flag": { "type": "string", "enum": ["-", "late", "no-fix", "jump"] },
                  "priority": { "type": ["integer", "null"] },
                  "movement": { "type": ["boolean", "null"] },
                  "gsm_signal": { "type": ["integer", "null"] },
                  "ext_voltage_mv": { "type": ["integer", "null"] },
                  "odometer_m": { "type": ["number", "null"] },
                  "gnss_status": { "type": ["integer", "null"] },
                  "fix_quality": { "type": ["integer", "null"] },
                  "hdop": { "type": ["number", "null"] },
                  "io": { "type": ["object", "null"] },
                  "battery": { "type": ["number", "null"], "description": "Percent." },
                  "charging": { "type": ["boolean", "null"] },
                  "attributes": { "type": ["object", "null"] }
                }
              },
              "Alert": {
                "type": "object",
                "required": ["id", "time", "device", "type", "fence", "lat", "lon"],
                "description": "Then the details of its type (see docs/tracking.md).",
                "properties": {
                  "id": { "type": "integer" },
                  "time": { "$ref": "#/components/schemas/Time" },
                  "device": { "type": "string" },
                  "type": { "$ref": "#/components/schemas/AlertType" },
                  "fence": { "type": ["string", "null"], "description": "The fence's id (geofence alerts)." },
                  "fence_name": { "type": "string", "description": "The fence's name, beside its id (geofence alerts, when the fence is loaded)." },
                  "lat": { "type": "number" },
                  "lon": { "type": "number" },
                  "acked_by": { "type": "string", "description": "user:NAME or token:NAME; only once acknowledged." },
                  "acked_at": { "$ref": "#/components/schemas/Time" }
                }
              },
              "Trip": {
                "type": "object",
                "required": ["id", "device", "vehicle", "start_time", "end_time", "start_lat", "start_lon", "end_lat", "end_lon", "start_fence", "end_fence", "distance_m", "duration_s", "max_speed_kmh", "avg_speed_kmh", "fixes", "start_odometer_m", "end_odometer_m", "open"],
                "properties": {
                  "id": { "type": ["integer", "null"], "description": "null for a trip under way." },
                  "device": { "type": "string" },
                  "vehicle": { "type": ["string", "null"] },
                  "start_time": { "$ref": "#/components/schemas/Time" },
                  "end_time": { "$ref": "#/components/schemas/Time" },
                  "start_lat": { "type": "number" },
                  "start_lon": { "type": "number" },
                  "end_lat": { "type": "number" },
                  "end_lon": { "type": "number" },
                  "start_fence": { "type": ["string", "null"], "description": "Names of the fences at the start, \", \" between several." },
                  "end_fence": { "type": ["string", "null"], "description": "Names of the fences at the end." },
                  "start_fence_id": { "type": ["string", "null"], "description": "Ids of the fences at the start (sorted, \", \" between several)." },
                  "end_fence_id": { "type": ["string", "null"], "description": "Ids of the fences at the end." },
                  "distance_m": { "type": "number", "description": "Metres driven, late_detour_m included." },
                  "late_detour_m": { "type": "number", "minimum": 0, "description": "Of distance_m, the metres the trip's late fixes (stored out of order, not tracked) add; 0 for a trip under way." },
                  "duration_s": { "type": "number" },
                  "max_speed_kmh": { "type": "number" },
                  "avg_speed_kmh": { "type": "number" },
                  "fixes": { "type": "integer" },
                  "start_odometer_m": { "type": "number" },
                  "end_odometer_m": { "type": "number" },
                  "open": { "type": "boolean" }
                }
              },
              "DaemonStatus": {
                "type": "object",
                "required": ["pid", "state", "time_ms", "started_ms", "listening", "fixes_per_s", "datagrams", "fixes_in", "fixes_stored", "alerts", "commits", "queue_fixes", "states_unwritten", "last_commit_ms", "storage_error", "rejected"],
                "properties": {
                  "pid": { "type": "integer" },
                  "state": { "type": "string" },
                  "time_ms": { "type": "integer" },
                  "started_ms": { "type": "integer" },
                  "listening": { "type": "string" },
                  "fixes_per_s": { "type": "integer" },
                  "datagrams": { "type": "integer" },
                  "fixes_in": { "type": "integer" },
                  "fixes_stored": { "type": "integer" },
                  "alerts": { "type": "integer" },
                  "commits": { "type": "integer" },
                  "queue_fixes": { "type": "integer" },
                  "states_unwritten": { "type": "integer" },
                  "last_commit_ms": { "type": "integer" },
                  "storage_error": { "type": ["string", "null"] },
                  "rejected": { "type": "object", "additionalProperties": { "type": "integer" } }
                }
              },
              "Next": { "type": ["string", "null"], "description": "Path and query of the next page; null on the last." },
              "DevicePage": { "type": "object", "required": ["items", "next"], "properties": { "items": { "type": "array", "items": { "$ref": "#/components/schemas/Device" } }, "next": { "$ref": "#/components/schemas/Next" } } },
              "PositionPage": { "type": "object", "required": ["items", "next"], "properties": { "items": { "type": "array", "items": { "$ref": "#/components/schemas/Position" } }, "next": { "$ref": "#/components/schemas/Next" } } },
              "AlertPage": { "type": "object", "required": ["items", "next"], "properties": { "items": { "type": "array", "items": { "$ref": "#/components/schemas/Alert" } }, "next": { "$ref": "#/components/schemas/Next" } } },
              "VehiclePage": { "type": "object", "required": ["items", "next"], "properties": { "items": { "type": "array", "items": { "$ref": "#/components/schemas/Vehicle" } }, "next": { "$ref": "#/components/schemas/Next" } } },
              "Vehicle": {
                "type": "object", "required": ["device", "name", "silent", "odometer_m", "position"],
                "properties": {
                  "device": { "type": "string" },
                  "name": { "type": ["string", "null"] },
                  "silent": { "type": "boolean" },
                  "odometer_m": { "type": "number" },
                  "position": { "$ref": "#/components/schemas/Position" }
                }
              },
              "UsageReport": {
                "type": "object", "required": ["from", "to", "generated_at", "vehicles", "totals"],
                "properties": {
                  "from": { "$ref": "#/components/schemas/Time" },
                  "to": { "$ref": "#/components/schemas/Time" },
                  "generated_at": { "$ref": "#/components/schemas/Time" },
                  "vehicles": { "type": "array", "items": { "$ref": "#/components/schemas/UsageRow" } },
                  "totals": { "$ref": "#/components/schemas/UsageRow" }
                }
              },
              "UsageRow": {
                "type": "object",
                "required": ["device", "name", "distance_m", "driving_s", "trips", "parked_s", "max_speed_kmh", "overspeed_episodes", "overspeed_s", "fence_visits", "first_fix", "last_fix", "fixes"],
                "properties": {
                  "device": { "type": ["string", "null"], "description": "null in totals." },
                  "name": { "type": ["string", "null"] },
                  "distance_m": { "type": "number", "minimum": 0 },
                  "driving_s": { "type": "number", "minimum": 0 },
                  "trips": { "type": "integer", "minimum": 0 },
                  "parked_s": { "type": "number", "minimum": 0 },
                  "max_speed_kmh": { "type": "number", "minimum": 0 },
                  "overspeed_episodes": { "type": "integer", "minimum": 0 },
                  "overspeed_s": { "type": "number", "minimum": 0 },
                  "fence_visits": {
                    "type": "array",
                    "items": { "type": "object", "required": ["fence", "visits", "inside_s"], "properties": { "fence": { "type": "string" }, "visits": { "type": "integer", "minimum": 0 }, "inside_s": { "type": "number", "minimum": 0 } } }
                  },
                  "first_fix": { "oneOf": [{ "$ref": "#/components/schemas/Time" }, { "type": "null" }] },
                  "last_fix": { "oneOf": [{ "$ref": "#/components/schemas/Time" }, { "type": "null" }] },
                  "fixes": { "type": "integer", "minimum": 0 }
                }
              },
              "TripPage": { "type": "object", "required": ["items", "next"], "properties": { "items": { "type": "array", "items": { "$ref": "#/components/schemas/Trip" } }, "next": { "$ref": "#/components/schemas/Next" } } },
              "Track": {
                "type": "object", "required": ["type", "features"],
                "description": "A FeatureCollection with the track as one LineString (a Point for one position), its times in properties.times.",
                "properties": { "type": { "const": "FeatureCollection" }, "features": { "type": "array", "maxItems": 1 } }
              },
              "FeatureCollection": {
                "type": "object", "required": ["type", "features"],
                "description": "GeoJSON (RFC 7946): Polygon and MultiPolygon features, or Points with a radius_m property (circles), or LineStrings with a width_m property (corridors); each with a unique id. See docs/geofences.md for every rule.",
                "properties": {
                  "type": { "const": "FeatureCollection" },
                  "features": { "type": "array", "items": { "type": "object" } }
                }
              }
            }
          }
        }
        """#
}
