package dev.skillforge.core.agent;

import dev.skillforge.core.context.ContextView;
import dev.skillforge.core.shell.ShellCommand;
import dev.skillforge.core.shell.ShellTagScanner;
import dev.skillforge.core.shell.ToolOutputFormat;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.core.transcript.Transcript;

import java.util.ArrayList;
import java.util.List;

/**
 * One user turn of the agent: ask the model, run the {@code <shell>} commands it wrote, append the
 * results as a tool entry, ask again; until an answer has no command, the iteration limit is
 * reached, or the run is cancelled. The {@link TurnLimits} bound what the model can make a turn do:
 * an answer past the size limit fails its call, and commands past the turn's budget are not run.
 *
 * <p>Transcript rules kept here: the assistant output is appended verbatim, exactly as streamed;
 * every assistant entry that holds commands is followed by one tool entry, also on a stop (commands
 * that did not run say so); a failed model call appends nothing of its own, so the transcript stays
 * as it was after the last complete iteration (plus a context cut made before the call, if one was).
 * On a stop during streaming, the text the person already saw is kept as the assistant entry.
 * Text and reasoning events never end inside a surrogate pair ({@link WholeCharacters}).
 */
public final class AgentLoop {

    /** Results in {@code tool-result} events are capped here; the tool entry has its own, smaller cap. */
    public static final int UI_RESULT_CAP = 100_000;
    /** Exit code reported for a command that did not run because the run was stopped (as for SIGINT). */
    public static final int NOT_RUN_EXIT_CODE = 130;
    /** Exit code reported for a command refused before it ran (as a shell reports a command it cannot execute). */
    public static final int REFUSED_EXIT_CODE = 126;
    /** The error code of a model call whose answer passed {@link TurnLimits#maxAnswerChars()}. */
    public static final String ANSWER_TOO_LONG = "answer_too_long";
    static final String NOT_RUN_RESULT = "[not run: the run was stopped]";
    static final String NOT_RUN_AFTER_FAILURE = "[not run: the model call failed]";

    private final ModelProvider provider;
    private final TurnLimits limits;
    private final ContextView context;

    /** A loop that sends the whole transcript on every call (no context window). */
    public AgentLoop(ModelProvider provider, TurnLimits limits) {
        this(provider, limits, ContextView.WHOLE);
    }

    /** @param context what the model is sent of the transcript on each call ({@link dev.skillforge.core.context.ContextWindow}) */
    public AgentLoop(ModelProvider provider, TurnLimits limits, ContextView context) {
        this.provider = provider;
        this.limits = limits;
        this.context = context;
    }

    /** The result of a command not run because the turn already ran {@code budget} commands. */
    static String notRunOverBudget(int budget) {
        return "[not run: the per-turn command budget of " + budget + " is spent; answer with what you have,"
                + " and the person can ask you to go on in a new message]";
    }

    /**
     * Runs one turn. The transcript must end with the user's new message; the loop appends to it.
     *
     * @param commands runs this turn's commands (where they run, and as whom, is the caller's: one conversation's)
     * @return the last event sent: {@link AgentEvent.Done} or {@link AgentEvent.Error}
     */
    public AgentEvent run(Transcript transcript, String systemPrompt, String cacheKey, CommandRunner commands, EventSink sink,
                          Cancellation cancellation) {
        if (!(transcript.last() instanceof Entry.User)) {
            throw new IllegalArgumentException("a turn starts after a user entry");
        }
        Turn turn = new Turn(transcript, systemPrompt, cacheKey, commands, sink, cancellation);
        return turn.run();
    }

    /** The state of one run, so the loop reads as the steps of docs/design.md, section 2. */
    private final class Turn {
        private final Transcript transcript;
        private final String systemPrompt;
        private final String cacheKey;
        private final CommandRunner runner;
        private final EventSink sink;
        private final Cancellation cancellation;
        private Usage totals = Usage.UNKNOWN;
        private int commandsRun;

        Turn(Transcript transcript, String systemPrompt, String cacheKey, CommandRunner runner, EventSink sink, Cancellation cancellation) {
            this.transcript = transcript;
            this.systemPrompt = systemPrompt;
            this.cacheKey = cacheKey;
            this.runner = runner;
            this.sink = sink;
            this.cancellation = cancellation;
        }

