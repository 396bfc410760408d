package dev.skillforge.server.mcp;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tool calls that can be cancelled now, by session and JSON-RPC request id: what a client's
 * {@code notifications/cancelled} names. Two clients may use the same request ids, so the session
 * is part of the key.
 */
final class RunningCalls {

    private record Key(String session, String request) {
    }

    private final Map<Key, Runnable> cancels = new ConcurrentHashMap<>();

    /** Makes {@code cancel} what a cancellation of this request does, until the returned registration is closed. */
    ToolCall.Registration register(String session, Object requestId, Runnable cancel) {
        Key key = new Key(session, idText(requestId));
        cancels.put(key, cancel);
        return () -> cancels.remove(key, cancel);
    }

    /** Cancels the request if it is running; false when it is not (finished, never seen: the spec lets a receiver ignore it). */
    boolean cancel(String session, Object requestId) {
        Runnable cancel = cancels.remove(new Key(session, idText(requestId)));
        if (cancel == null) {
            return false;
        }
        cancel.run();
        return true;
    }

    /** Cancels every running call (the server is stopping). */
    void cancelAll() {
        cancels.keySet().forEach(key -> {
            Runnable cancel = cancels.remove(key);
            if (cancel != null) {
                cancel.run();
            }
        });
    }

    /** JSON-RPC ids are strings or numbers; a number arrives as Integer or Long depending on its size, so numbers compare by value. */
    private static String idText(Object id) {
        return id instanceof Number n ? "n:" + n.longValue() : "s:" + id;
    }
}
