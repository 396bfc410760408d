package dev.skillforge.server.provider;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.agent.ModelStreamListener;
import dev.skillforge.core.agent.ProviderException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LoggedFailuresTest {

    private static final ModelCall CALL = new ModelCall("system", List.of(), "conversation-7");
    private static final ModelStreamListener NO_OUTPUT = IgnoredOutput.INSTANCE;

    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(LoggedFailures.class);

    @BeforeEach
    void capture() {
        lines.start();
        logger.addAppender(lines);
    }

    @AfterEach
    void release() {
        logger.detachAppender(lines);
    }

    @Test
    void anUnexpectedExceptionIsLoggedWithItsStackAndPassedOnUnchanged() {
        IllegalStateException bug = new IllegalStateException();
        ModelProvider failing = (call, listener, cancellation) -> {
            throw bug;
        };

        assertThatThrownBy(() -> new LoggedFailures(failing, "openai").stream(CALL, NO_OUTPUT, new Cancellation())).isSameAs(bug);

        assertThat(lines.list).singleElement().satisfies(line -> {
            assertThat(line.getFormattedMessage()).isEqualTo("The provider openai failed unexpectedly in iteration 0 of conversation conversation-7");
            assertThat(line.getThrowableProxy().getClassName()).isEqualTo(IllegalStateException.class.getName());
            assertThat(line.getThrowableProxy().getStackTraceElementProxyArray()).isNotEmpty();
        });
    }

    @Test
    void aProviderErrorAndAFailureAfterAStopAreNotLogged() {
        ProviderException refused = new ProviderException("provider_http_error", "The provider answered HTTP 401");
        ModelProvider refusing = (call, listener, cancellation) -> {
            throw refused;
        };
        assertThatThrownBy(() -> new LoggedFailures(refusing, "openai").stream(CALL, NO_OUTPUT, new Cancellation())).isSameAs(refused);

        Cancellation stopped = new Cancellation();
        stopped.cancel("stopped");
        ModelProvider brokenByTheStop = (call, listener, cancellation) -> {
            throw new IllegalStateException("closed");
        };
        assertThatThrownBy(() -> new LoggedFailures(brokenByTheStop, "openai").stream(CALL, NO_OUTPUT, stopped))
                .isInstanceOf(IllegalStateException.class);

        assertThat(lines.list).isEmpty();
    }
}
