package dev.skillforge.server.mcp;

import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.server.provider.sim.SimProviderServer;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpClientTransport;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The MCP contract over Streamable HTTP: the SDK's servlet at {@code /mcp} inside Javalin's Jetty,
 * reached by the SDK's HTTP client; the HTTP API is the same server.
 */
class HttpMcpDoorTest extends McpDoorContract {

    private ServerHarness server;

    @Override
    protected void startServer() throws Exception {
        Path data = Files.createTempDirectory("mcp-http");
        server = new ServerHarness(data, responder);
    }

    @Override
    protected void stopServer() throws Exception {
        server.close();
    }

    @Override
    protected McpClientTransport clientTransport() {
        return HttpClientStreamableHttpTransport.builder(server.url("")).endpoint(McpHttpDoor.PATH).build();
    }

    @Override
    protected SimProviderServer sim() {
        return server.sim;
    }

    @Override
    protected String apiUrl(String path) {
        return server.url(path);
    }

    @Override
    protected String defaultProvider() {
        return "sim";
    }

    @Override
    protected String configuredProviders() {
        return "sim, " + ServerHarness.OTHER_PROVIDER;
    }
}
