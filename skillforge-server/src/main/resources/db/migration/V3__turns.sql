-- One row per turn, written as 'running' when it starts and replaced when it ends.
CREATE TABLE turns (
    conversation_id TEXT    NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    turn            INTEGER NOT NULL,
    status          TEXT    NOT NULL,
    started_at      BIGINT  NOT NULL,
    ended_at        BIGINT,
    summary_json    TEXT,
    PRIMARY KEY (conversation_id, turn)
);
