-- Which server instance may run turns on a conversation. No foreign key to conversations on
-- purpose: an instance takes the lease synchronously before the background writer has stored the
-- conversation itself. A released lease keeps its row (owner NULL) so that epoch only ever grows.
CREATE TABLE leases (
    conversation_id TEXT   NOT NULL PRIMARY KEY,
    owner           TEXT,
    epoch           BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    requested_by    TEXT
);
