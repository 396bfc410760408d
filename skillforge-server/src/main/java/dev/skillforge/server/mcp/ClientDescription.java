package dev.skillforge.server.mcp;

import dev.skillforge.core.transcript.StorableText;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * What a session keeps of the client that opened it, bounded: a session lives until it has been idle for minutes, and
 * its client's {@code initialize} may describe itself at any length (8 MB names were kept, and logged, whole). Kept:
 * the protocol version, and the name, title and version of {@code clientInfo}, each cut to {@value #MAX_CHARS}
 * characters; the client's capabilities for roots, sampling and elicitation. Dropped: descriptions, icons, web sites,
 * {@code experimental} and {@code extensions} capabilities and {@code _meta}, none of which the server reads.
 */
final class ClientDescription {

    static final int MAX_CHARS = 200;

    private ClientDescription() {
    }

    static McpSchema.InitializeRequest bounded(McpSchema.InitializeRequest request) {
        McpSchema.Implementation client = request.clientInfo();
        McpSchema.ClientCapabilities can = request.capabilities();
        return new McpSchema.InitializeRequest(cut(request.protocolVersion()),
                new McpSchema.ClientCapabilities(null, can.roots(), can.sampling(), can.elicitation(), null),
                new McpSchema.Implementation(cut(client.name()), cut(client.title()), cut(client.version())), null);
    }

    private static String cut(String text) {
        return text == null ? null : StorableText.abbreviate(text, MAX_CHARS);
    }
}
