package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.server.json.Json;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * One {@code text} event encoded into the bytes of its SSE frame: as the follower does it now
 * ({@link SseFrames}: the streaming generator into reused characters, encoded into reused bytes), as it did before
 * that (the generator into a string buffer, a string, bytes) and at first (a tree, a string, a builder, bytes).
 * In this package because the encoder is package-private. Run with {@code ./skillforge bench jmh}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class EventEncoderBenchmark {

    private final AgentEvent event = new AgentEvent.Text(0, " skills");
    private final SseFrames frames = new SseFrames();
    private final StringWriter batch = new StringWriter(1024);
    /** Takes the bytes as the response would; it sums their count and each write's first byte, so that nothing is optimised away. */
    private final CountingSink sink = new CountingSink();
    private long id;

    @Benchmark
    public long encoder() throws IOException {
        frames.add(++id, event);
        frames.sendTo(sink);
        return sink.count;
    }

    /** As the follower wrote before: the generator into a string buffer, then a string, then its bytes. */
    @Benchmark
    public byte[] stringBefore() {
        StringBuffer text = batch.getBuffer();
        text.setLength(0);
        text.append("id: ").append(++id).append("\ndata: ");
        EventJson.write(event, batch);
        text.append("\n\n");
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Benchmark
    public byte[] treeBefore() {
        AgentEvent.Text text = (AgentEvent.Text) event;
        ObjectNode json = Json.object();
        json.put("type", text.type());
        json.put("iteration", text.iteration());
        json.put("content", text.content());
        StringBuilder frame = new StringBuilder();
        frame.append("id: ").append(++id).append("\ndata: ").append(Json.write(json)).append("\n\n");
        return frame.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static final class CountingSink extends OutputStream {
        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            count += length + bytes[offset];
        }
    }
}
