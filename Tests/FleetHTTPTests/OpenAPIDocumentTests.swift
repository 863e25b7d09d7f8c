import FleetConfig
import Foundation
import Logging
import Testing

@testable import FleetHTTP

/// `GET /api/v1/openapi.json` is written by hand: these checks keep it true
/// to the routes (the schemathesis run in the end-to-end tests checks the
/// answers against it).
@Suite struct OpenAPIDocumentTests {
    let doc: [String: Any]
    let routes: [Route]

    init() throws {
        doc = try #require(
            try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8))
                as? [String: Any])
        let backend = EmptyBackend()
        let settings = HTTPSettings()
        routes = APIServer.routes(
            RouteDeps(
                backend: backend, auth: Authenticator(backend: backend, settings: settings),
                hub: EventHub(settings: settings), settings: settings,
                logger: Logger(label: "test")))
    }

    var paths: [String: [String: Any]] { doc["paths"] as? [String: [String: Any]] ?? [:] }

    /// `#/components/…` resolved (nil when it points nowhere).
    func resolve(_ object: [String: Any]) -> [String: Any]? {
        guard let ref = object["$ref"] as? String else { return object }
        var node: Any? = doc
        for key in ref.dropFirst(2).split(separator: "/") {
            node = (node as? [String: Any])?[String(key)]
        }
        return node as? [String: Any]
    }

    @Test func isOpenAPI31() {
        #expect(doc["openapi"] as? String == "3.1.0")
        #expect((doc["info"] as? [String: Any])?["title"] as? String == "fleetd API")
    }

    @Test func everyRouteIsDocumentedWithItsQueryParametersAndCredentials() throws {
        for route in routes {
            let label = "\(route.method) \(route.path)"
            let item = try #require(paths[route.path], "\(label) is not in the document")
            let op = try #require(
                item[route.method.rawValue.lowercased()] as? [String: Any],
                "\(label) is not in the document")
            let params =
                ((item["parameters"] as? [[String: Any]] ?? [])
                + (op["parameters"] as? [[String: Any]] ?? [])).map { resolve($0) }
            #expect(params.allSatisfy { $0 != nil }, "\(label): a parameter's $ref points nowhere")
            let query = Set(
                params.compactMap { p in
                    p?["in"] as? String == "query" ? p?["name"] as? String : nil
                }
            )
            #expect(query == route.parameters, "\(label): query parameters")
            let pathNames = Set(
                params.compactMap { p in p?["in"] as? String == "path" ? p?["name"] as? String : nil
                })
            let expected = Set(
                route.pattern.filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
            )
            #expect(pathNames == expected, "\(label): path parameters")
            let open = (op["security"] as? [Any])?.isEmpty == true
            #expect(open == (route.role == nil), "\(label): credentials")
            let responses = op["responses"] as? [String: Any] ?? [:]
            #expect(responses.keys.contains("400"), "\(label): 400 (unknown parameters)")
            if route.role != nil {
                #expect(responses.keys.contains("401"), "\(label): 401")
                // A driver may use only the lowest routes: every other one may answer 403.
                if route.role != .driver {
                    #expect(responses.keys.contains("403"), "\(label): 403")
                }
            }
        }
    }

    @Test func documentsNothingThatIsNotARoute() {
        let known = Set(routes.map { "\($0.method.rawValue.lowercased()) \($0.path)" })
        for (path, item) in paths {
            for method in item.keys where method != "parameters" {
                #expect(known.contains("\(method) \(path)"), "\(method) \(path) has no route")
            }
        }
    }

    @Test func everyReferencePointsSomewhere() {
        var refs: [String] = []
        func walk(_ node: Any) {
            if let o = node as? [String: Any] {
                if let r = o["$ref"] as? String { refs.append(r) }
                o.values.forEach(walk)
            } else if let a = node as? [Any] {
                a.forEach(walk)
            }
        }
        walk(doc)
        #expect(!refs.isEmpty)
        for r in refs { #expect(resolve(["$ref": r]) != nil, "\(r) points nowhere") }
    }
}
