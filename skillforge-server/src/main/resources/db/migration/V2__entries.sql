-- The transcript. Append-only: a row is inserted once (a second insert of the same seq is
-- ignored) and never updated; rows go only when their whole conversation is deleted.
-- content is stored verbatim: the prompt-cache invariant depends on byte-exact replay.
CREATE TABLE entries (
    conversation_id TEXT    NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL,
    turn            INTEGER NOT NULL,
    kind            TEXT    NOT NULL,
    content         TEXT    NOT NULL,
    replay_format   TEXT,
    replay_data     TEXT,
    created_at      BIGINT  NOT NULL,
    PRIMARY KEY (conversation_id, seq)
);
