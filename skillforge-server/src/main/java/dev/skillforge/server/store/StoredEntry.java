package dev.skillforge.server.store;

/**
 * A transcript entry as stored: written once, never updated. {@code seq} orders the entries of a
 * conversation (0, 1, 2, …); {@code turn} is the turn it belongs to. {@code kind} is {@code user},
 * {@code assistant}, {@code tool} or {@code context} (a context cut: its note, with replay format
 * {@code keep-from} and the seq of the first entry the model still sees as replay data); otherwise
 * the replay columns hold provider-native pieces (docs/design.md, rule 6) or are both {@code null}.
 */
public record StoredEntry(String conversationId, int seq, int turn, String kind, String content,
                          String replayFormat, String replayData, long createdAtMillis) {
}
