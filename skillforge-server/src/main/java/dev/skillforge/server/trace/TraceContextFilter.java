package dev.skillforge.server.trace;

import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;

import java.io.IOException;
import java.util.Collections;

/**
 * Makes the trace a request names ({@code traceparent}, W3C Trace Context) current while the server handles it,
 * so a turn it starts is a child of the caller's span. A request without one starts no trace of its own here.
 */
final class TraceContextFilter implements Filter {

    private static final TextMapGetter<HttpServletRequest> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(HttpServletRequest request) {
            return Collections.list(request.getHeaderNames());
        }

        @Override
        public String get(HttpServletRequest request, String name) {
            return request == null ? null : request.getHeader(name);
        }
    };

    private final TextMapPropagator propagator;

    TraceContextFilter(TextMapPropagator propagator) {
        this.propagator = propagator;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        Context parent = propagator.extract(Context.root(), (HttpServletRequest) request, HEADERS);
        try (Scope ignored = parent.makeCurrent()) {
            chain.doFilter(request, response);
        }
    }
}
