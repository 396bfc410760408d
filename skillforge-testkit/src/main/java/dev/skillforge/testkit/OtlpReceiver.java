package dev.skillforge.testkit;

import com.google.protobuf.InvalidProtocolBufferException;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.skillforge.server.trace.Tracing;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real OTLP/HTTP trace receiver on a loopback port: it takes {@code POST /v1/traces} as a collector does
 * ({@code application/x-protobuf}), decodes each export with the OpenTelemetry proto classes and keeps its spans
 * (with their resource's attributes and the request's headers), answering an empty export response. Anything else
 * gets a 404 or 415, so a wrong exporter setting shows as no spans.
 */
public final class OtlpReceiver implements AutoCloseable {

    /** One received span, its ids in hex as a backend shows them and its attributes as plain Java values. */
    public record ReceivedSpan(String traceId, String spanId, String parentSpanId, String name, int kind, long startNanos, long endNanos,
                               Map<String, Object> attributes, List<Event> events, int statusCode, String statusMessage,
                               Map<String, Object> resource) {

        public Object attribute(String key) {
            return attributes.get(key);
        }

        public boolean isRoot() {
            return parentSpanId.isEmpty();
        }
    }

    /** A span event: its name and attributes. */
    public record Event(String name, Map<String, Object> attributes) {
    }

    private final HttpServer server;
    private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();
    private final List<Map<String, List<String>>> headers = new CopyOnWriteArrayList<>();
    private final AtomicLong exports = new AtomicLong();

    private OtlpReceiver(HttpServer server) {
        this.server = server;
    }

    public static OtlpReceiver start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        OtlpReceiver receiver = new OtlpReceiver(server);
        server.createContext("/", receiver::handle);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
        return receiver;
    }

    /** The endpoint for {@code OTEL_EXPORTER_OTLP_ENDPOINT} (the exporter adds {@code /v1/traces}). */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The server's tracing exporting here at once (a short batch delay), with {@code more} variables besides. */
    public Tracing tracing(Map<String, String> more) {
        Map<String, String> env = new LinkedHashMap<>(more);
        env.put("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint());
        env.putIfAbsent("OTEL_BSP_SCHEDULE_DELAY", "50");
        return Tracing.fromEnvironment(env);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream body = exchange.getRequestBody()) {
            byte[] bytes = body.readAllBytes();
            if (!"POST".equals(exchange.getRequestMethod()) || !"/v1/traces".equals(exchange.getRequestURI().getPath())) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            String type = exchange.getRequestHeaders().getFirst("Content-Type");
            if (type == null || !type.startsWith("application/x-protobuf")) {
                exchange.sendResponseHeaders(415, -1);
                return;
            }
            try {
                keep(ExportTraceServiceRequest.parseFrom(bytes));
            } catch (InvalidProtocolBufferException e) {
                exchange.sendResponseHeaders(400, -1);
                return;
            }
            headers.add(Map.copyOf(exchange.getRequestHeaders()));
            exports.incrementAndGet();
            byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
            exchange.getResponseBody().write(answer);
        }
    }

    private void keep(ExportTraceServiceRequest request) {
        HexFormat hex = HexFormat.of();
        for (ResourceSpans resourceSpans : request.getResourceSpansList()) {
            Map<String, Object> resource = attributes(resourceSpans.getResource());
            for (ScopeSpans scope : resourceSpans.getScopeSpansList()) {
                for (var span : scope.getSpansList()) {
                    List<Event> events = span.getEventsList().stream().map(e -> new Event(e.getName(), attributes(e.getAttributesList()))).toList();
                    spans.add(new ReceivedSpan(hex.formatHex(span.getTraceId().toByteArray()), hex.formatHex(span.getSpanId().toByteArray()),
                            hex.formatHex(span.getParentSpanId().toByteArray()), span.getName(), span.getKindValue(),
                            span.getStartTimeUnixNano(), span.getEndTimeUnixNano(), attributes(span.getAttributesList()), events,
                            span.getStatus().getCodeValue(), span.getStatus().getMessage(), resource));
                }
            }
        }
    }

    private static Map<String, Object> attributes(Resource resource) {
        return attributes(resource.getAttributesList());
    }

    private static Map<String, Object> attributes(List<KeyValue> list) {
        Map<String, Object> out = new LinkedHashMap<>();
        list.forEach(kv -> out.put(kv.getKey(), value(kv.getValue())));
        return out;
    }

    private static Object value(AnyValue value) {
        return switch (value.getValueCase()) {
            case STRING_VALUE -> value.getStringValue();
            case INT_VALUE -> value.getIntValue();
            case DOUBLE_VALUE -> value.getDoubleValue();
            case BOOL_VALUE -> value.getBoolValue();
            case ARRAY_VALUE -> value.getArrayValue().getValuesList().stream().map(OtlpReceiver::value).toList();
            default -> value.toString();
        };
    }

    /** Every span received so far, in arrival order. */
    public List<ReceivedSpan> spans() {
        return List.copyOf(spans);
    }

    /** The headers of every export request received. */
    public List<Map<String, List<String>>> requestHeaders() {
        return List.copyOf(headers);
    }

    /** How many export requests were decoded. */
    public long exports() {
        return exports.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
