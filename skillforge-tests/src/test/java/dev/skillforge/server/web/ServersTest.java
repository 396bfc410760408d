package dev.skillforge.server.web;

import io.javalin.Javalin;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The connector {@link Servers} gives Jetty in place of Javalin's: on the host asked for only, the kernel's queue of
 * connections not yet accepted long enough for a burst, and a response's held buffer in another bucket of the pool
 * than the small ones every write takes.
 */
class ServersTest {

    private Javalin app;

    @AfterEach
    void stop() {
        Servers.stop(app, "the test server");
    }

    @Test
    void oneConnectorListensOnTheHostAskedForWithALongAcceptQueueAndAnswers() throws Exception {
        app = Servers.start("127.0.0.1", 0, config -> config.routes.get("/hello", ctx -> ctx.result("hello")));

        Connector[] connectors = app.jettyServer().server().getConnectors();
        assertThat(connectors).hasSize(1);
        ServerConnector connector = (ServerConnector) connectors[0];
        assertThat(connector.getHost()).isEqualTo("127.0.0.1");
        assertThat(connector.getLocalPort()).isEqualTo(app.port()).isPositive();
        assertThat(connector.getAcceptQueueSize()).isEqualTo(Servers.ACCEPT_QUEUE);
        HttpResponse<String> answer = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/hello")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.body()).isEqualTo("hello");
    }

    @Test
    void aChunkHeadersBufferComesFromAnotherBucketThanAResponsesBuffer() {
        app = Servers.start("127.0.0.1", 0, config -> { });
        ByteBufferPool pool = app.jettyServer().server().getConnectors()[0].getByteBufferPool();

        RetainableByteBuffer chunkHeader = pool.acquire(12, true);
        RetainableByteBuffer response = pool.acquire(Servers.OUTPUT_BUFFER, true);
        try {
            assertThat(chunkHeader.capacity()).isLessThan(Servers.OUTPUT_BUFFER);
            assertThat(response.capacity()).isEqualTo(Servers.OUTPUT_BUFFER);
        } finally {
            chunkHeader.release();
            response.release();
        }
    }
}
