package dev.skillforge.server.http;

import dev.skillforge.testkit.SseClient;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What a client sees when the provider fails, and what the provider sees when the client leaves. */
class AgentEndpointFailureTest {

    @Test
    void clientThatDisconnectsAbortsTheUpstreamRequest(@TempDir Path data) throws Exception {
        // The stall keeps the provider's stream alive for a minute (a comment every 100 ms): only the client's departure ends it early.
        SimReply endless = SimReply.of("Thinking about it", " for a long time").withFault(new SimReply.Stall(2));
        try (ServerHarness server = new ServerHarness(data, new SimScript(endless))) {
            java.net.Socket browser = SseClient.openRaw(server.server.port(), "/api/agent", SseClient.userMessage("Hello"));
            String seen = readUntil(browser.getInputStream(), "for a long time");
            assertThat(seen).startsWith("HTTP/1.1 200").contains("\"type\":\"text\"");

            long closedAt = System.nanoTime();
            browser.close();

            assertThat(server.sim.awaitAbort(Duration.ofSeconds(30))).as("the provider saw the request aborted").isTrue();
            Duration took = Duration.ofNanos(System.nanoTime() - closedAt);
            // The departure is seen at a failing write, about two 250 ms pings (about 0.5 s here); 5 s is ten times that
            // for a slow machine and still fails if the pings stopped or spread out.
            assertThat(took).as("time from client disconnect to upstream abort").isLessThan(Duration.ofSeconds(5));
        }
    }

    private static String readUntil(InputStream in, String marker) throws java.io.IOException {
        StringBuilder seen = new StringBuilder();
        int b;
        while (!seen.toString().contains(marker) && (b = in.read()) >= 0) {
            seen.append((char) b);
        }
        return seen.toString();
    }

    @Test
    void providerHttpErrorBecomesAnErrorEventWithTheProvidersMessage(@TempDir Path data) throws Exception {
        SimReply refused = SimReply.of().withFault(new SimReply.HttpError(401, "Incorrect API key provided", null));
        try (ServerHarness server = new ServerHarness(data, new SimScript(refused))) {
            List<SseClient.Event> events = SseClient.postForEvents(server.url("/api/agent"), SseClient.userMessage("Hello"));

            assertThat(events).extracting(SseClient.Event::type).containsExactly("error");
            assertThat(events.getFirst().text("code")).isEqualTo("provider_http_error");
            assertThat(events.getFirst().text("message")).contains("401").contains("Incorrect API key provided");
            assertThat(server.sim.requests()).hasSize(1);
        }
    }

    @Test
    void errorMidStreamAfterTextIsAFailureNotAShortAnswer(@TempDir Path data) throws Exception {
        SimReply broken = SimReply.of("Let me ", "check <shell>skill list</shell>", " and").withFault(new SimReply.StreamError(2, "upstream overloaded"));
        try (ServerHarness server = new ServerHarness(data, new SimScript(broken))) {
            List<SseClient.Event> events = SseClient.postForEvents(server.url("/api/agent"), SseClient.userMessage("Hello"));

            assertThat(events).extracting(SseClient.Event::type).containsExactly("text", "text", "tool-call", "tool-result", "error");
            assertThat(events.get(3).data().path("exitCode").asInt()).isEqualTo(130);
            assertThat(events.getLast().text("code")).isEqualTo("provider_stream_error");
            assertThat(events.getLast().text("message")).contains("upstream overloaded");
            assertThat(server.skills.list()).isEmpty();
        }
    }

    @Test
    void streamThatEndsWithoutDoneIsReportedAsIncomplete(@TempDir Path data) throws Exception {
        SimReply cut = SimReply.of("Half an ", "answer").withFault(new SimReply.Truncate(1));
        try (ServerHarness server = new ServerHarness(data, new SimScript(cut))) {
            List<SseClient.Event> events = SseClient.postForEvents(server.url("/api/agent"), SseClient.userMessage("Hello"));

            assertThat(events).extracting(SseClient.Event::type).containsExactly("text", "error");
            assertThat(events.getLast().text("code")).isEqualTo("provider_stream_truncated");
        }
    }

    @Test
    void overloadedProviderIsRetriedBeforeAnythingReachedTheClient(@TempDir Path data) throws Exception {
        SimReply busy = SimReply.of().withFault(new SimReply.HttpError(503, "overloaded", "0"));
        try (ServerHarness server = new ServerHarness(data, new SimScript(busy, busy, SimReply.of("Hi there.")))) {
            List<SseClient.Event> events = SseClient.postForEvents(server.url("/api/agent"), SseClient.userMessage("Hello"));

            assertThat(events).extracting(SseClient.Event::type).containsExactly("text", "raw-content", "usage", "iteration-end", "done");
            assertThat(server.sim.requests()).hasSize(3);
            assertThat(server.sim.requests()).extracting(r -> r.body()).containsOnly(server.sim.requests().getFirst().body());
        }
    }

    @Test
    void stalledProviderTimesOutWithAClearError(@TempDir Path data) throws Exception {
        SimReply stalled = SimReply.of("Starting").withFault(new SimReply.Silence(1, Duration.ofSeconds(5)));
        try (ServerHarness server = ServerHarness.builder(data, new SimScript(stalled)).providerTimeout(Duration.ofSeconds(1))
                .retry(new RetryPolicy(0, Duration.ZERO, Duration.ZERO)).start()) {
            List<SseClient.Event> events = SseClient.postForEvents(server.url("/api/agent"), SseClient.userMessage("Hello"));

            assertThat(events).extracting(SseClient.Event::type).containsExactly("text", "error");
            assertThat(events.getLast().text("code")).isEqualTo("provider_timeout");
        }
    }
}