        AgentEvent run() {
            int maxIterations = limits.maxIterations();
            for (int iteration = 0; iteration < maxIterations; iteration++) {
                if (cancellation.isCancelled()) {
                    return done(Math.max(0, iteration - 1), StopReason.CANCELLED, iteration);
                }
                IterationOutput output = new IterationOutput(iteration);
                ModelReply reply;
                try {
                    reply = provider.stream(new ModelCall(systemPrompt, view(iteration), cacheKey, iteration), output, cancellation);
                } catch (ProviderException | RuntimeException e) {
                    if (cancellation.isCancelled()) {
                        output.finish();
                        if (!output.text.isEmpty()) {
                            appendAssistant(iteration, output, null);
                            appendToolEntry(iteration, output.commands, List.of());
                        }
                        sink.accept(new AgentEvent.IterationEnd(iteration, false));
                        return done(iteration, StopReason.CANCELLED, iteration + 1);
                    }
                    // Nothing the failed call produced is stored (a context cut made for it stays); the commands it announced are closed so no client waits on them.
                    for (ShellCommand announced : output.commands) {
                        sink.accept(new AgentEvent.ToolResult(iteration, announced.id(), announced.command(), NOT_RUN_AFTER_FAILURE, NOT_RUN_EXIT_CODE));
                    }
                    return emit(e instanceof ProviderException failure
                            ? new AgentEvent.Error(iteration, failure.getMessage(), failure.code())
                            : new AgentEvent.Error(iteration, "The model provider failed unexpectedly (" + e.getClass().getSimpleName() + ")", "provider_failure"));
                }
                output.finish();
                appendAssistant(iteration, output, reply);
                if (output.commands.isEmpty()) {
                    sink.accept(new AgentEvent.IterationEnd(iteration, false));
                    return done(iteration, cancellation.isCancelled() ? StopReason.CANCELLED : StopReason.COMPLETE, iteration + 1);
                }
                List<ToolOutputFormat.Executed> executed = runCommands(iteration, output.commands);
                appendToolEntry(iteration, output.commands, executed);
                if (cancellation.isCancelled()) {
                    sink.accept(new AgentEvent.IterationEnd(iteration, false));
                    return done(iteration, StopReason.CANCELLED, iteration + 1);
                }
                sink.accept(new AgentEvent.IterationEnd(iteration, true));
            }
            return done(maxIterations - 1, StopReason.MAX_ITERATIONS, maxIterations);
        }

        /** What the model is sent next; a context cut made for it is reported. */
        private List<Entry> view(int iteration) {
            int before = transcript.size();
            List<Entry> view = context.prepare(transcript, systemPrompt);
            if (transcript.size() > before && transcript.last() instanceof Entry.ContextCut cut) {
                sink.accept(new AgentEvent.ContextCut(iteration, cut.keepFrom(), cut.content()));
            }
            return view;
        }

        private void appendAssistant(int iteration, IterationOutput output, ModelReply reply) {
            String content = StorableText.clean(output.text.toString()); // what is sent next is what is stored
            transcript.append(new Entry.Assistant(content, reply == null ? null : reply.replay()));
            sink.accept(new AgentEvent.RawContent(iteration, content));
            if (reply != null) {
                totals = totals.plus(reply.usage());
                sink.accept(new AgentEvent.UsageReport(iteration, reply.usage(), reply.responseModel(), reply.finishReason()));
            }
        }

        /** Runs the commands in order until a stop; those past the turn's budget are reported as not run. */
        private List<ToolOutputFormat.Executed> runCommands(int iteration, List<ShellCommand> commands) {
            List<ToolOutputFormat.Executed> executed = new ArrayList<>();
            for (ShellCommand command : commands) {
                if (cancellation.isCancelled()) {
                    break;
                }
                if (commandsRun >= limits.maxCommands()) {
                    String notRun = notRunOverBudget(limits.maxCommands());
                    executed.add(new ToolOutputFormat.Executed(command.command(), notRun));
                    sink.accept(new AgentEvent.ToolResult(iteration, command.id(), command.command(), notRun, REFUSED_EXIT_CODE));
                    continue;
                }
                sink.accept(new AgentEvent.ToolStart(iteration, command.id(), command.command()));
                CommandResult result = runSafely(command);
                commandsRun++;
                executed.add(new ToolOutputFormat.Executed(command.command(), result.output()));
                result.sources().forEach(source -> sink.accept(new AgentEvent.Source(iteration, source.url(), source.title())));
                sink.accept(new AgentEvent.ToolResult(iteration, command.id(), command.command(),
                        ToolOutputFormat.truncate(result.output(), UI_RESULT_CAP), result.exitCode()));
            }
            return executed;
        }

