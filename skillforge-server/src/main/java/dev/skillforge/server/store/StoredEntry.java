package dev.skillforge.server.store;

import dev.skillforge.core.transcript.Attachment;

import java.util.List;

/**
 * A transcript entry as stored: written once, never updated. {@code seq} orders the entries of a
 * conversation (0, 1, 2, …); {@code turn} is the turn it belongs to. {@code kind} is {@code user},
 * {@code assistant}, {@code tool} or {@code context} (a context cut: its note, with replay format
 * {@code keep-from} and the seq of the first entry the model still sees as replay data); otherwise
 * the replay columns hold provider-native pieces (docs/design.md, rule 6) or are both {@code null}.
 * A user entry may reference attachments (their files are stored apart, see {@link Write.AppendEntry}).
 */
public record StoredEntry(String conversationId, int seq, int turn, String kind, String content,
                          String replayFormat, String replayData, long createdAtMillis, List<Attachment> attachments) {

    public StoredEntry {
        attachments = attachments == null ? List.of() : List.copyOf(attachments);
    }

    public StoredEntry(String conversationId, int seq, int turn, String kind, String content,
                       String replayFormat, String replayData, long createdAtMillis) {
        this(conversationId, seq, turn, kind, content, replayFormat, replayData, createdAtMillis, List.of());
    }
}
