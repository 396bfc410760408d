package dev.skillforge.core.context;

import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.core.transcript.Transcript;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * Keeps a conversation inside the model's context window without wrecking its prompt cache. Sliding
 * a window turn by turn would change the start of every request, so every request would miss the
 * cache. Instead the view only grows until the next request would pass {@link #CUT_ABOVE} of the
 * window; then, in one step, a {@link Entry.ContextCut} drops the oldest entries so that what is kept
 * fits in {@link #KEEP_UP_TO} of it. Only that one request misses; the next ones extend it again
 * until the following cut, far away.
 *
 * <p>What is kept: the system prompt (sent beside the entries, never cut), then a note saying what
 * was left out (how much, the person's requests in it, that saved skills are still in the skill
 * store), then whole turns from a turn start on; only when the current turn alone is too big does
 * the cut fall inside it, at an iteration start. The skills themselves live on disk, not in the
 * transcript, so no cut loses one.
 *
 * <p>Sizes are estimates ({@code tokens} per text, plus {@link #MESSAGE_OVERHEAD} per message); the
 * gap between the two shares absorbs a tokenizer that counts differently.
 */
public final class ContextWindow implements ContextView {

    /** A request estimated above this share of the window is cut before it is sent. */
    public static final double CUT_ABOVE = 0.80;
    /** A cut keeps the newest entries that fit in this share of the window (the note and system prompt included). */
    public static final double KEEP_UP_TO = 0.40;
    /** Tokens a provider adds per message (role, separators). */
    static final int MESSAGE_OVERHEAD = 4;
    static final int MAX_LISTED_REQUESTS = 20;
    static final int MAX_REQUEST_CHARS = 160;
    public static final int MIN_WINDOW_TOKENS = 1024;

    private final int windowTokens;
    private final ToIntFunction<String> tokens;

    /**
     * @param windowTokens the model's context window in tokens
     * @param tokens       the token count of a text (an estimate is fine)
     */
    public ContextWindow(int windowTokens, ToIntFunction<String> tokens) {
        if (windowTokens < MIN_WINDOW_TOKENS) {
            throw new IllegalArgumentException("a context window must be at least " + MIN_WINDOW_TOKENS + " tokens, was " + windowTokens);
        }
        this.windowTokens = windowTokens;
        this.tokens = tokens;
    }

    public int windowTokens() {
        return windowTokens;
    }

    @Override
    public List<Entry> prepare(Transcript transcript, String systemPrompt) {
        List<Entry> entries = transcript.entries();
        List<Entry> view = ContextView.visible(entries);
        long size = cost(systemPrompt);
        for (Entry entry : view) {
            size += cost(entry);
        }
        if (size <= CUT_ABOVE * windowTokens) {
            return view;
        }
        Entry.ContextCut cut = cut(entries, view, systemPrompt);
        if (cut == null) {
            return view; // nothing more can be left out: the provider will say the request is too long
        }
        transcript.append(cut);
        return ContextView.visible(transcript.entries());
    }

    /**
     * The cut to make: keeping from the first turn start after the current view's start from which the
     * rest, with the note, fits in {@link #KEEP_UP_TO}; failing that, from the first such iteration
     * start in the current turn; failing that, from the latest start there is (as much left out as
     * possible); {@code null} when nothing more can be left out.
     */
    private Entry.ContextCut cut(List<Entry> entries, List<Entry> view, String systemPrompt) {
        int current = view.isEmpty() || !(view.getFirst() instanceof Entry.ContextCut cut) ? 0 : cut.keepFrom();
        long budget = (long) (KEEP_UP_TO * windowTokens) - cost(systemPrompt);
        long[] suffix = new long[entries.size() + 1];
        for (int i = entries.size() - 1; i >= 0; i--) {
            Entry entry = entries.get(i);
            suffix[i] = suffix[i + 1] + (entry instanceof Entry.ContextCut ? 0 : cost(entry));
        }
        int lastUser = -1;
        for (int i = entries.size() - 1; i >= 0 && lastUser < 0; i--) {
            if (entries.get(i) instanceof Entry.User) {
                lastUser = i;
            }
        }
        int latest = -1;
        for (int i = current + 1; i < entries.size(); i++) {
            Entry entry = entries.get(i);
            boolean turnStart = entry instanceof Entry.User;
            boolean iterationStart = entry instanceof Entry.Assistant && i > lastUser;
            if (turnStart || iterationStart) {
                if (suffix[i] <= budget) {
                    // The note's size depends on what it stands in for (the requests it lists): count it as it is.
                    String note = note(entries, i);
                    if (suffix[i] + cost(note) <= budget) {
                        return new Entry.ContextCut(note, i);
                    }
                }
                latest = i;
            }
        }
        return latest < 0 ? null : new Entry.ContextCut(note(entries, latest), latest);
    }

    private int listedRequests() {
        return Math.clamp(windowTokens / 1000, 1, MAX_LISTED_REQUESTS);
    }

    /** The note that stands in for entries {@code 0..keepFrom}: deterministic, so the request bytes are too. */
    String note(List<Entry> entries, int keepFrom) {
        List<String> requests = new ArrayList<>();
        int messages = 0;
        for (Entry entry : entries.subList(0, keepFrom)) {
            if (entry instanceof Entry.ContextCut) {
                continue;
            }
            messages++;
            if (entry instanceof Entry.User user) {
                requests.add(user.content());
            }
        }
        StringBuilder note = new StringBuilder("[Context note] This conversation outgrew the model's context window, so its start"
                + " is left out of what you see here: ").append(messages).append(messages == 1 ? " message" : " messages")
                .append(" from ").append(requests.size()).append(requests.size() == 1 ? " turn" : " turns")
                .append(" (the person can still read them). Skills saved earlier are still in the skill store: `skill list` shows them.");
        // A cut inside the current turn leaves out the request being worked on: that one is given whole.
        boolean insideCurrentTurn = !requests.isEmpty()
                && entries.subList(keepFrom, entries.size()).stream().noneMatch(Entry.User.class::isInstance);
        String current = insideCurrentTurn ? requests.removeLast() : null;
        if (!requests.isEmpty()) {
            int listed = Math.min(requests.size(), listedRequests());
            note.append(" What the person asked in the part left out, oldest first");
            if (listed < requests.size()) {
                note.append(" (the last ").append(listed).append(" of ").append(requests.size()).append(')');
            }
            note.append(':');
            for (String request : requests.subList(requests.size() - listed, requests.size())) {
                note.append("\n- ").append(abbreviate(request));
            }
        }
        if (current != null) {
            note.append(requests.isEmpty() ? "" : "\n").append("\nThe request you are working on, whose first steps are left out too:\n")
                    .append(current);
        }
        return note.toString();
    }

    /**
     * What an entry costs: its text, and the images of a person's message. A message with attachments is counted part
     * by part (each document's text, then the message): the parts are strings the transcript keeps, so a counter that
     * remembers what it counted (the server's does) counts each once, where the joined text would be new on every
     * request.
     */
    private long cost(Entry entry) {
        if (!(entry instanceof Entry.User user) || user.attachments().isEmpty()) {
            return cost(entry.modelText());
        }
        long cost = cost(user.content());
        for (Attachment attachment : user.attachments()) {
            cost += attachment.image() == null ? tokens.applyAsInt(attachment.promptText()) : attachment.image().tokens();
        }
        return cost;
    }

    private long cost(String text) {
        return tokens.applyAsInt(text) + MESSAGE_OVERHEAD;
    }

    private static String abbreviate(String text) {
        return StorableText.abbreviate(text.strip().replaceAll("\\s+", " "), MAX_REQUEST_CHARS);
    }
}
