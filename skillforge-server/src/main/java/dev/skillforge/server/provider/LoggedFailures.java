package dev.skillforge.server.provider;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ModelStreamListener;
import dev.skillforge.core.agent.ProviderException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;

/**
 * A provider whose unexpected failures (any exception but a {@link ProviderException}: a bug here or in a library)
 * are logged with their stack trace. The client is told only the exception's class ("The model provider failed
 * unexpectedly (…)"), which is not enough to find the cause: an {@code IllegalStateException} that failed turns in
 * CI could be traced only by reading Jetty's byte code. Passes everything through unchanged.
 */
public final class LoggedFailures implements ModelProvider {

    private static final Logger log = LoggerFactory.getLogger(LoggedFailures.class);

    private final ModelProvider delegate;
    private final String provider;

    public LoggedFailures(ModelProvider delegate, String provider) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.provider = Objects.requireNonNull(provider, "provider");
    }

    @Override
    public ModelReply stream(ModelCall call, ModelStreamListener listener, Cancellation cancellation) throws ProviderException {
        try {
            return delegate.stream(call, listener, cancellation);
        } catch (RuntimeException e) {
            if (!cancellation.isCancelled()) {
                log.error("The provider {} failed unexpectedly in iteration {} of conversation {}", provider, call.iteration(),
                        call.cacheKey(), e);
            }
            throw e;
        }
    }
}
