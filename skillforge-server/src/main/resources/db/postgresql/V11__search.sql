-- Search that shows where, PostgreSQL's half; db/sqlite has SQLite's.
-- One full-text index per kind of text a conversation has: its title; its entries' text (messages, answers, command
-- output; not the notes of context cuts, which only repeat them); its documents' names and extracted text. Each
-- indexes the first 100,000 characters of a text (a tsvector holds at most 1 MiB, and a text may be longer), as
-- SQLite's indexes do, so both databases find the same.

-- A text's words as the search sees them (dev.skillforge.server.search.Words): the parser's own kinds of token (an
-- e-mail address, a URL, a file path, a version number: each one lexeme that a word inside it would not find) are
-- taken apart by making punctuation, ASCII's and the common Unicode marks and spaces, into spaces first. No stemming
-- ('simple'), as SQLite's unicode61. IMMUTABLE, so indexes may use it; the queries call it as the indexes do.
CREATE FUNCTION search_words(text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT to_tsvector('simple'::regconfig, translate($1, '!"#$%&''()*+,-./:;<=>?@[\]^_`{|}~ ¡§«¶·»¿‐‑‒–—―‘’‚“”„•…′″‹›           ​ 　、。「」，．', repeat(' ', char_length('!"#$%&''()*+,-./:;<=>?@[\]^_`{|}~ ¡§«¶·»¿‐‑‒–—―‘’‚“”„•…′″‹›           ​ 　、。「」，．'))))
$fn$;

-- A document's searchable text: its name, then its extracted text without the <document name="…" type="…"> line and
-- closing tag that wrap it for the model (Attachment.wrap; AttachmentText unwraps it the same way in Java).
CREATE FUNCTION attachment_search_text(name text, prompt_text text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT $1 || ' ' || CASE WHEN left($2, 10) = '<document '
        THEN substr($2, strpos($2, '>') + 1, least(100000, char_length($2) - strpos($2, '>')
            - CASE WHEN right($2, 13) = E'</document>\n\n' THEN 13 ELSE 0 END))
        ELSE left($2, 100000) END
$fn$;

DROP INDEX entries_search;
CREATE INDEX entries_search ON entries USING GIN (search_words(left(content, 100000)))
    WHERE kind IN ('user', 'assistant', 'tool');
CREATE INDEX entry_attachments_search ON entry_attachments USING GIN (search_words(attachment_search_text(name, prompt_text)));
CREATE INDEX conversations_title_search ON conversations USING GIN (search_words(coalesce(title, '')));
