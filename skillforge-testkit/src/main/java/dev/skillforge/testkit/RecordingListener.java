package dev.skillforge.testkit;

import dev.skillforge.core.agent.ModelStreamListener;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * Keeps what a provider streamed, in order: text chunks, reasoning chunks, sources ({@code url title}).
 * {@link #withoutSources()} makes one that fails on a source, for a wire format that has none;
 * {@link #arrivalOf} tells a test when a stream got as far as a given chunk.
 */
public class RecordingListener implements ModelStreamListener {

    public final List<String> text = new CopyOnWriteArrayList<>();
    public final List<String> reasoning = new CopyOnWriteArrayList<>();
    public final List<String> sources = new CopyOnWriteArrayList<>();
    private final boolean sourcesExpected;
    private final Map<String, CountDownLatch> awaited = new ConcurrentHashMap<>();

    public RecordingListener() {
        this(true);
    }

    private RecordingListener(boolean sourcesExpected) {
        this.sourcesExpected = sourcesExpected;
    }

    /** A listener that fails the test on any source: for a wire format that carries none (chat completions). */
    public static RecordingListener withoutSources() {
        return new RecordingListener(false);
    }

    /** A latch that opens once the text chunk {@code marker} has been recorded. Ask before the stream starts. */
    public CountDownLatch arrivalOf(String marker) {
        return awaited.computeIfAbsent(marker, m -> new CountDownLatch(1));
    }

    @Override
    public void onText(String chunk) {
        text.add(chunk);
        CountDownLatch arrived = awaited.get(chunk);
        if (arrived != null) {
            arrived.countDown();
        }
    }

    @Override
    public void onReasoning(String chunk) {
        reasoning.add(chunk);
    }

    @Override
    public void onSource(String url, String title) {
        if (!sourcesExpected) {
            throw new AssertionError("no sources expected in this stream: " + url);
        }
        sources.add(url + " " + title);
    }

    public String allText() {
        return String.join("", text);
    }

    public String allReasoning() {
        return String.join("", reasoning);
    }
}
