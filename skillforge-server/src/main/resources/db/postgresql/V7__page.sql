-- The page's columns (pins, titles by hand, last read), PostgreSQL's half; db/sqlite has SQLite's.
-- A fork (an edited message, a regenerated answer) names the conversation it was copied from, and the
-- cache key its requests go under: its root's, so the provider's prompt cache keeps serving the shared prefix.
ALTER TABLE conversations ADD COLUMN forked_from TEXT;
ALTER TABLE conversations ADD COLUMN cache_key TEXT;

-- Search over message text: full-text search on the first 100,000 characters of each entry (a tsvector
-- holds at most 1 MiB, and an entry may be longer), no stemming ('simple'), as SQLite's FTS5 index does.
CREATE INDEX entries_search ON entries USING GIN (to_tsvector('simple', left(content, 100000)));
