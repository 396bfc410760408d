package dev.skillforge.server.http;

import dev.skillforge.server.web.Servers;
import io.javalin.Javalin;
import io.javalin.http.Context;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.AbstractEndPoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A request's watch on its client, on a real Jetty over raw sockets on 127.0.0.1: a client that closes its connection
 * while its request is worked on is noticed at once, and one that stays is not, and its connection serves the next
 * request as usual once the watch is closed; a wake-up without data is not a close, and a client that sends its next
 * request early is still there.
 */
class ClientWatchTest {

    private Javalin server;
    private final BlockingQueue<String> seen = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> watching = new LinkedBlockingQueue<>();

    @BeforeEach
    void start() {
        server = Servers.start("127.0.0.1", 0, config -> config.routes.post("/work", ctx -> {
            String body = new String(ctx.req().getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            long waitMillis = Long.parseLong(ctx.queryParam("millis"));
            try (ClientWatch watch = ClientWatch.start(ctx)) {
                if (ctx.queryParam("wake") != null) {
                    wakeWithNothingToRead(ctx);
                }
                watching.add(body);
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
                while (!watch.gone().isCancelled() && System.nanoTime() < end) {
                    Thread.sleep(10); // stands for the work: reading the attachments
                }
                seen.add(body + ": " + (watch.gone().isCancelled() ? watch.gone().reason() : "still here"));
            }
            ctx.result("read " + body);
        }));
    }

    /** What Jetty's selector may do without data (its connections read nothing then and wait again): call the watch. */
    private static void wakeWithNothingToRead(Context ctx) {
        ServletContextRequest request = ServletContextRequest.getServletContextRequest(ctx.req());
        ((AbstractEndPoint) request.getConnectionMetaData().getConnection().getEndPoint()).getFillInterest().fillable();
    }

    @AfterEach
    void stop() {
        Servers.stop(server, "the test server");
    }

    @Test
    void aClientThatClosesItsConnectionIsNoticedWhileItsRequestIsWorkedOn() throws Exception {
        try (Socket client = new Socket("127.0.0.1", server.port())) {
            send(client.getOutputStream(), "/work?millis=30000", "first");
        }

        assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo("first: the client closed the connection");
    }

    @Test
    void aClientThatWaitsIsNotTakenForGoneAndItsConnectionServesTheNextRequest() throws Exception {
        try (Socket client = new Socket("127.0.0.1", server.port())) {
            BufferedReader answers = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
            for (String body : new String[]{"one", "two"}) {
                send(client.getOutputStream(), "/work?millis=300", body);

                assertThat(answer(answers)).isEqualTo("read " + body);
                assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo(body + ": still here");
            }
        }
    }

    @Test
    void aWakeUpWithNothingToReadIsNotTakenForGoneAndAClosingClientIsStillNoticed() throws Exception {
        try (Socket client = new Socket("127.0.0.1", server.port())) {
            BufferedReader answers = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
            send(client.getOutputStream(), "/work?millis=300&wake", "woken");

            assertThat(answer(answers)).isEqualTo("read woken");
            assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo("woken: still here");

            send(client.getOutputStream(), "/work?millis=30000&wake", "woken again");
            assertThat(watching.poll(10, TimeUnit.SECONDS)).isEqualTo("woken");
            assertThat(watching.poll(10, TimeUnit.SECONDS)).as("woken for nothing before the client leaves").isEqualTo("woken again");
        }
        assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo("woken again: the client closed the connection");
    }

    @Test
    void aClientThatSendsItsNextRequestEarlyIsStillThereAndTheConnectionClosesAfterTheAnswer() throws Exception {
        try (Socket client = new Socket("127.0.0.1", server.port())) {
            BufferedReader answers = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
            send(client.getOutputStream(), "/work?millis=1000", "first");
            assertThat(watching.poll(10, TimeUnit.SECONDS)).as("the first is worked on, its watch on").isEqualTo("first");
            send(client.getOutputStream(), "/work?millis=0", "second");

            assertThat(answer(answers)).isEqualTo("read first");
            assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo("first: still here");
            assertThat(answers.read()).as("the connection closes: the client sends its second request again").isEqualTo(-1);
        }
        assertThat(seen.poll(200, TimeUnit.MILLISECONDS)).as("a request whose first byte the watch read is not worked on").isNull();
    }

    private static void send(OutputStream out, String path, String body) throws IOException {
        out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: " + body.length()
                + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** The body of one HTTP/1.1 answer with a Content-Length. */
    private static String answer(BufferedReader in) throws IOException {
        int length = -1;
        for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
            if (line.toLowerCase().startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).strip());
            }
        }
        char[] body = new char[length];
        int read = 0;
        while (read < length) {
            read += in.read(body, read, length - read);
        }
        return new String(body);
    }
}
