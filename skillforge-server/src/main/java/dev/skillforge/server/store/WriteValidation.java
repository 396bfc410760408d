package dev.skillforge.server.store;

import dev.skillforge.core.transcript.StorableText;

import java.util.List;

/**
 * Refuses, before any SQL, writes that could not be stored as given: a write or record missing,
 * no conversation id, or text a database would change (a NUL character: PostgreSQL cannot hold
 * it in text; an unpaired surrogate: neither database can encode it in UTF-8, and the driver
 * would silently write '?'). Both databases then refuse the same writes, the same way.
 */
final class WriteValidation {

    private WriteValidation() {
    }

    /** @throws StoreRejectedException naming the first bad write (never its text) */
    static void requireStorable(List<Write> batch) {
        for (int i = 0; i < batch.size(); i++) {
            Write write = batch.get(i);
            if (write == null) {
                throw rejected("Write " + i + " of the batch is null");
            }
            switch (write) {
                case Write.CreateConversation create -> {
                    ConversationRecord c = create.conversation();
                    requireRecord(c, write, i);
                    requireId(c.id(), write, i);
                    requireText(write, "title", c.title());
                    requireText(write, "system prompt", c.systemPrompt());
                    requireText(write, "provider", c.provider());
                    requireText(write, "model", c.model());
                }
                case Write.AppendEntry append -> {
                    StoredEntry e = append.entry();
                    requireRecord(e, write, i);
                    requireId(e.conversationId(), write, i);
                    requireText(write, "kind", e.kind());
                    requireText(write, "content", e.content());
                    requireText(write, "replay format", e.replayFormat());
                    requireText(write, "replay data", e.replayData());
                    for (var attachment : e.attachments()) {
                        requireText(write, "attachment name", attachment.name());
                        requireText(write, "attachment type", attachment.mediaType());
                        requireText(write, "attachment text", attachment.promptText());
                    }
                }
                case Write.PutTurn put -> {
                    TurnRecord t = put.turn();
                    requireRecord(t, write, i);
                    requireId(t.conversationId(), write, i);
                    requireText(write, "status", t.status());
                    requireText(write, "summary", t.summaryJson());
                }
                case Write.SetTitle setTitle -> {
                    requireId(setTitle.conversationId(), write, i);
                    requireText(write, "title", setTitle.title());
                }
                case Write.SelectBranch select -> requireId(select.conversationId(), write, i);
                case Write.DeleteConversation delete -> requireId(delete.conversationId(), write, i);
            }
            requireText(write, "conversation id", write.conversationId());
        }
    }

    private static void requireRecord(Object record, Write write, int index) {
        if (record == null) {
            throw rejected("Write " + index + " of the batch (" + write.getClass().getSimpleName() + ") holds no record");
        }
    }

    private static void requireId(String id, Write write, int index) {
        if (id == null) {
            throw rejected("Write " + index + " of the batch (" + write.getClass().getSimpleName()
                    + ") has no conversation id");
        }
    }

    private static void requireText(Write write, String field, String text) {
        int bad = firstUnstorableChar(text);
        if (bad >= 0) {
            throw rejected(describe(write) + ": its " + field + " holds " + String.format("U+%04X", (int) text.charAt(bad))
                    + " at index " + bad + ", which the database cannot store verbatim");
        }
    }

    /** The index of the first NUL or unpaired surrogate in {@code text}, or -1 ({@code null} is fine). */
    static int firstUnstorableChar(String text) {
        return text == null ? -1 : StorableText.firstBad(text);
    }

    private static String describe(Write write) {
        String what = write.getClass().getSimpleName() + " for conversation " + write.conversationId();
        return write instanceof Write.AppendEntry append ? what + " seq " + append.entry().seq() : what;
    }

    private static StoreRejectedException rejected(String message) {
        return new StoreRejectedException(message, null);
    }
}
