import FleetStorage
import GRDB

/// The notification rules made through the API (v18): one row per rule,
/// its JSON (`MailRule`'s encoding) in `definition`.
enum MailRuleSQL {
    static let schema = """
        CREATE TABLE notification_rules (
            name TEXT PRIMARY KEY,
            definition TEXT NOT NULL,
            created_by TEXT,
            created_ms INTEGER NOT NULL,
            updated_ms INTEGER NOT NULL
        );
        """

    /// Adds or replaces `rule`; true when added.
    static func put(_ rule: MailRule, nowMs: Int64, _ db: Database) throws -> Bool {
        let existed =
            try Int.fetchOne(
                db, sql: "SELECT 1 FROM notification_rules WHERE name = ?", arguments: [rule.name])
            != nil
        try db.execute(
            sql: """
                INSERT INTO notification_rules (name, definition, created_by, created_ms, updated_ms)
                VALUES (?1, ?2, ?3, ?4, ?4)
                ON CONFLICT(name) DO UPDATE SET definition = excluded.definition,
                  updated_ms = excluded.updated_ms
                """,
            arguments: [rule.name, RecordCoding.line(rule), rule.createdBy, nowMs])
        return !existed
    }

    static func delete(_ name: String, _ db: Database) throws -> Bool {
        try db.execute(sql: "DELETE FROM notification_rules WHERE name = ?", arguments: [name])
        return db.changesCount > 0
    }

    /// Every stored rule, by name (one that cannot be read is left out).
    static func all(_ db: Database) throws -> [MailRule] {
        try Row.fetchAll(
            db, sql: "SELECT name, definition, created_by FROM notification_rules ORDER BY name"
        ).compactMap { r in MailRule.stored(name: r[0], json: r[1], createdBy: r[2]) }
    }
}
