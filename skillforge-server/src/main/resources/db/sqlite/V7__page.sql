-- The page's columns (pins, titles by hand, last read), SQLite's half; db/postgresql has PostgreSQL's.
-- A fork (an edited message, a regenerated answer) names the conversation it was copied from, and the
-- cache key its requests go under: its root's, so the provider's prompt cache keeps serving the shared prefix.
ALTER TABLE conversations ADD COLUMN forked_from TEXT;
ALTER TABLE conversations ADD COLUMN cache_key TEXT;

-- Search over message text: an FTS5 index on entries.content (external content: the text is not stored twice),
-- kept by triggers; entries are only inserted, and deleted with their conversation.
CREATE VIRTUAL TABLE entries_search USING fts5(content, content='entries', content_rowid='rowid',
    tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER entries_search_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entries_search (rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER entries_search_delete AFTER DELETE ON entries BEGIN
    INSERT INTO entries_search (entries_search, rowid, content) VALUES ('delete', old.rowid, old.content);
END;
INSERT INTO entries_search (entries_search) VALUES ('rebuild');
