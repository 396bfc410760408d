-- Search that shows where, SQLite's half; db/postgresql has PostgreSQL's.
-- One full-text index per kind of text a conversation has: its title; its entries' text (messages, answers, command
-- output; not the notes of context cuts, which only repeat them); its documents' names and extracted text. Each
-- indexes the first 100,000 characters of a text, as PostgreSQL's indexes do, so both databases find the same.
-- Contentless (the text is not stored a second time) and keyed by the row's rowid, kept by triggers; a row leaves
-- its index by rowid (contentless_delete). Diacritics count (remove_diacritics 0): PostgreSQL's index, without
-- extensions, cannot set them aside, and "cafe" finds "café" on neither.

DROP TRIGGER entries_search_insert;
DROP TRIGGER entries_search_delete;
DROP TABLE entries_search;

CREATE VIRTUAL TABLE entries_search USING fts5(text, content='', contentless_delete=1,
    tokenize='unicode61 remove_diacritics 0');
CREATE TRIGGER entries_search_insert AFTER INSERT ON entries WHEN new.kind IN ('user', 'assistant', 'tool') BEGIN
    INSERT INTO entries_search (rowid, text) VALUES (new.rowid, substr(new.content, 1, 100000));
END;
CREATE TRIGGER entries_search_delete AFTER DELETE ON entries BEGIN
    DELETE FROM entries_search WHERE rowid = old.rowid;
END;
INSERT INTO entries_search (rowid, text)
    SELECT rowid, substr(content, 1, 100000) FROM entries WHERE kind IN ('user', 'assistant', 'tool');

-- A document's searchable text: its name, then its extracted text without the <document name="…" type="…"> line and
-- closing tag that wrap it for the model (Attachment.wrap; AttachmentText unwraps it the same way in Java).
CREATE VIEW attachment_search_texts AS
SELECT rowid AS id, name || ' ' || CASE WHEN substr(prompt_text, 1, 10) = '<document '
    THEN substr(prompt_text, instr(prompt_text, '>') + 1, min(100000, length(prompt_text) - instr(prompt_text, '>')
        - CASE WHEN substr(prompt_text, -13) = '</document>' || char(10, 10) THEN 13 ELSE 0 END))
    ELSE substr(prompt_text, 1, 100000) END AS text
FROM entry_attachments;

CREATE VIRTUAL TABLE attachments_search USING fts5(text, content='', contentless_delete=1,
    tokenize='unicode61 remove_diacritics 0');
CREATE TRIGGER attachments_search_insert AFTER INSERT ON entry_attachments BEGIN
    INSERT INTO attachments_search (rowid, text) SELECT id, text FROM attachment_search_texts WHERE id = new.rowid;
END;
CREATE TRIGGER attachments_search_delete AFTER DELETE ON entry_attachments BEGIN
    DELETE FROM attachments_search WHERE rowid = old.rowid;
END;
INSERT INTO attachments_search (rowid, text) SELECT id, text FROM attachment_search_texts;

CREATE VIRTUAL TABLE titles_search USING fts5(text, content='', contentless_delete=1,
    tokenize='unicode61 remove_diacritics 0');
CREATE TRIGGER titles_search_insert AFTER INSERT ON conversations WHEN new.title IS NOT NULL BEGIN
    INSERT INTO titles_search (rowid, text) VALUES (new.rowid, new.title);
END;
CREATE TRIGGER titles_search_update AFTER UPDATE OF title ON conversations BEGIN
    DELETE FROM titles_search WHERE rowid = old.rowid;
    INSERT INTO titles_search (rowid, text) SELECT new.rowid, new.title WHERE new.title IS NOT NULL;
END;
CREATE TRIGGER titles_search_delete AFTER DELETE ON conversations BEGIN
    DELETE FROM titles_search WHERE rowid = old.rowid;
END;
INSERT INTO titles_search (rowid, text) SELECT rowid, title FROM conversations WHERE title IS NOT NULL;