        private CommandResult runSafely(ShellCommand command) {
            try {
                return runner.run(command, cancellation);
            } catch (RuntimeException e) {
                return CommandResult.failed("error: the command failed inside the server (" + e.getClass().getSimpleName() + ")", 1);
            }
        }

        /** Appends the tool entry for {@code commands}; those without a result (stopped before running) say so. */
        private void appendToolEntry(int iteration, List<ShellCommand> commands, List<ToolOutputFormat.Executed> executed) {
            if (commands.isEmpty()) {
                return;
            }
            List<ToolOutputFormat.Executed> all = new ArrayList<>(executed);
            for (ShellCommand notRun : commands.subList(executed.size(), commands.size())) {
                all.add(new ToolOutputFormat.Executed(notRun.command(), NOT_RUN_RESULT));
                sink.accept(new AgentEvent.ToolResult(iteration, notRun.id(), notRun.command(), NOT_RUN_RESULT, NOT_RUN_EXIT_CODE));
            }
            String toolOutput = StorableText.clean(ToolOutputFormat.format(all));
            transcript.append(new Entry.Tool(toolOutput));
            sink.accept(new AgentEvent.ToolOutput(iteration, toolOutput));
        }

        private AgentEvent done(int iteration, StopReason reason, int iterations) {
            return emit(new AgentEvent.Done(iteration, reason, iterations, commandsRun, totals));
        }

        private AgentEvent emit(AgentEvent event) {
            sink.accept(event);
            return event;
        }

        /**
         * Collects one model call's output as it streams and reports it, finding commands on the way;
         * fails the call once the answer passes the size limit.
         */
        private final class IterationOutput implements ModelStreamListener {
            private final int iteration;
            private final StringBuilder text = new StringBuilder();
            private final WholeCharacters textCharacters = new WholeCharacters();
            private final WholeCharacters reasoningCharacters = new WholeCharacters();
            private final ShellTagScanner scanner = new ShellTagScanner();
            private final List<ShellCommand> commands = new ArrayList<>();
            private long answerChars;

            IterationOutput(int iteration) {
                this.iteration = iteration;
            }

            @Override
            public void onText(String chunk) throws ProviderException {
                count(chunk);
                emitText(textCharacters.next(chunk));
            }

            @Override
            public void onReasoning(String chunk) throws ProviderException {
                count(chunk);
                emitReasoning(reasoningCharacters.next(chunk));
            }

            /** The stream ended: gives out what was held back (half a surrogate pair that never got its other half). */
            void finish() {
                emitText(textCharacters.rest());
                emitReasoning(reasoningCharacters.rest());
            }

            private void count(String chunk) throws ProviderException {
                answerChars += chunk.length();
                if (answerChars > limits.maxAnswerChars()) {
                    throw new ProviderException(ANSWER_TOO_LONG, "The model's answer passed " + limits.maxAnswerChars()
                            + " characters, the most this server takes from one answer: it was stopped there and is not kept");
                }
            }

            private void emitText(String whole) {
                if (whole.isEmpty()) {
                    return;
                }
                text.append(whole);
                sink.accept(new AgentEvent.Text(iteration, whole));
                for (String command : scanner.feed(whole)) {
                    ShellCommand found = ShellCommand.of(iteration, commands.size(), command);
                    commands.add(found);
                    sink.accept(new AgentEvent.ToolCall(iteration, found.id(), found.command()));
                }
            }

            private void emitReasoning(String whole) {
                if (!whole.isEmpty()) {
                    sink.accept(new AgentEvent.Reasoning(iteration, whole));
                }
            }

            @Override
            public void onSource(String url, String title) {
                sink.accept(new AgentEvent.Source(iteration, url, title));
            }
        }
    }
}
