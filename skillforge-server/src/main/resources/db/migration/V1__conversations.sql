-- Portable SQL: runs unchanged on SQLite and PostgreSQL.
-- Times are epoch milliseconds in BIGINT: exact, the same on both databases, and what the Java
-- contract speaks (no time-zone or precision conversions between driver and database).
CREATE TABLE conversations (
    id            TEXT   NOT NULL PRIMARY KEY,
    title         TEXT,
    system_prompt TEXT,
    provider      TEXT,
    model         TEXT,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);

-- The conversation list: most recently updated first, ties by id.
CREATE INDEX conversations_by_updated_at ON conversations (updated_at DESC, id);
