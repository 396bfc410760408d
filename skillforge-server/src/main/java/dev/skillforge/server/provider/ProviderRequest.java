package dev.skillforge.server.provider;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A POST to a provider: where, which headers (in order), and the body's bytes (sent as they are: the byte-exact
 * request the cache guard checked). Built with {@link ProviderCalls#post}; sent by {@link StreamingHttp#open}.
 *
 * @param headers name and value pairs, in the order they are sent
 */
public record ProviderRequest(URI uri, List<Header> headers, byte[] body) {

    /** One request header. */
    public record Header(String name, String value) {
    }

    public ProviderRequest {
        Objects.requireNonNull(uri, "uri");
        headers = List.copyOf(headers);
        Objects.requireNonNull(body, "body");
    }

    /** The value of the first header of that name (case-insensitive), or {@code null}. */
    public String header(String name) {
        return headers.stream().filter(h -> h.name().equalsIgnoreCase(name)).map(Header::value).findFirst().orElse(null);
    }

    /** Collects headers, then {@link #build()}. */
    public static final class Builder {
        private final URI uri;
        private final byte[] body;
        private final List<Header> headers = new ArrayList<>();

        Builder(URI uri, byte[] body) {
            this.uri = uri;
            this.body = body;
        }

        public Builder header(String name, String value) {
            headers.add(new Header(name, value));
            return this;
        }

        public ProviderRequest build() {
            return new ProviderRequest(uri, headers, body);
        }
    }
}
