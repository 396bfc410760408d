package dev.skillforge.server.store;

/**
 * A transcript entry as stored: written once, never updated. {@code seq} orders the entries of a
 * conversation (0, 1, 2, …); {@code turn} is the turn it belongs to. {@code kind} is {@code user},
 * {@code assistant} or {@code tool}; the replay columns hold provider-native pieces (DESIGN rule 6)
 * or are both {@code null}.
 */
public record StoredEntry(String conversationId, int seq, int turn, String kind, String content,
                          String replayFormat, String replayData, long createdAtMillis) {
}
