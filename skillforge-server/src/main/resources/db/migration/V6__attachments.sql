-- Documents attached to user messages. Portable SQL, like the others.
-- The files: stored once per conversation under their SHA-256 (lowercase hex), whatever names they
-- were attached under. BYTEA is PostgreSQL's binary type; SQLite keeps a bound byte array as a blob
-- in a column of any declared type.
CREATE TABLE attachment_files (
    conversation_id TEXT   NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    sha256          TEXT   NOT NULL,
    size            BIGINT NOT NULL,
    data            BYTEA  NOT NULL,
    PRIMARY KEY (conversation_id, sha256)
);
-- Which files a user entry references, in order, with what the model reads of each: prompt_text is
-- the extracted text in its fixed wrapping, computed once at upload and sent verbatim ever after
-- (the prompt-cache invariant). Written with the entry, never updated.
CREATE TABLE entry_attachments (
    conversation_id TEXT    NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL,
    position        INTEGER NOT NULL,
    sha256          TEXT    NOT NULL,
    name            TEXT    NOT NULL,
    media_type      TEXT    NOT NULL,
    size            BIGINT  NOT NULL,
    prompt_text     TEXT    NOT NULL,
    PRIMARY KEY (conversation_id, seq, position)
);
