-- Branches (issue 28): an edited message or a regenerated answer is a fork, shown as a version of that message inside
-- one conversation of the list. Portable SQL, like the others.
-- thread_id: the conversation every branch of a thread was forked from at first (a conversation nobody forked: its own id).
-- forked_at_turn: the first turn a fork has of its own (the turns before it are copies of forked_from's).
-- selected_at: when the branch was last shown (made, switched to, or given a turn): the list shows each thread by the
-- branch selected last, so a time rather than a flag needs no write to the other branches.
ALTER TABLE conversations ADD COLUMN thread_id TEXT;
ALTER TABLE conversations ADD COLUMN forked_at_turn INTEGER;
ALTER TABLE conversations ADD COLUMN selected_at BIGINT;

-- The forks made before this version: a fork's cache key is ROOT/ID, its root the thread; its own turns began after it
-- was made, so the turns started before that are the copied ones.
UPDATE conversations SET thread_id = CASE WHEN cache_key IS NULL THEN id
    ELSE substr(cache_key, 1, length(cache_key) - length(id) - 1) END;
UPDATE conversations SET forked_at_turn = (SELECT COUNT(*) FROM turns t
    WHERE t.conversation_id = conversations.id AND t.started_at < conversations.created_at)
    WHERE forked_from IS NOT NULL;
UPDATE conversations SET selected_at = updated_at;

CREATE INDEX conversations_by_thread ON conversations (owner, thread_id);
