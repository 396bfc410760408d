package dev.skillforge.server.cache;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ModelStreamListener;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.cache.CacheRule;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The prompt-cache invariant, checked at run time (docs/design.md, section 1): request N+1's serialised
 * prompt starts with request N's. Before each call of a conversation it serialises the messages exactly as the
 * provider will send them ({@code nextRequestMessages}) and checks that they start with the messages
 * of the last request sent for the same cache key (the conversation); then it remembers the new
 * request. A request that does not is a <em>cache break</em>: logged at WARN with the conversation,
 * the first differing message index and the character offset in that message's serialised JSON,
 * counted, and, in strict mode (the tests), the call fails with {@code cache_break}.
 *
 * <p>Only for conversation loops: the stateless {@code /api/agent} loop's cache key is a hash of the
 * first message, which unrelated conversations may share.
 *
 * <p>Memory: per conversation (at most {@link #MAX_CONVERSATIONS}, least recently used forgotten) a
 * 16-byte digest per message and the previous call itself (references to the transcript's entries,
 * which are immutable), from which the old message is serialised again only to report a break.
 * A conversation the guard forgot (evicted, or a restart) starts over without a check. A request whose
 * view starts with a different {@link Entry.ContextCut} than the previous one is a context cut, not a
 * break (only the system prompt before it must be the same): logged at INFO.
 */
public final class PrefixGuard implements ModelProvider {

    /** Set to {@code true} (the test suite does) and a cache break fails the call instead of only being logged. */
    public static final String STRICT_PROPERTY = "skillforge.cache.strict";
    public static final int MAX_CONVERSATIONS = 1000;
    public static final String CACHE_BREAK_CODE = "cache_break";

    private static final Logger log = LoggerFactory.getLogger(PrefixGuard.class);
    private static final int EXCERPT = 32;

    /**
     * A cache break: request {@code request} (1-based, per conversation as the guard saw them) of
     * {@code conversation} differs from the previous one at message {@code messageIndex} (0-based, in
     * the provider's serialised messages: for OpenAI's format the system message is 0), character
     * {@code charOffset} of that message's JSON.
     */
    public record Break(String conversation, String provider, String model, long request, int messageIndex, int charOffset,
                        int previousMessages, int messages) {
    }

    /** What the guard found for one request, before it was sent. */
    public enum Verdict {
        /** The first request the guard saw for the conversation (nothing to compare). */
        FIRST,
        /** It starts with the previous request: the cached prefix holds. */
        PREFIX,
        /** A context cut: a new cached prefix starts, by design. */
        CONTEXT_CUT,
        /** A cache break. */
        BREAK
    }

    /** Told of every cache break the guard finds (the metrics), and of every verdict (the traces). */
    @FunctionalInterface
    public interface Observer {
        void cacheBreak(Break found);

        /** The verdict on a request of {@code conversation}; {@code found} is the break, or {@code null}. By default nothing. */
        default void verdict(String conversation, Verdict verdict, Break found) {
        }
    }

    private record Sent(ModelCall call, byte[][] digests, long request, Long promptTokens) {
    }

    private final ModelProvider delegate;
    private final String provider;
    private final String model;
    private final Function<ModelCall, JsonNode> serialiser;
    private final CacheRule rule;
    private final boolean strict;
    private final Observer observer;
    private final Map<String, Sent> sent = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Sent> eldest) {
            return size() > MAX_CONVERSATIONS;
        }
    };

    /**
     * @param serialiser the provider's {@code nextRequestMessages}: the part of the request that only grows
     * @param rule       the provider's cache rule when known (the simulated provider's), for the possible
     *                   share in the debug line; {@code null} when unknown
     * @param strict     a break fails the call ({@link ProviderException} {@value #CACHE_BREAK_CODE})
     * @param observer   told of every break and context cut (the metrics)
     */
    public PrefixGuard(ModelProvider delegate, String provider, String model, Function<ModelCall, JsonNode> serialiser,
                       CacheRule rule, boolean strict, Observer observer) {
        this.delegate = delegate;
        this.provider = provider;
        this.model = model;
        this.serialiser = serialiser;
        this.rule = rule;
        this.strict = strict;
        this.observer = observer;
    }

    /** Whether the JVM asks for strict guards ({@value #STRICT_PROPERTY}). */
    public static boolean strictByProperty() {
        return Boolean.getBoolean(STRICT_PROPERTY);
    }

    /**
     * Takes {@code prefix} as the request its key sent last, when the key has sent none: a fork's first
     * request is then checked as a byte-exact extension of the prefix it shares with the conversation it
     * was copied from, as every later request is of the one before.
     */
    public void expect(ModelCall prefix) {
        List<String> messages = messagesOf(serialiser.apply(prefix));
        byte[][] digests = digests(messages);
        synchronized (sent) {
            sent.putIfAbsent(prefix.cacheKey(), new Sent(prefix, digests, 0, null));
        }
    }

    @Override
    public ModelReply stream(ModelCall call, ModelStreamListener listener, Cancellation cancellation) throws ProviderException {
        List<String> messages = messagesOf(serialiser.apply(call));
        byte[][] digests = digests(messages);
        Sent previous;
        long request;
        synchronized (sent) {
            previous = sent.get(call.cacheKey());
            request = previous == null ? 1 : previous.request() + 1;
            sent.put(call.cacheKey(), new Sent(call, digests, request, null));
        }
        Entry.ContextCut note = cutOf(call);
        // Only a view that starts with a new cut is one; a view that lost its cut is a break like any other.
        boolean cut = previous != null && note != null && !note.equals(cutOf(previous.call()));
        if (cut) {
            // The conversation outgrew the context window and its view starts over after a note: by design, not a break.
            log.info("Context cut in conversation {} ({} {}): request {} leaves out entries before {} and starts a new cached prefix",
                    call.cacheKey(), provider, model, request, note.keepFrom());
        }
        if (previous == null) {
            observer.verdict(call.cacheKey(), Verdict.FIRST, null);
        } else {
            // After a cut only what comes before the entries (the system prompt, message 0) must still be the same.
            Break found = compare(call.cacheKey(), request, previous, messages, digests, cut ? 1 : Integer.MAX_VALUE);
            observer.verdict(call.cacheKey(), found != null ? Verdict.BREAK : cut ? Verdict.CONTEXT_CUT : Verdict.PREFIX, found);
            if (found != null) {
                observer.cacheBreak(found);
                if (strict) {
                    throw new ProviderException(CACHE_BREAK_CODE, "Cache break in conversation " + found.conversation()
                            + ": request " + found.request() + " does not start with the previous one (message "
                            + found.messageIndex() + ", character " + found.charOffset() + ")");
                }
            }
        }
        ModelReply reply = delegate.stream(call, listener, cancellation);
        Long promptTokens = reply.usage().inputTokens();
        synchronized (sent) {
            Sent mine = sent.get(call.cacheKey());
            if (mine != null && mine.request() == request) {
                sent.put(call.cacheKey(), new Sent(call, digests, request, promptTokens));
            }
        }
        Long possible = null;
        if (rule != null && promptTokens != null) {
            // Requests of a conversation only grow, so all of the previous prompt is a prefix the provider may have cached.
            long previousTokens = previous == null || previous.promptTokens() == null ? 0 : previous.promptTokens();
            possible = cut || (previous != null && previous.promptTokens() == null) ? null
                    : rule.cachedTokens((int) Math.min(previousTokens, promptTokens), (int) (long) promptTokens);
        }
        CacheDebug.log(call, provider, model, reply.usage(), possible);
        return reply;
    }

    /**
     * The first difference of {@code messages} from the previous request's, or {@code null} when they
     * start with them; only the first {@code checked} messages are compared.
     */
    private Break compare(String key, long request, Sent previous, List<String> messages, byte[][] digests, int checked) {
        byte[][] old = previous.digests();
        int common = Math.min(checked, Math.min(old.length, digests.length));
        int index = -1;
        for (int i = 0; i < common; i++) {
            if (!Arrays.equals(old[i], digests[i])) {
                index = i;
                break;
            }
        }
        if (index < 0 && (digests.length >= old.length || common == checked)) {
            return null;
        }
        int offset = 0;
        String was = "";
        String now = "";
        if (index < 0) {
            index = digests.length; // the new request lost messages at its end
        } else {
            List<String> before = messagesOf(serialiser.apply(previous.call()));
            was = index < before.size() ? before.get(index) : "";
            now = messages.get(index);
            int mismatch = mismatch(was, now);
            offset = mismatch < 0 ? Math.min(was.length(), now.length()) : mismatch;
        }
        Break found = new Break(key, provider, model, request, index, offset, old.length, digests.length);
        log.warn("Cache break in conversation {} ({} {}): request {} ({} messages) does not start with request {} ({} messages):"
                        + " first difference at message {}, character {}: was \"{}\", now \"{}\"",
                key, provider, model, request, digests.length, previous.request(), old.length, index, offset,
                excerpt(was, offset), excerpt(now, offset));
        return found;
    }

    /** The context cut a call's view starts with, or {@code null}. */
    private static Entry.ContextCut cutOf(ModelCall call) {
        return !call.entries().isEmpty() && call.entries().getFirst() instanceof Entry.ContextCut cut ? cut : null;
    }

    /** The messages of a serialised request: an array's elements; for an object, each field's (an array's elements, or the field). */
    private static byte[][] digests(List<String> messages) {
        byte[][] digests = new byte[messages.size()][];
        for (int i = 0; i < digests.length; i++) {
            digests[i] = digest(messages.get(i));
        }
        return digests;
    }

    static List<String> messagesOf(JsonNode serialised) {
        List<String> out = new ArrayList<>();
        if (serialised == null) {
            return out;
        }
        if (serialised.isArray()) {
            serialised.forEach(node -> out.add(Json.write(node)));
            return out;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = serialised.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            if (field.getValue().isArray()) {
                field.getValue().forEach(node -> out.add(Json.write(node)));
            } else {
                out.add("\"" + field.getKey() + "\":" + Json.write(field.getValue()));
            }
        }
        return out;
    }

    private static int mismatch(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            if (a.charAt(i) != b.charAt(i)) {
                return i;
            }
        }
        return a.length() == b.length() ? -1 : n;
    }

    private static String excerpt(String text, int offset) {
        int from = Math.max(0, offset - EXCERPT / 2);
        int to = Math.min(text.length(), offset + EXCERPT / 2);
        return from >= to ? "" : text.substring(from, to).replace("\n", "\\n");
    }

    private static byte[] digest(String message) {
        try {
            return Arrays.copyOf(MessageDigest.getInstance("SHA-256").digest(message.getBytes(StandardCharsets.UTF_8)), 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
