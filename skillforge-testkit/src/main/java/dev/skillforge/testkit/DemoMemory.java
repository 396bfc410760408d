package dev.skillforge.testkit;

import dev.skillforge.server.JdbcStorage;
import dev.skillforge.core.agent.TurnLimits;
import dev.skillforge.server.SkillForgeServer;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.ConfiguredProvider;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.openai.OpenAiChatRequest;
import dev.skillforge.server.provider.openai.OpenAiCompatibleProvider;
import dev.skillforge.server.provider.sim.DemoAgent;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.store.JdbcConversationStore;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The offline demo's memory over many turns: a real server whose provider is the demo (the simulated
 * provider with its {@link DemoAgent} and the options it runs with in production, which keep no
 * requests), stateless demo turns sent over HTTP one after another, and the heap still in use after a
 * full collection measured every so often. A demo that keeps something per turn grows by it; one that
 * does not stays flat. The chunks come without delay, so thousands of turns take a minute or two.
 */
public final class DemoMemory {

    /** Heap in use after a full collection, once {@code turns} demo turns had run. */
    public record Sample(int turns, long heapBytes) {
    }

    private static final String TURN = Json.write(Json.object().set("messages", Json.MAPPER.createArrayNode()
            .add(Json.object().put("role", "user").put("content", "What skills do I have?"))));

    private DemoMemory() {
    }

    /**
     * Runs {@code turns} demo turns, sampling the heap before the first and after every {@code every} turns.
     *
     * @param dataDir an empty folder for the server's data
     */
    public static List<Sample> run(Path dataDir, int turns, int every) throws Exception {
        SimProviderServer sim = SimProviderServer.startOnLoopback(new DemoAgent(Duration.ZERO), SimProviderServer.Options.DEFAULT);
        var timeouts = new StreamingHttp.Timeouts(Duration.ofSeconds(30), Duration.ofSeconds(30));
        var client = new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(sim.baseUrl(), null, SimProviderServer.MODEL, true,
                timeouts, RetryPolicy.DEFAULT));
        ConfiguredProvider demo = new ConfiguredProvider(client, "sim", SimProviderServer.MODEL, true, OpenAiChatRequest::messages, sim);
        List<Sample> samples = new ArrayList<>();
        try (SkillForgeServer server = SkillForgeServer.builder(dataDir).provider(demo).turnLimits(TurnLimits.DEFAULT)
                .storage(new JdbcStorage(JdbcConversationStore.open(null, null, null, dataDir))).start()) {
            String url = "http://127.0.0.1:" + server.port() + "/api/agent";
            turn(url); // the first turn loads what every later one uses
            samples.add(new Sample(0, heapInUse()));
            for (int i = 1; i <= turns; i++) {
                turn(url);
                if (i % every == 0) {
                    samples.add(new Sample(i, heapInUse()));
                }
            }
        }
        return samples;
    }

    private static void turn(String url) throws Exception {
        List<SseClient.Event> events = SseClient.postForEvents(url, TURN);
        if (events.isEmpty() || !events.getLast().type().equals("done")) {
            throw new IllegalStateException("a demo turn did not end with done: " + (events.isEmpty() ? "no events" : events.getLast().data()));
        }
    }

    /** The heap in use after full collections, once it stops shrinking (a collection can leave some for the next). */
    static long heapInUse() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long last = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(50); // reference processing and the collector's own threads settle
            long used = memory.getHeapMemoryUsage().getUsed();
            if (used >= last) {
                return last;
            }
            last = used;
        }
        return last;
    }
}
