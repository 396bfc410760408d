package dev.skillforge.core.agent;

import dev.skillforge.core.context.ContextWindow;
import dev.skillforge.core.shell.ShellCommand;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.core.transcript.Transcript;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.function.BiFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AgentLoopTest {

    private static final String SYSTEM = "You forge skills.";
    private static final String CACHE_KEY = "conv-1";

    private final FakeProvider provider = new FakeProvider();
    private final FakeRunner runner = new FakeRunner();
    private final List<AgentEvent> events = new ArrayList<>();
    private final Cancellation cancellation = new Cancellation();
    private final Transcript transcript = new Transcript(List.of(new Entry.User("What skills do I have?")));

    // ---------------------------------------------------------------- a full turn

    @Test
    void threeIterationTurnEmitsEventsInOrder() {
        scriptThreeIterations();

        AgentEvent last = run(10);

        assertThat(types()).containsExactly(
                // iteration 0: two commands, the tag of the first split across chunks
                "text", "text", "tool-call", "text", "tool-call", "raw-content", "usage",
                "tool-start", "tool-result", "tool-start", "tool-result", "tool-output", "iteration-end",
                // iteration 1: the same command twice
                "text", "tool-call", "text", "text", "tool-call", "raw-content", "usage",
                "tool-start", "tool-result", "tool-start", "tool-result", "tool-output", "iteration-end",
                // iteration 2: no command
                "text", "raw-content", "usage", "iteration-end", "done");
        assertThat(events).extracting(AgentEvent::iteration).containsExactly(
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                2, 2, 2, 2, 2);
        assertThat(of(AgentEvent.IterationEnd.class)).containsExactly(
                new AgentEvent.IterationEnd(0, true), new AgentEvent.IterationEnd(1, true), new AgentEvent.IterationEnd(2, false));
        assertThat(last).isSameAs(events.getLast()).isEqualTo(new AgentEvent.Done(2, StopReason.COMPLETE, 3, 4,
                new Usage(450L, 35L, 230L)));
    }

    @Test
    void threeIterationTurnGivesCommandIdsPerIterationAndIndex() {
        scriptThreeIterations();

        run(10);

        assertThat(of(AgentEvent.ToolCall.class)).containsExactly(
                new AgentEvent.ToolCall(0, "cmd-0-0", "skill list"),
                new AgentEvent.ToolCall(0, "cmd-0-1", "skill get a"),
                new AgentEvent.ToolCall(1, "cmd-1-0", "ls"),
                new AgentEvent.ToolCall(1, "cmd-1-1", "ls"));
        assertThat(runner.ran).containsExactly(
                ShellCommand.of(0, 0, "skill list"), ShellCommand.of(0, 1, "skill get a"),
                ShellCommand.of(1, 0, "ls"), ShellCommand.of(1, 1, "ls"));
        assertThat(of(AgentEvent.ToolResult.class)).containsExactly(
                new AgentEvent.ToolResult(0, "cmd-0-0", "skill list", "result of cmd-0-0", 0),
                new AgentEvent.ToolResult(0, "cmd-0-1", "skill get a", "result of cmd-0-1", 0),
                new AgentEvent.ToolResult(1, "cmd-1-0", "ls", "result of cmd-1-0", 0),
                new AgentEvent.ToolResult(1, "cmd-1-1", "ls", "result of cmd-1-1", 0));
    }

    @Test
    void eachCommandGoesToolCallThenToolStartThenToolResult() {
        scriptThreeIterations();

        run(10);

        for (String id : List.of("cmd-0-0", "cmd-0-1", "cmd-1-0", "cmd-1-1")) {
            assertThat(lifecycleOf(id)).as(id).containsExactly("tool-call", "tool-start", "tool-result");
        }
        // commands run one after the other: a command starts only after the previous one's result
        assertThat(events.stream()
                .filter(e -> e instanceof AgentEvent.ToolStart || e instanceof AgentEvent.ToolResult)
                .map(e -> e.type() + " " + commandIdOf(e))
                .toList()).containsExactly(
                "tool-start cmd-0-0", "tool-result cmd-0-0", "tool-start cmd-0-1", "tool-result cmd-0-1",
                "tool-start cmd-1-0", "tool-result cmd-1-0", "tool-start cmd-1-1", "tool-result cmd-1-1");
    }

    @Test
    void rawContentIsTheConcatenatedTextChunks() {
        scriptThreeIterations();

        run(10);

        assertThat(of(AgentEvent.RawContent.class)).containsExactly(
                new AgentEvent.RawContent(0, ITERATION_0),
                new AgentEvent.RawContent(1, ITERATION_1),
                new AgentEvent.RawContent(2, ITERATION_2));
        for (int iteration = 0; iteration < 3; iteration++) {
            int it = iteration;
            String streamed = of(AgentEvent.Text.class).stream()
                    .filter(t -> t.iteration() == it).map(AgentEvent.Text::content).reduce("", String::concat);
            assertThat(streamed).isEqualTo(of(AgentEvent.RawContent.class).get(iteration).rawContent());
        }
    }

    @Test
    void threeIterationTranscriptIsUserAssistantToolAssistantToolAssistantVerbatim() {
        scriptThreeIterations();

        run(10);

        assertThat(transcript.entries()).containsExactly(
                new Entry.User("What skills do I have?"),
                new Entry.Assistant(ITERATION_0),
                new Entry.Tool("$ skill list\nresult of cmd-0-0\n\n$ skill get a\nresult of cmd-0-1"),
                new Entry.Assistant(ITERATION_1),
                new Entry.Tool("$ ls\nresult of cmd-1-0\n\n$ ls\nresult of cmd-1-1"),
                new Entry.Assistant(ITERATION_2));
        assertThat(of(AgentEvent.ToolOutput.class)).containsExactly(
                new AgentEvent.ToolOutput(0, transcript.entries().get(2).content()),
                new AgentEvent.ToolOutput(1, transcript.entries().get(4).content()));
    }

    @Test
    void eachModelCallStartsWithThePreviousCallFollowedByAssistantAndTool() {
        scriptThreeIterations();

        run(10);

        List<ModelCall> calls = provider.calls;
        List<Entry> all = transcript.entries();
        assertThat(calls).hasSize(3);
        assertThat(calls.getFirst().entries()).containsExactly(new Entry.User("What skills do I have?"));
        for (int i = 1; i < calls.size(); i++) {
            List<Entry> previous = calls.get(i - 1).entries();
            List<Entry> current = calls.get(i).entries();
            assertThat(current).as("call %d", i).hasSize(previous.size() + 2);
            assertThat(current.subList(0, previous.size())).as("call %d prefix", i).isEqualTo(previous);
            assertThat(current.get(previous.size())).isInstanceOf(Entry.Assistant.class);
            assertThat(current.get(previous.size() + 1)).isInstanceOf(Entry.Tool.class);
            assertThat(current).isEqualTo(all.subList(0, current.size()));
        }
        assertThat(calls).extracting(ModelCall::systemPrompt).containsOnly(SYSTEM);
        assertThat(calls).extracting(ModelCall::cacheKey).containsOnly(CACHE_KEY);
    }

    @Test
    void providerReplayIsStoredWithTheAssistantEntry() {
        ProviderReplay replay = new ProviderReplay("openai-reasoning", "{\"reasoning_content\":\"think\"}");
        provider.script(reply("Hello.").replay(replay));

        run(10);

        assertThat(transcript.last()).isEqualTo(new Entry.Assistant("Hello.", replay));
    }

    // ---------------------------------------------------------------- stop rules

    @Test
    void answerWithoutCommandIsDoneCompleteAfterOneIteration() {
        provider.script(reply("You have ", "no skills yet.").usage(new Usage(10L, 4L, 0L)));

        AgentEvent last = run(10);

        assertThat(types()).containsExactly("text", "text", "raw-content", "usage", "iteration-end", "done");
        assertThat(last).isEqualTo(new AgentEvent.Done(0, StopReason.COMPLETE, 1, 0, new Usage(10L, 4L, 0L)));
        assertThat(of(AgentEvent.IterationEnd.class)).containsExactly(new AgentEvent.IterationEnd(0, false));
        assertThat(runner.ran).isEmpty();
        assertThat(transcript.entries()).containsExactly(
                new Entry.User("What skills do I have?"), new Entry.Assistant("You have no skills yet."));
    }

    @Test
    void unclosedTagIsNotRunAndEndsTheTurn() {
        provider.script(reply("Let me check <shell>skill list"));

        AgentEvent last = run(10);

        assertThat(runner.ran).isEmpty();
        assertThat(of(AgentEvent.ToolCall.class)).isEmpty();
        assertThat(last).isEqualTo(new AgentEvent.Done(0, StopReason.COMPLETE, 1, 0, Usage.UNKNOWN));
        assertThat(transcript.last()).isEqualTo(new Entry.Assistant("Let me check <shell>skill list"));
    }

    @Test
    void maxIterationsReachedIsDoneMaxIterations() {
        for (int i = 0; i < 3; i++) {
            provider.script(reply("again <shell>skill list</shell>"));
        }

        AgentEvent last = run(3);

        assertThat(last).isEqualTo(new AgentEvent.Done(2, StopReason.MAX_ITERATIONS, 3, 3, Usage.UNKNOWN));
        assertThat(provider.calls).hasSize(3);
        assertThat(runner.ran).extracting(ShellCommand::id).containsExactly("cmd-0-0", "cmd-1-0", "cmd-2-0");
        assertThat(transcript.entries()).hasSize(7);
        assertThat(transcript.last()).isEqualTo(new Entry.Tool("$ skill list\nresult of cmd-2-0"));
        assertThat(types().getLast()).isEqualTo("done");
    }

    @Test
    void defaultMaxIterationsIsTen() {
        assertThat(TurnLimits.DEFAULT_MAX_ITERATIONS).isEqualTo(10);
        for (int i = 0; i < 10; i++) {
            provider.script(reply("<shell>ls</shell>"));
        }

        AgentEvent last = run(TurnLimits.DEFAULT_MAX_ITERATIONS);

        assertThat(last).isEqualTo(new AgentEvent.Done(9, StopReason.MAX_ITERATIONS, 10, 10, Usage.UNKNOWN));
    }

    @Test
    void maxIterationsBelowOneIsRejected() {
        assertThatThrownBy(() -> TurnLimits.DEFAULT.withMaxIterations(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxIterations must be at least 1, was 0");
    }

    @Test
    void cancelBeforeTheFirstCallAsksNothing() {
        cancellation.cancel("client left");

        AgentEvent last = run(10);

        assertThat(provider.calls).isEmpty();
        assertThat(runner.ran).isEmpty();
        assertThat(events).containsExactly(new AgentEvent.Done(0, StopReason.CANCELLED, 0, 0, Usage.UNKNOWN));
        assertThat(last).isEqualTo(events.getFirst());
        assertThat(transcript.entries()).containsExactly(new Entry.User("What skills do I have?"));
    }

    @Test
    void cancelDuringStreamingKeepsPartialTextAndSaysCommandsWereNotRun() {
        provider.script(reply("I'll check. <shell>skill list</shell> and <shell>skill", " get a</shell> then <shell>sk")
                .cancellingAfterText()
                .failing("provider_cancelled", "the stream was closed"));

        AgentEvent last = run(10);

        String partial = "I'll check. <shell>skill list</shell> and <shell>skill get a</shell> then <shell>sk";
        assertThat(transcript.entries()).containsExactly(
                new Entry.User("What skills do I have?"),
                new Entry.Assistant(partial),
                new Entry.Tool("$ skill list\n[not run: the run was stopped]\n\n$ skill get a\n[not run: the run was stopped]"));
        assertThat(runner.ran).isEmpty();
        assertThat(of(AgentEvent.ToolStart.class)).isEmpty();
        assertThat(of(AgentEvent.ToolResult.class)).containsExactly(
                new AgentEvent.ToolResult(0, "cmd-0-0", "skill list", "[not run: the run was stopped]", 130),
                new AgentEvent.ToolResult(0, "cmd-0-1", "skill get a", "[not run: the run was stopped]", 130));
        assertThat(AgentLoop.NOT_RUN_EXIT_CODE).isEqualTo(130);
        assertThat(of(AgentEvent.RawContent.class)).containsExactly(new AgentEvent.RawContent(0, partial));
        assertThat(of(AgentEvent.Error.class)).isEmpty();
        assertThat(last).isEqualTo(new AgentEvent.Done(0, StopReason.CANCELLED, 1, 0, Usage.UNKNOWN));
        assertThat(events.getLast()).isEqualTo(last);
    }

    @Test
    void cancelDuringStreamingBeforeAnyTextAppendsNothing() {
        provider.script(reply().reasoning("thinking").cancellingAfterText().failing("provider_cancelled", "closed"));

        AgentEvent last = run(10);

        assertThat(transcript.entries()).containsExactly(new Entry.User("What skills do I have?"));
        assertThat(last).isEqualTo(new AgentEvent.Done(0, StopReason.CANCELLED, 1, 0, Usage.UNKNOWN));
    }

    @Test
    void cancelDuringStreamingOfSecondIterationKeepsTheFirst() {
        provider.script(reply("<shell>skill list</shell>").usage(new Usage(5L, 1L, null)));
        provider.script(reply("Partial answ").cancellingAfterText().failing("provider_cancelled", "closed"));

        AgentEvent last = run(10);

        assertThat(transcript.entries()).containsExactly(
                new Entry.User("What skills do I have?"),
                new Entry.Assistant("<shell>skill list</shell>"),
                new Entry.Tool("$ skill list\nresult of cmd-0-0"),
                new Entry.Assistant("Partial answ"));
        assertThat(last).isEqualTo(new AgentEvent.Done(1, StopReason.CANCELLED, 2, 1, new Usage(5L, 1L, null)));
    }

    @Test
    void cancelBetweenTwoCommandsDoesNotRunTheSecondButStillAppendsTheToolEntry() {
        provider.script(reply("<shell>skill get a</shell><shell>skill delete a</shell>"));
        runner.behaviour = (command, cancel) -> {
            cancel.cancel("stop pressed");
            return CommandResult.ok("name: a");
        };

        AgentEvent last = run(10);

        assertThat(runner.ran).extracting(ShellCommand::command).containsExactly("skill get a");
        assertThat(transcript.last()).isEqualTo(
                new Entry.Tool("$ skill get a\nname: a\n\n$ skill delete a\n[not run: the run was stopped]"));
        assertThat(of(AgentEvent.ToolStart.class)).extracting(AgentEvent.ToolStart::commandId).containsExactly("cmd-0-0");
        assertThat(of(AgentEvent.ToolResult.class)).containsExactly(
                new AgentEvent.ToolResult(0, "cmd-0-0", "skill get a", "name: a", 0),
                new AgentEvent.ToolResult(0, "cmd-0-1", "skill delete a", "[not run: the run was stopped]", 130));
        assertThat(types()).endsWith("tool-output", "iteration-end", "done");
        assertThat(of(AgentEvent.IterationEnd.class)).containsExactly(new AgentEvent.IterationEnd(0, false));
        assertThat(last).isEqualTo(new AgentEvent.Done(0, StopReason.CANCELLED, 1, 1, Usage.UNKNOWN));
        assertThat(provider.calls).hasSize(1);
    }

    @Test
    void cancelAfterAnIterationEndsBeforeTheNextCall() {
        provider.script(reply("<shell>ls</shell>"));
        EventSink cancelOnIterationEnd = event -> {
            events.add(event);
            if (event instanceof AgentEvent.IterationEnd) {
                cancellation.cancel("client left");
            }
        };

        AgentEvent last = new AgentLoop(provider, TurnLimits.DEFAULT).run(transcript, SYSTEM, CACHE_KEY, runner, cancelOnIterationEnd, cancellation);

        assertThat(provider.calls).hasSize(1);
        assertThat(last).isEqualTo(new AgentEvent.Done(0, StopReason.CANCELLED, 1, 1, Usage.UNKNOWN));
        assertThat(transcript.last()).isEqualTo(new Entry.Tool("$ ls\nresult of cmd-0-0"));
    }

    // ---------------------------------------------------------------- failures

    @Test
    void providerErrorEmitsErrorWithCodeAndMessageAndAppendsNothing() {
        provider.script(reply("<shell>skill list</shell>"));
        provider.script(reply("Half an ans", "wer <shell>skill get a</shell>")
                .failing("provider_http_error", "HTTP 500 from the provider: overloaded"));

        AgentEvent last = run(10);

        assertThat(last).isEqualTo(new AgentEvent.Error(1, "HTTP 500 from the provider: overloaded", "provider_http_error"));
        assertThat(events.getLast()).isEqualTo(last);
        assertThat(of(AgentEvent.Done.class)).isEmpty();
        assertThat(transcript.entries()).containsExactly(
                new Entry.User("What skills do I have?"),
                new Entry.Assistant("<shell>skill list</shell>"),
                new Entry.Tool("$ skill list\nresult of cmd-0-0"));
        assertThat(runner.ran).extracting(ShellCommand::id).containsExactly("cmd-0-0");
        assertThat(of(AgentEvent.RawContent.class)).extracting(AgentEvent::iteration).containsExactly(0);
    }

    @Test
    void providerErrorOnFirstCallLeavesOnlyTheUserEntry() {
        provider.script(reply().failing("provider_timeout", "no answer in 60 s"));

        AgentEvent last = run(10);

        assertThat(events).containsExactly(new AgentEvent.Error(0, "no answer in 60 s", "provider_timeout"));
        assertThat(last).isEqualTo(events.getFirst());
        assertThat(transcript.entries()).containsExactly(new Entry.User("What skills do I have?"));
    }

    @Test
    void runnerThatThrowsGivesAnErrorResultWithExitOneAndTheLoopContinues() {
        provider.script(reply("<shell>boom</shell><shell>ls</shell>"));
        provider.script(reply("Recovered."));
        runner.behaviour = (command, cancel) -> {
            if (command.command().equals("boom")) {
                throw new IllegalStateException("secret internal detail");
            }
            return CommandResult.ok("a.txt");
        };

        AgentEvent last = run(10);

        String error = "error: the command failed inside the server (IllegalStateException)";
        assertThat(of(AgentEvent.ToolResult.class)).containsExactly(
                new AgentEvent.ToolResult(0, "cmd-0-0", "boom", error, 1),
                new AgentEvent.ToolResult(0, "cmd-0-1", "ls", "a.txt", 0));
        assertThat(transcript.entries().get(2)).isEqualTo(new Entry.Tool("$ boom\n" + error + "\n\n$ ls\na.txt"));
        assertThat(transcript.entries().get(2).content()).doesNotContain("secret internal detail");
        assertThat(last).isEqualTo(new AgentEvent.Done(1, StopReason.COMPLETE, 2, 2, Usage.UNKNOWN));
    }

    @Test
    void failedCommandResultIsPassedThroughWithItsExitCode() {
        provider.script(reply("<shell>rm -rf /</shell>"), reply("OK."));
        runner.behaviour = (command, cancel) -> CommandResult.failed("refused: rm is not allowed", 126);

        run(10);

        assertThat(of(AgentEvent.ToolResult.class)).containsExactly(
                new AgentEvent.ToolResult(0, "cmd-0-0", "rm -rf /", "refused: rm is not allowed", 126));
        assertThat(transcript.entries().get(2)).isEqualTo(new Entry.Tool("$ rm -rf /\nrefused: rm is not allowed"));
    }

    @Test
    void providerThrowingRuntimeExceptionAfterTextEmitsProviderFailureErrorAndKeepsTheTranscript() {
        List<Entry> before = transcript.entries();
        ModelProvider crashing = (call, listener, cancel) -> {
            listener.onText("Half an ");
            listener.onText("answer");
            throw new IllegalStateException("secret internal detail");
        };

        AgentEvent last = new AgentLoop(crashing, TurnLimits.DEFAULT).run(transcript, SYSTEM, CACHE_KEY, runner, events::add, cancellation);

        AgentEvent.Error expected = new AgentEvent.Error(0,
                "The model provider failed unexpectedly (IllegalStateException)", "provider_failure");
        assertThat(events).containsExactly(
                new AgentEvent.Text(0, "Half an "),
                new AgentEvent.Text(0, "answer"),
                expected);
        assertThat(last).isEqualTo(expected);
        assertThat(expected.message()).doesNotContain("secret internal detail");
        assertThat(transcript.entries()).isEqualTo(before)
                .containsExactly(new Entry.User("What skills do I have?"));
        assertThat(runner.ran).isEmpty();
    }

    @Test
    void providerThrowingRuntimeExceptionInALaterIterationKeepsTheEarlierIterations() {
        int[] calls = {0};
        ModelProvider crashingSecond = (call, listener, cancel) -> {
            if (calls[0]++ == 0) {
                listener.onText("<shell>skill list</shell>");
                return new ModelReply(null, new Usage(10L, 2L, 0L));
            }
            listener.onText("Partial");
            throw new NullPointerException();
        };

        AgentEvent last = new AgentLoop(crashingSecond, TurnLimits.DEFAULT).run(transcript, SYSTEM, CACHE_KEY, runner, events::add, cancellation);

        assertThat(last).isEqualTo(new AgentEvent.Error(1,
                "The model provider failed unexpectedly (NullPointerException)", "provider_failure"));
        assertThat(events.getLast()).isEqualTo(last);
        assertThat(types()).containsExactly(
                "text", "tool-call", "raw-content", "usage", "tool-start", "tool-result", "tool-output", "iteration-end",
                "text", "error");
        assertThat(transcript.entries()).containsExactly(
                new Entry.User("What skills do I have?"),
                new Entry.Assistant("<shell>skill list</shell>"),
                new Entry.Tool("$ skill list\nresult of cmd-0-0"));
        assertThat(of(AgentEvent.Done.class)).isEmpty();
    }

    @Test
    void providerErrorAfterACompleteShellTagClosesTheAnnouncedCommandAsNotRunBeforeTheError() {
        provider.script(reply("Checking <shell>skill list</shell>", " then <shell>skill get")
                .failing("provider_stream_error", "The provider reported an error mid-stream: quota"));

        AgentEvent last = run(10);

        assertThat(events).containsExactly(
                new AgentEvent.Text(0, "Checking <shell>skill list</shell>"),
                new AgentEvent.ToolCall(0, "cmd-0-0", "skill list"),
                new AgentEvent.Text(0, " then <shell>skill get"),
                new AgentEvent.ToolResult(0, "cmd-0-0", "skill list", "[not run: the model call failed]", 130),
                new AgentEvent.Error(0, "The provider reported an error mid-stream: quota", "provider_stream_error"));
        assertThat(AgentLoop.NOT_RUN_AFTER_FAILURE).isEqualTo("[not run: the model call failed]");
        assertThat(last).isEqualTo(events.getLast());
        assertThat(runner.ran).isEmpty();
        assertThat(of(AgentEvent.ToolStart.class)).isEmpty();
        assertThat(of(AgentEvent.ToolOutput.class)).isEmpty();
        assertThat(transcript.entries()).containsExactly(new Entry.User("What skills do I have?"));
    }

    @Test
    void runtimeFailureAfterTwoCompleteShellTagsClosesBothInOrderBeforeTheError() {
        ModelProvider crashing = (call, listener, cancel) -> {
            listener.onText("<shell>ls</shell><shell>ls</shell>");
            throw new IllegalArgumentException("boom");
        };

        new AgentLoop(crashing, TurnLimits.DEFAULT).run(transcript, SYSTEM, CACHE_KEY, runner, events::add, cancellation);

        assertThat(events).containsExactly(
                new AgentEvent.Text(0, "<shell>ls</shell><shell>ls</shell>"),
                new AgentEvent.ToolCall(0, "cmd-0-0", "ls"),
                new AgentEvent.ToolCall(0, "cmd-0-1", "ls"),
                new AgentEvent.ToolResult(0, "cmd-0-0", "ls", "[not run: the model call failed]", 130),
                new AgentEvent.ToolResult(0, "cmd-0-1", "ls", "[not run: the model call failed]", 130),
                new AgentEvent.Error(0, "The model provider failed unexpectedly (IllegalArgumentException)", "provider_failure"));
        assertThat(runner.ran).isEmpty();
        assertThat(transcript.entries()).containsExactly(new Entry.User("What skills do I have?"));
    }

    @Test
    void cancelDuringStreamingEmitsIterationEndWithoutMoreCommandsRightBeforeDoneCancelled() {
        provider.script(reply("Checking <shell>skill list</shell> and more")
                .cancellingAfterText()
                .failing("cancelled", "the run was stopped"));

        AgentEvent last = run(10);

        assertThat(types()).containsExactly(
                "text", "tool-call", "raw-content", "tool-result", "tool-output", "iteration-end", "done");
        assertThat(events.subList(events.size() - 2, events.size())).containsExactly(
                new AgentEvent.IterationEnd(0, false),
                new AgentEvent.Done(0, StopReason.CANCELLED, 1, 0, Usage.UNKNOWN));
        assertThat(of(AgentEvent.IterationEnd.class)).containsExactly(new AgentEvent.IterationEnd(0, false));
        assertThat(last).isEqualTo(events.getLast());
    }

    @Test
    void cancelDuringStreamingBeforeAnyTextStillEmitsIterationEndThenDone() {
        provider.script(reply().reasoning("thinking").cancellingAfterText().failing("cancelled", "the run was stopped"));

        run(10);

        assertThat(events).containsExactly(
                new AgentEvent.Reasoning(0, "thinking"),
                new AgentEvent.IterationEnd(0, false),
                new AgentEvent.Done(0, StopReason.CANCELLED, 1, 0, Usage.UNKNOWN));
    }

    @Test
    void cancelDuringStreamingOfTheSecondIterationEndsThatIterationBeforeDone() {
        provider.script(reply("<shell>skill list</shell>"));
        provider.script(reply("Partial answ").cancellingAfterText().failing("cancelled", "the run was stopped"));

        run(10);

        assertThat(of(AgentEvent.IterationEnd.class)).containsExactly(
                new AgentEvent.IterationEnd(0, true), new AgentEvent.IterationEnd(1, false));
        assertThat(events.subList(events.size() - 2, events.size())).containsExactly(
                new AgentEvent.IterationEnd(1, false),
                new AgentEvent.Done(1, StopReason.CANCELLED, 2, 1, Usage.UNKNOWN));
    }

    // ---------------------------------------------------------------- usage

    @Test
    void doneTotalsSumTheKnownFiguresAndKeepNeverReportedOnesUnknown() {
        provider.script(
                reply("<shell>ls</shell>").usage(new Usage(100L, 10L, null)),
                reply("<shell>ls</shell>").usage(new Usage(150L, null, null)),
                reply("done").usage(new Usage(200L, 5L, null)));

        AgentEvent.Done done = (AgentEvent.Done) run(10);

        assertThat(done.totals()).isEqualTo(new Usage(450L, 15L, null));
        assertThat(of(AgentEvent.UsageReport.class)).containsExactly(
                new AgentEvent.UsageReport(0, new Usage(100L, 10L, null)),
                new AgentEvent.UsageReport(1, new Usage(150L, null, null)),
                new AgentEvent.UsageReport(2, new Usage(200L, 5L, null)));
    }

    @Test
    void doneTotalsAreUnknownWhenNoCallReportedUsage() {
        provider.script(reply("<shell>ls</shell>"), reply("done"));

        AgentEvent.Done done = (AgentEvent.Done) run(10);

        assertThat(done.totals()).isEqualTo(Usage.UNKNOWN);
        assertThat(done.totals().inputTokens()).isNull();
    }

    @Test
    void zeroIsAKnownFigureNotUnknown() {
        provider.script(reply("hi").usage(new Usage(7L, 1L, 0L)));

        AgentEvent.Done done = (AgentEvent.Done) run(10);

        assertThat(done.totals().cacheReadTokens()).isZero();
    }

    // ---------------------------------------------------------------- caps

    @Test
    void toolResultEventIsCappedAtUiCapWhileTheToolEntryCapsAt2000() {
        String big = "y".repeat(AgentLoop.UI_RESULT_CAP + 5);
        provider.script(reply("<shell>cat big</shell>"), reply("Long."));
        runner.behaviour = (command, cancel) -> CommandResult.ok(big);

        run(10);

        AgentEvent.ToolResult result = of(AgentEvent.ToolResult.class).getFirst();
        assertThat(result.result()).isEqualTo("y".repeat(AgentLoop.UI_RESULT_CAP)
                + "\n[truncated: 5 more characters of " + (AgentLoop.UI_RESULT_CAP + 5) + "]");
        assertThat(transcript.entries().get(2)).isEqualTo(new Entry.Tool("$ cat big\n" + "y".repeat(2000)
                + "\n[truncated: " + (AgentLoop.UI_RESULT_CAP + 5 - 2000) + " more characters of " + (AgentLoop.UI_RESULT_CAP + 5) + "]"));
        assertThat(of(AgentEvent.ToolOutput.class).getFirst().toolOutput()).isEqualTo(transcript.entries().get(2).content());
    }

    @Test
    void resultBetweenTheTwoCapsIsWholeInTheEventAndCutInTheEntry() {
        String medium = "m".repeat(2500);
        provider.script(reply("<shell>cat medium</shell>"), reply("ok"));
        runner.behaviour = (command, cancel) -> CommandResult.ok(medium);

        run(10);

        assertThat(of(AgentEvent.ToolResult.class).getFirst().result()).isEqualTo(medium);
        assertThat(transcript.entries().get(2).content())
                .isEqualTo("$ cat medium\n" + "m".repeat(2000) + "\n[truncated: 500 more characters of 2500]");
    }

    // ---------------------------------------------------------------- the answer size limit

    @Test
    void anAnswerPastTheSizeLimitFailsItsCallLikeACutOffAnswerAndKeepsNothingOfIt() {
        provider.script(reply("<shell>skill list</shell>"), reply("<shell>ls</shell>", " and <shell>skill delete a</shell>", " never seen"));

        AgentEvent last = run(TurnLimits.DEFAULT.withMaxAnswerChars(30));

        String message = "The model's answer passed 30 characters, the most this server takes from one answer:"
                + " it was stopped there and is not kept";
        assertThat(last).isEqualTo(new AgentEvent.Error(1, message, AgentLoop.ANSWER_TOO_LONG));
        assertThat(AgentLoop.ANSWER_TOO_LONG).isEqualTo("answer_too_long");
        assertThat(events.subList(events.size() - 4, events.size())).as("the command it announced is closed, the rest never streamed")
                .containsExactly(
                        new AgentEvent.Text(1, "<shell>ls</shell>"),
                        new AgentEvent.ToolCall(1, "cmd-1-0", "ls"),
                        new AgentEvent.ToolResult(1, "cmd-1-0", "ls", "[not run: the model call failed]", 130),
                        last);
        assertThat(runner.ran).extracting(ShellCommand::id).as("nothing of the too long answer ran").containsExactly("cmd-0-0");
        assertThat(transcript.entries()).as("the transcript as it was after the last whole iteration").containsExactly(
                new Entry.User("What skills do I have?"),
                new Entry.Assistant("<shell>skill list</shell>"),
                new Entry.Tool("$ skill list\nresult of cmd-0-0"));
    }

    @Test
    void reasoningCountsTowardsTheAnswerSize() {
        provider.script(reply("0123456789").reasoning("a".repeat(15)));

        AgentEvent last = run(TurnLimits.DEFAULT.withMaxAnswerChars(20));

        assertThat(last).isInstanceOf(AgentEvent.Error.class).extracting(e -> ((AgentEvent.Error) e).code())
                .isEqualTo(AgentLoop.ANSWER_TOO_LONG);
        assertThat(transcript.entries()).containsExactly(new Entry.User("What skills do I have?"));
    }

    @Test
    void theSizeLimitIsPerAnswerAndAnAnswerOfExactlyTheLimitIsWhole() {
        provider.script(reply("<shell>ls</shell>", "..."), reply("twenty characters!!!"));

        AgentEvent last = run(TurnLimits.DEFAULT.withMaxAnswerChars(20));

        assertThat(last).isEqualTo(new AgentEvent.Done(1, StopReason.COMPLETE, 2, 1, Usage.UNKNOWN));
        assertThat(transcript.last()).isEqualTo(new Entry.Assistant("twenty characters!!!"));
    }

    // ---------------------------------------------------------------- the per-turn command budget

    @Test
    void commandsPastTheTurnsBudgetAreNotRunAndEachStillGetsItsResultInTheToolEntry() {
        provider.script(
                reply("<shell>skill list</shell><shell>skill get a</shell>"),
                reply("<shell>ls</shell><shell>ls -la</shell><shell>skill delete a</shell>"),
                reply("<shell>skill list</shell>"),
                reply("Out of commands."));

        AgentEvent last = run(TurnLimits.DEFAULT.withMaxCommands(3));

        String notRun = "[not run: the per-turn command budget of 3 is spent; answer with what you have,"
                + " and the person can ask you to go on in a new message]";
        assertThat(AgentLoop.notRunOverBudget(3)).isEqualTo(notRun);
        assertThat(runner.ran).extracting(ShellCommand::id).containsExactly("cmd-0-0", "cmd-0-1", "cmd-1-0");
        assertThat(of(AgentEvent.ToolResult.class).subList(3, 6)).containsExactly(
                new AgentEvent.ToolResult(1, "cmd-1-1", "ls -la", notRun, 126),
                new AgentEvent.ToolResult(1, "cmd-1-2", "skill delete a", notRun, 126),
                new AgentEvent.ToolResult(2, "cmd-2-0", "skill list", notRun, 126));
        assertThat(AgentLoop.REFUSED_EXIT_CODE).isEqualTo(126);
        assertThat(of(AgentEvent.ToolStart.class)).extracting(AgentEvent.ToolStart::commandId)
                .as("a command over the budget never starts").containsExactly("cmd-0-0", "cmd-0-1", "cmd-1-0");
        assertThat(transcript.entries()).containsExactly(
                new Entry.User("What skills do I have?"),
                new Entry.Assistant("<shell>skill list</shell><shell>skill get a</shell>"),
                new Entry.Tool("$ skill list\nresult of cmd-0-0\n\n$ skill get a\nresult of cmd-0-1"),
                new Entry.Assistant("<shell>ls</shell><shell>ls -la</shell><shell>skill delete a</shell>"),
                new Entry.Tool("$ ls\nresult of cmd-1-0\n\n$ ls -la\n" + notRun + "\n\n$ skill delete a\n" + notRun),
                new Entry.Assistant("<shell>skill list</shell>"),
                new Entry.Tool("$ skill list\n" + notRun),
                new Entry.Assistant("Out of commands."));
        assertThat(last).isEqualTo(new AgentEvent.Done(3, StopReason.COMPLETE, 4, 3, Usage.UNKNOWN));
    }

    @Test
    void anAnswerWithThreeThousandCommandsRunsOnlyTheDefaultBudget() {
        provider.script(reply("<shell>ls</shell>".repeat(3000)), reply("Done."));

        AgentEvent last = run(TurnLimits.DEFAULT);

        assertThat(TurnLimits.DEFAULT.maxCommands()).isEqualTo(50);
        assertThat(runner.ran).hasSize(50);
        assertThat(of(AgentEvent.ToolResult.class)).hasSize(3000)
                .filteredOn(result -> result.exitCode() == AgentLoop.REFUSED_EXIT_CODE).hasSize(2950);
        assertThat(last).isEqualTo(new AgentEvent.Done(1, StopReason.COMPLETE, 2, 50, Usage.UNKNOWN));
    }

    // ---------------------------------------------------------------- surrogate pairs split across chunks

    @Test
    void aSurrogatePairSplitAcrossChunksIsStreamedWholeInTextAndReasoning() {
        provider.script(reply("Tea ", "\uD83C", "\uDF75 is ready").reasoning("Hmm \uD83E", "\uDD14", "."));

        run(10);

        assertThat(events).startsWith(
                new AgentEvent.Reasoning(0, "Hmm "),
                new AgentEvent.Reasoning(0, "\uD83E\uDD14"),
                new AgentEvent.Reasoning(0, "."),
                new AgentEvent.Text(0, "Tea "),
                new AgentEvent.Text(0, "\uD83C\uDF75 is ready"));
        assertThat(transcript.last()).isEqualTo(new Entry.Assistant("Tea \uD83C\uDF75 is ready"));
    }

    @Test
    void aHighSurrogateLeftAtTheEndOfTheStreamIsGivenOutAsTheReplacementCharacterItIsStoredAs() {
        provider.script(reply("Cut \uD83C"));

        run(10);

        assertThat(of(AgentEvent.Text.class)).containsExactly(new AgentEvent.Text(0, "Cut "), new AgentEvent.Text(0, "\uFFFD"));
        assertThat(transcript.last()).isEqualTo(new Entry.Assistant("Cut \uFFFD"));
        assertThat(of(AgentEvent.RawContent.class)).containsExactly(new AgentEvent.RawContent(0, "Cut \uFFFD"));
    }

    @Test
    void aStopAfterHalfASurrogatePairKeepsWhatWasStreamedConsistentWithWhatIsStored() {
        provider.script(reply("Partial \uD83C").cancellingAfterText().failing("cancelled", "the run was stopped"));

        run(10);

        String streamed = of(AgentEvent.Text.class).stream().map(AgentEvent.Text::content).reduce("", String::concat);
        assertThat(streamed).isEqualTo("Partial \uFFFD");
        assertThat(transcript.last()).isEqualTo(new Entry.Assistant(streamed));
    }

    // ---------------------------------------------------------------- streaming details

    @Test
    void reasoningChunksBecomeReasoningEventsAndEmptyChunksNone() {
        provider.script(reply("", "Hello", "", " there", "").reasoning("Let me ", "", "think."));

        run(10);

        assertThat(of(AgentEvent.Reasoning.class)).containsExactly(
                new AgentEvent.Reasoning(0, "Let me "), new AgentEvent.Reasoning(0, "think."));
        assertThat(of(AgentEvent.Text.class)).containsExactly(
                new AgentEvent.Text(0, "Hello"), new AgentEvent.Text(0, " there"));
        assertThat(types()).containsExactly("reasoning", "reasoning", "text", "text", "raw-content", "usage", "iteration-end", "done");
        assertThat(transcript.last()).isEqualTo(new Entry.Assistant("Hello there"));
    }

    @Test
    void reasoningIsNotPartOfTheAssistantEntryNorScannedForCommands() {
        provider.script(reply("Answer.").reasoning("maybe <shell>skill delete all</shell>?"));

        run(10);

        assertThat(runner.ran).isEmpty();
        assertThat(of(AgentEvent.ToolCall.class)).isEmpty();
        assertThat(transcript.last()).isEqualTo(new Entry.Assistant("Answer."));
    }

    @Test
    void sourcesAreForwarded() {
        ModelProvider withSources = (call, listener, cancel) -> {
            listener.onText("See the page.");
            listener.onSource("https://example.com/a", "Example A");
            return new ModelReply(null, Usage.UNKNOWN);
        };

        new AgentLoop(withSources, TurnLimits.DEFAULT).run(transcript, SYSTEM, CACHE_KEY, runner, events::add, cancellation);

        assertThat(of(AgentEvent.Source.class)).containsExactly(new AgentEvent.Source(0, "https://example.com/a", "Example A"));
    }

    @Test
    void toolCallIsEmittedInTheChunkThatClosesTheTag() {
        provider.script(reply("<shell>skill ", "list</shell", ">after"), reply("done"));

        run(10);

        assertThat(events.subList(0, 4)).containsExactly(
                new AgentEvent.Text(0, "<shell>skill "),
                new AgentEvent.Text(0, "list</shell"),
                new AgentEvent.Text(0, ">after"),
                new AgentEvent.ToolCall(0, "cmd-0-0", "skill list"));
    }

    @Test
    void eventTypesHaveTheirWireNames() {
        assertThat(List.of(
                new AgentEvent.Text(0, "").type(), new AgentEvent.Reasoning(0, "").type(),
                new AgentEvent.ToolCall(0, "", "").type(), new AgentEvent.ToolStart(0, "", "").type(),
                new AgentEvent.ToolResult(0, "", "", "", 0).type(), new AgentEvent.RawContent(0, "").type(),
                new AgentEvent.ToolOutput(0, "").type(), new AgentEvent.Source(0, "", "").type(),
                new AgentEvent.UsageReport(0, Usage.UNKNOWN).type(), new AgentEvent.IterationEnd(0, false).type(),
                new AgentEvent.Done(0, StopReason.COMPLETE, 0, 0, Usage.UNKNOWN).type(), new AgentEvent.Error(0, "", "").type()))
                .containsExactly("text", "reasoning", "tool-call", "tool-start", "tool-result", "raw-content",
                        "tool-output", "source", "usage", "iteration-end", "done", "error");
        assertThat(Arrays.stream(StopReason.values()).map(StopReason::wireName))
                .containsExactly("complete", "max-iterations", "cancelled");
    }

    // ---------------------------------------------------------------- preconditions

    @Test
    void runRefusesATranscriptThatEndsWithAnAssistantEntry() {
        transcript.append(new Entry.Assistant("Hi."));

        assertThatThrownBy(() -> run(10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a turn starts after a user entry");
        assertThat(provider.calls).isEmpty();
        assertThat(events).isEmpty();
        assertThat(transcript.size()).isEqualTo(2);
    }

    @Test
    void runRefusesATranscriptThatEndsWithAToolEntry() {
        transcript.append(new Entry.Assistant("<shell>ls</shell>"));
        transcript.append(new Entry.Tool("$ ls\na"));

        assertThatThrownBy(() -> run(10)).isInstanceOf(IllegalArgumentException.class);
        assertThat(provider.calls).isEmpty();
    }

    @Test
    void runRefusesAnEmptyTranscript() {
        AgentLoop loop = new AgentLoop(provider, TurnLimits.DEFAULT);

        assertThatThrownBy(() -> loop.run(new Transcript(), SYSTEM, CACHE_KEY, runner, events::add, cancellation))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(events).isEmpty();
    }

    // ================================================================ context window

    @Test
    void withAContextWindowTheModelIsSentTheViewAfterACutWhichIsReportedWhileTheTranscriptKeepsEverything() {
        Transcript conversation = new Transcript();
        for (int turn = 1; turn <= 6; turn++) {
            conversation.append(new Entry.User("Question " + turn));
            conversation.append(new Entry.Assistant("An answer of 300 tokens. " + "x".repeat(1175)));
        }
        conversation.append(new Entry.User("Question 7"));
        List<Entry> before = conversation.entries();
        provider.script(reply("<shell>skill list</shell>"), reply("Done."));
        // A token per four characters: the six turns pass 80% of 2048 tokens, the last two and the note fit in 40%.
        AgentLoop loop = new AgentLoop(provider, TurnLimits.DEFAULT, new ContextWindow(2048, text -> (text.length() + 3) / 4));

        AgentEvent last = loop.run(conversation, SYSTEM, CACHE_KEY, runner, events::add, cancellation);

        assertThat(last).isInstanceOf(AgentEvent.Done.class).extracting(e -> ((AgentEvent.Done) e).stopReason()).isEqualTo(StopReason.COMPLETE);
        List<Entry> after = conversation.entries();
        assertThat(after).hasSize(before.size() + 4).startsWith(before.toArray(Entry[]::new));
        Entry.ContextCut cut = (Entry.ContextCut) after.get(before.size());
        assertThat(cut.keepFrom()).as("the start of turn 5").isEqualTo(8);
        assertThat(after.subList(before.size() + 1, after.size())).containsExactly(new Entry.Assistant("<shell>skill list</shell>"),
                new Entry.Tool("$ skill list\nresult of cmd-0-0"), new Entry.Assistant("Done."));
        assertThat(types().getFirst()).as("reported before the call it was made for").isEqualTo("context-cut");
        assertThat(of(AgentEvent.ContextCut.class)).containsExactly(new AgentEvent.ContextCut(0, 8, cut.content()));
        List<Entry> first = new ArrayList<>(List.of(cut));
        first.addAll(before.subList(8, before.size()));
        assertThat(provider.calls.get(0).entries()).isEqualTo(first);
        first.addAll(after.subList(before.size() + 1, before.size() + 3));
        assertThat(provider.calls.get(1).entries()).as("the next call extends the cut one").isEqualTo(first);
    }

    // ================================================================ helpers

    private static final String ITERATION_0 = "Let me look.\n<shell>skill li" + "st</shell> and <shell>skill get a" + "</shell>";
    private static final String ITERATION_1 = "<shell>ls</shell>" + "<shell>ls</" + "shell>";
    private static final String ITERATION_2 = "You have skill a.";

    private void scriptThreeIterations() {
        provider.script(
                reply("Let me look.\n<shell>skill li", "st</shell> and <shell>skill get a", "</shell>")
                        .usage(new Usage(100L, 10L, null)),
                reply("<shell>ls</shell>", "<shell>ls</", "shell>").usage(new Usage(150L, 20L, 90L)),
                reply(ITERATION_2).usage(new Usage(200L, 5L, 140L)));
    }

    private AgentEvent run(int maxIterations) {
        return run(TurnLimits.DEFAULT.withMaxIterations(maxIterations));
    }

    private AgentEvent run(TurnLimits limits) {
        return new AgentLoop(provider, limits).run(transcript, SYSTEM, CACHE_KEY, runner, events::add, cancellation);
    }

    private List<String> types() {
        return events.stream().map(AgentEvent::type).toList();
    }

    private <T extends AgentEvent> List<T> of(Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }

    private List<String> lifecycleOf(String commandId) {
        return events.stream().filter(e -> commandId.equals(commandIdOf(e))).map(AgentEvent::type).toList();
    }

    private static String commandIdOf(AgentEvent event) {
        return switch (event) {
            case AgentEvent.ToolCall e -> e.commandId();
            case AgentEvent.ToolStart e -> e.commandId();
            case AgentEvent.ToolResult e -> e.commandId();
            default -> null;
        };
    }

    private static Reply reply(String... text) {
        return new Reply(List.of(), List.of(text), Usage.UNKNOWN, null, false, null);
    }

    /** One scripted model call: reasoning chunks, then text chunks, then a stop, a failure or a reply. */
    private record Reply(List<String> reasoning, List<String> text, Usage usage, ProviderReplay replay,
                         boolean cancelAfterText, ProviderException failure) {

        Reply reasoning(String... chunks) {
            return new Reply(List.of(chunks), text, usage, replay, cancelAfterText, failure);
        }

        Reply usage(Usage newUsage) {
            return new Reply(reasoning, text, newUsage, replay, cancelAfterText, failure);
        }

        Reply replay(ProviderReplay newReplay) {
            return new Reply(reasoning, text, usage, newReplay, cancelAfterText, failure);
        }

        Reply cancellingAfterText() {
            return new Reply(reasoning, text, usage, replay, true, failure);
        }

        Reply failing(String code, String message) {
            return new Reply(reasoning, text, usage, replay, cancelAfterText, new ProviderException(code, message));
        }
    }

    /** Plays the scripted replies in order and records every call it got. */
    private static final class FakeProvider implements ModelProvider {
        final List<ModelCall> calls = new ArrayList<>();
        private final Deque<Reply> replies = new ArrayDeque<>();

        void script(Reply... more) {
            replies.addAll(List.of(more));
        }

        @Override
        public ModelReply stream(ModelCall call, ModelStreamListener listener, Cancellation cancellation) throws ProviderException {
            calls.add(call);
            Reply reply = replies.poll();
            if (reply == null) {
                throw new AssertionError("unexpected model call #" + calls.size());
            }
            for (String chunk : reply.reasoning()) {
                listener.onReasoning(chunk);
            }
            for (String chunk : reply.text()) {
                listener.onText(chunk);
            }
            if (reply.cancelAfterText()) {
                cancellation.cancel("test stop");
            }
            if (reply.failure() != null) {
                throw reply.failure();
            }
            return new ModelReply(reply.replay(), reply.usage());
        }
    }

    /** Records the commands it is asked to run; answers "result of {id}" unless told otherwise. */
    private static final class FakeRunner implements CommandRunner {
        final List<ShellCommand> ran = new ArrayList<>();
        BiFunction<ShellCommand, Cancellation, CommandResult> behaviour =
                (command, cancel) -> CommandResult.ok("result of " + command.id());

        @Override
        public CommandResult run(ShellCommand command, Cancellation cancellation) {
            ran.add(command);
            return behaviour.apply(command, cancellation);
        }
    }
}
