package dev.skillforge.server.provider.openai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ModelStreamListener;
import dev.skillforge.core.shell.ShellTagScanner;
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
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;

/**
 * The per-chunk path of a provider stream (docs/performance.md), one relayed text chunk each: the OpenAI-compatible
 * parser as it reads the common chunk now (streaming, no tree), the tree it built before, and the
 * {@code <shell>} tag scanner. In this package because the parser is package-private. Run with
 * {@code ./skillforge bench jmh} ({@code -prof gc} adds bytes allocated per chunk).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ChunkParserBenchmark {

    /** A chunk as OpenAI streams it, with a few characters of text. */
    static final String CHUNK = "{\"id\":\"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT\",\"object\":\"chat.completion.chunk\",\"created\":1741569952,"
            + "\"model\":\"gpt-4o-2024-08-06\",\"service_tier\":\"default\",\"system_fingerprint\":\"fp_f9f4fb6dbf\","
            + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\" skills\"},\"logprobs\":null,\"finish_reason\":null}]}";

    private Blackhole sink;
    private OpenAiStreamParser parser;
    private final ShellTagScanner scanner = new ShellTagScanner();

    @org.openjdk.jmh.annotations.Setup
    public void setUp(Blackhole blackhole) {
        sink = blackhole;
        parser = new OpenAiStreamParser(new ModelStreamListener() {
            @Override
            public void onText(String chunk) {
                sink.consume(chunk);
            }

            @Override
            public void onReasoning(String chunk) {
                sink.consume(chunk);
            }

            @Override
            public void onSource(String url, String title) {
                sink.consume(url);
            }
        });
    }

    /** What the parser does with the chunk now. */
    @Benchmark
    public boolean parser() throws Exception {
        return parser.accept(CHUNK);
    }

    /** What it did before: a tree per chunk, then the same fields read from it. */
    @Benchmark
    public String treeBefore() throws Exception {
        JsonNode chunk = Json.parse(CHUNK);
        JsonNode choice = chunk.path("choices").path(0);
        sink.consume(Json.text(choice.path("delta"), "reasoning_content"));
        sink.consume(Json.text(choice, "finish_reason"));
        sink.consume(chunk.get("usage"));
        return Json.text(choice.path("delta"), "content");
    }

    @Benchmark
    public Object tagScanner() {
        return scanner.feed(" skills");
    }
}
