package dev.skillforge.server.http;

import dev.skillforge.core.agent.TurnLimits;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.SseClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The thread that adds a run's events writes them to the clients that follow it (SseFollower): a client that stops reading
 * must hold up neither the run nor another client, over a real connection whose buffers fill.
 */
class SlowFollowerTest {

    /** 6 MiB of answer: far more than the kernel buffers between the server and a client that reads nothing. */
    private static final int CHUNKS = 192;
    private static final String CHUNK = "x".repeat(32 * 1024);

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aClientThatStopsReadingHoldsUpNeitherTheRunNorAnotherClient(@TempDir Path data) throws Exception {
        try (ServerHarness server = ServerHarness.builder(data,
                        new SimScript(SimReply.of(Collections.nCopies(CHUNKS, CHUNK).toArray(String[]::new))))
                .turnLimits(TurnLimits.DEFAULT.withMaxAnswerChars(2 * CHUNKS * CHUNK.length())).start()) {
            String id = SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();

            try (Socket stalled = new Socket()) {
                stalled.setReceiveBufferSize(4096); // before connecting: the window stays small
                stalled.connect(new InetSocketAddress("127.0.0.1", server.server.port()));
                byte[] body = "{\"content\":\"Write a lot\"}".getBytes(StandardCharsets.UTF_8);
                stalled.getOutputStream().write(("POST /api/conversations/" + id + "/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Content-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: " + body.length + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                stalled.getOutputStream().write(body);
                stalled.getOutputStream().flush();
                InputStream stalledIn = stalled.getInputStream();
                assertThat(stalledIn.read()).as("the turn started: its stream answered").isNotNegative();
                // From here on the stalled client reads nothing.

                List<SseClient.Event> events = SseClient.getEvents(server.url("/api/conversations/" + id + "/events"), 0L);

                assertThat(events.getLast().type()).as("another client followed the run to its end: %s", events.getLast().data()).isEqualTo("done");
                int text = events.stream().filter(e -> e.type().equals("text")).mapToInt(e -> e.text("content").length()).sum();
                assertThat(text).as("every chunk, none lost").isEqualTo(CHUNKS * CHUNK.length());
                var stored = SseClient.get(server.url("/api/conversations/" + id)).json();
                assertThat(stored.path("turns").get(0).path("status").asText())
                        .as("the run finished and was stored while the first client read nothing").isEqualTo("complete");
                assertThat(stored.path("entries").get(1).path("content").asText()).hasSize(CHUNKS * CHUNK.length());
            }
        }
    }
}
