package dev.skillforge.server.run;

import dev.skillforge.core.agent.AgentEvent;

import java.util.Arrays;
import java.util.List;

/**
 * Text or reasoning chunks of one iteration in a row, with ids in a row, kept as their characters and where each
 * chunk ends: four bytes a chunk besides its text, where an event object each cost about 85. Each chunk is given
 * back as the event it came as.
 */
final class ChunkRun {

    private final long firstId;
    private final boolean reasoning;
    private final int iteration;
    private final StringBuilder text = new StringBuilder();
    private int[] ends = new int[16];
    private int count;

    ChunkRun(long id, AgentEvent first) {
        this.firstId = id;
        this.reasoning = first instanceof AgentEvent.Reasoning;
        this.iteration = first.iteration();
        add(first);
    }

    static boolean isChunk(AgentEvent event) {
        return event instanceof AgentEvent.Text || event instanceof AgentEvent.Reasoning;
    }

    /** Whether {@code event}, numbered {@code id}, goes on this run: a chunk of the same kind and iteration, next in line. */
    boolean takes(long id, AgentEvent event) {
        return id == lastId() + 1 && isChunk(event) && (event instanceof AgentEvent.Reasoning) == reasoning && event.iteration() == iteration;
    }

    void add(AgentEvent chunk) {
        text.append(chunk instanceof AgentEvent.Text t ? t.content() : ((AgentEvent.Reasoning) chunk).content());
        if (count == ends.length) {
            ends = Arrays.copyOf(ends, count * 2);
        }
        ends[count++] = text.length();
    }

    long lastId() {
        return firstId + count - 1;
    }

    /** Adds to {@code into} the chunks with an id above {@code afterId}, at most {@code most} of them. */
    void framesAfter(long afterId, int most, List<RunEventLog.Frame> into) {
        int from = afterId < firstId ? 0 : (int) Math.min(count, afterId - firstId + 1);
        for (int i = from; i < count && most-- > 0; i++) {
            String content = text.substring(i == 0 ? 0 : ends[i - 1], ends[i]);
            into.add(new RunEventLog.Frame(firstId + i, reasoning ? new AgentEvent.Reasoning(iteration, content) : new AgentEvent.Text(iteration, content)));
        }
    }
}
