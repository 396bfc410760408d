package dev.skillforge.core.agent;

/**
 * What a run tells its client, in order (docs/design.md, section 4). Every event carries the 0-based
 * iteration it belongs to; {@link #type()} is the wire name.
 */
public sealed interface AgentEvent {

    int iteration();

    String type();

    /** A chunk of the model's visible text, as streamed. */
    record Text(int iteration, String content) implements AgentEvent {
        public String type() { return "text"; }
    }

    /** A chunk of the model's reasoning (thinking), as streamed. */
    record Reasoning(int iteration, String content) implements AgentEvent {
        public String type() { return "reasoning"; }
    }

    /** A complete {@code <shell>} tag was read; the command is queued. */
    record ToolCall(int iteration, String commandId, String command) implements AgentEvent {
        public String type() { return "tool-call"; }
    }

    /** The command started running. */
    record ToolStart(int iteration, String commandId, String command) implements AgentEvent {
        public String type() { return "tool-start"; }
    }

    /** The command finished; {@code result} is complete up to the UI cap. */
    record ToolResult(int iteration, String commandId, String command, String result, int exitCode) implements AgentEvent {
        public String type() { return "tool-result"; }
    }

    /** The model's whole output of this iteration, exactly as stored in the transcript. */
    record RawContent(int iteration, String rawContent) implements AgentEvent {
        public String type() { return "raw-content"; }
    }

    /** The tool entry appended after this iteration, exactly as stored (without a provider prefix). */
    record ToolOutput(int iteration, String toolOutput) implements AgentEvent {
        public String type() { return "tool-output"; }
    }

    /** A source the provider grounded its answer on. */
    record Source(int iteration, String url, String title) implements AgentEvent {
        public String type() { return "source"; }
    }

    /**
     * The conversation outgrew the model's context window: from this call on the model sees {@code note}
     * in place of the transcript's entries before index {@code keptFrom} (they stay stored and shown).
     */
    record ContextCut(int iteration, int keptFrom, String note) implements AgentEvent {
        public String type() { return "context-cut"; }
    }

    /**
     * Token usage of one model call, with the model that answered and why it ended when the provider said
     * ({@code null} otherwise; for traces, not sent to clients).
     */
    record UsageReport(int iteration, Usage usage, String responseModel, String finishReason) implements AgentEvent {
        public UsageReport(int iteration, Usage usage) {
            this(iteration, usage, null, null);
        }

        public String type() { return "usage"; }
    }

    /**
     * The iteration ended; {@code hasMoreCommands} is true when its commands ran, so the model is
     * asked again with their output (unless the iteration limit ends the run: {@link Done} follows).
     */
    record IterationEnd(int iteration, boolean hasMoreCommands) implements AgentEvent {
        public String type() { return "iteration-end"; }
    }

    /** The run ended normally or by a stop; totals over all iterations. */
    record Done(int iteration, StopReason stopReason, int iterations, int commands, Usage totals) implements AgentEvent {
        public String type() { return "done"; }
    }

    /** The run failed; nothing follows. */
    record Error(int iteration, String message, String code) implements AgentEvent {
        public String type() { return "error"; }
    }
}
