package dev.skillforge.server.run;

import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.core.agent.StopReason;
import dev.skillforge.core.agent.Usage;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** A run's events: every one given back with its id, from any id on, and chunks kept without an object each. */
class RunEventLogTest {

    /**
     * 900,000 one-character chunks held 76 MB for as long as the run was its conversation's last (ten minutes idle):
     * an event, its text and its frame each. The log keeps none of the chunks' objects (counted exactly: every one
     * of them is collectable once the log has it), and still gives every chunk back as it came.
     */
    @Test
    void nineHundredThousandOneCharacterChunksKeepNoObjectPerChunkAndComeBackAsTheyCame() throws Exception {
        RunEventLog log = new RunEventLog(new AtomicLong()::incrementAndGet);
        List<WeakReference<Object>> sampled = new ArrayList<>();
        for (int i = 0; i < 900_000; i++) {
            AgentEvent.Text chunk = new AgentEvent.Text(0, String.valueOf((char) ('a' + i % 26)));
            if (i % 1000 == 0) {
                sampled.add(new WeakReference<>(chunk));
                sampled.add(new WeakReference<>(chunk.content()));
            }
            log.accept(chunk);
        }
        log.accept(new AgentEvent.Done(0, StopReason.COMPLETE, 1, 0, new Usage(1L, 1L, null)));

        for (int i = 0; i < 5 && sampled.stream().anyMatch(reference -> reference.get() != null); i++) {
            System.gc();
        }
        assertThat(sampled).as("chunk objects the log still holds").allMatch(reference -> reference.get() == null);

        List<RunEventLog.Frame> frames = log.frames();
        assertThat(frames).hasSize(900_001);
        for (int i = 0; i < 900_000; i += 7919) {
            assertThat(frames.get(i)).isEqualTo(new RunEventLog.Frame(i + 1, new AgentEvent.Text(0, String.valueOf((char) ('a' + i % 26)))));
        }
        assertThat(frames.getLast().event()).isInstanceOf(AgentEvent.Done.class);
    }

    @Test
    void fromAnyIdOnEveryLaterEventComesOnceInOrder() throws Exception {
        AtomicLong ids = new AtomicLong(40);
        RunEventLog log = new RunEventLog(ids::incrementAndGet);
        List<AgentEvent> events = List.of(new AgentEvent.Reasoning(0, "Let"), new AgentEvent.Reasoning(0, " me think."),
                new AgentEvent.Text(0, "Looking"), new AgentEvent.Text(0, " \uD83D\uDE00"), new AgentEvent.ToolCall(0, "cmd-0-0", "skill list"),
                new AgentEvent.Text(0, " then"), new AgentEvent.Text(1, "Next"), new AgentEvent.Text(1, " one."));
        for (AgentEvent event : events) {
            log.accept(event);
            if (event instanceof AgentEvent.ToolCall) {
                ids.addAndGet(5); // another log of the conversation drew ids meanwhile
            }
        }
        log.accept(new AgentEvent.Done(1, StopReason.COMPLETE, 2, 1, new Usage(1L, 1L, null)));

        List<RunEventLog.Frame> all = log.frames();
        assertThat(all).extracting(RunEventLog.Frame::event).containsExactlyElementsOf(
                java.util.stream.Stream.concat(events.stream(), java.util.stream.Stream.of(all.getLast().event())).toList());
        assertThat(all).extracting(RunEventLog.Frame::id).containsExactly(41L, 42L, 43L, 44L, 45L, 51L, 52L, 53L, 54L);
        for (int i = 0; i < all.size(); i++) {
            assertThat(log.framesAfter(all.get(i).id(), Duration.ZERO)).as("after %d", all.get(i).id()).isEqualTo(all.subList(i + 1, all.size()));
        }
        assertThat(log.framesAfter(0, Duration.ZERO)).isEqualTo(all);
    }

    @Test
    void aReaderFarBehindCatchesUpInReadsOfAtMost4096Frames() throws Exception {
        RunEventLog log = new RunEventLog(new AtomicLong()::incrementAndGet);
        for (int i = 0; i < 10_000; i++) {
            log.accept(new AgentEvent.Text(0, "x"));
        }

        List<RunEventLog.Frame> first = log.framesAfter(0, Duration.ZERO);
        List<RunEventLog.Frame> second = log.framesAfter(first.getLast().id(), Duration.ZERO);
        List<RunEventLog.Frame> third = log.framesAfter(second.getLast().id(), Duration.ZERO);

        assertThat(first).hasSize(RunEventLog.MAX_FRAMES_PER_READ);
        assertThat(second).hasSize(RunEventLog.MAX_FRAMES_PER_READ);
        assertThat(third).hasSize(10_000 - 2 * RunEventLog.MAX_FRAMES_PER_READ);
        assertThat(third.getLast().id()).isEqualTo(10_000);
    }
}
