-- What each person chose for themselves on the settings page: the provider their new conversations start on, the
-- page's colour theme, and instructions added to the system prompt of each conversation they start afterwards (a
-- started conversation keeps the prompt it began with: its provider's cache depends on it).
CREATE TABLE preferences (
    person_id        TEXT   NOT NULL PRIMARY KEY,
    default_provider TEXT,
    theme            TEXT   NOT NULL,
    instructions     TEXT   NOT NULL,
    updated_at       BIGINT NOT NULL
);
