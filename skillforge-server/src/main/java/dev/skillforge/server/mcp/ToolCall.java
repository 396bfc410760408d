package dev.skillforge.server.mcp;

import dev.skillforge.server.people.Caller;

import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One call of a tool as the tool sees it: who it acts for, its arguments, progress reports to the caller (sent only
 * when the client asked for them with a progress token), and what a cancellation of the request does.
 */
final class ToolCall {

    private final Caller caller;
    private final ToolArguments arguments;
    private final Consumer<String> progress;
    private final Function<Runnable, Registration> cancellation;

    /**
     * @param progress     sends one progress notification with this message (a no-op without a progress token)
     * @param cancellation registers what a {@code notifications/cancelled} for this request does, until closed
     */
    ToolCall(Caller caller, ToolArguments arguments, Consumer<String> progress, Function<Runnable, Registration> cancellation) {
        this.caller = caller;
        this.arguments = arguments;
        this.progress = progress;
        this.cancellation = cancellation;
    }

    /** The person the call acts for: every conversation and skill it touches is theirs. */
    Caller caller() {
        return caller;
    }

    ToolArguments arguments() {
        return arguments;
    }

    /** Tells the client how far the call got; each report counts one step further. */
    void progress(String message) {
        progress.accept(message);
    }

    /** Makes {@code cancel} run when the client cancels this request, until the returned registration is closed. */
    Registration onCancel(Runnable cancel) {
        return cancellation.apply(cancel);
    }

    /** Something registered for the length of a call; closing it takes it back. */
    interface Registration extends AutoCloseable {
        @Override
        void close();
    }
}
