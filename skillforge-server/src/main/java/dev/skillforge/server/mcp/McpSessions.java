package dev.skillforge.server.mcp;

import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The open sessions of the Streamable HTTP transport, counted so that they stay bounded: at most {@link #max} at once
 * (a new {@code initialize} is refused while that many are open), each ended by its client's {@code DELETE} or by the
 * SDK's sweeper once idle: a session that had no request between two sweeps {@link #SWEEP} apart, and has no stream
 * open, is closed, so an idle session lives between one and two sweeps. What each keeps of its client is bounded too
 * ({@link ClientDescription}).
 */
final class McpSessions {

    static final int MAX_SESSIONS = 1000;
    static final Duration SWEEP = Duration.ofMinutes(5);

    private final int max;
    private final Set<String> open = ConcurrentHashMap.newKeySet();

    McpSessions(int max) {
        this.max = max;
    }

    int max() {
        return max;
    }

    /** Whether a new session must wait for one to end (two {@code initialize} at the same moment may both pass). */
    boolean full() {
        return open.size() >= max;
    }

    /** Counts session {@code id} as open; the answer is its {@code onClose}, which counts it out. */
    Supplier<Mono<Void>> opened(String id) {
        open.add(id);
        return () -> Mono.fromRunnable(() -> open.remove(id));
    }
}
