package dev.skillforge.server.provider;

import dev.skillforge.core.agent.ProviderException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SseEventDataTest {

    private final List<String> received = new ArrayList<>();
    private final SseEventData events = new SseEventData(data -> received.add(data) && !data.equals("[DONE]"), Duration.ofSeconds(30));

    @Test
    void anEventOfManyDataLinesPastTheCapIsRefused() {
        String megabyte = "data: " + "x".repeat(1024 * 1024);

        assertThatThrownBy(() -> feed(megabyte, megabyte, megabyte, megabyte, megabyte, ""))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.code()).isEqualTo("provider_event_too_long"))
                .hasMessage("The provider sent an event of more than 4194304 characters of data, the most this server reads"
                        + " as one event: the stream was closed");
        assertThat(received).isEmpty();
    }

    @Test
    void anEventJustUnderTheCapIsJoinedWholeAndTheLastOneGivenAtTheBodysEnd() throws Exception {
        String part = "x".repeat(1024 * 1024);
        feed("data: " + part, "data:" + part, ": keep-alive", "data: " + part, "", "data: next");
        assertThat(received).containsExactly(part + "\n" + part + "\n" + part);

        assertThat(events.end()).isTrue();
        assertThat(received).containsExactly(part + "\n" + part + "\n" + part, "next");
    }

    @Test
    void theListenerSaysWhenTheStreamIsComplete() throws Exception {
        assertThat(events.accept("data: {}")).isTrue();
        assertThat(events.accept("")).isTrue();
        assertThat(events.accept("data: [DONE]")).isTrue();
        assertThat(events.accept("")).isFalse();
        assertThat(received).containsExactly("{}", "[DONE]");
    }

    @Test
    void blankLinesWithoutAnEventAreKeepAlivesTooAndCountNoProgress() throws Exception {
        SseEventData impatient = new SseEventData(received::add, Duration.ZERO); // any time since the last data is too long

        assertThatThrownBy(() -> impatient.accept(""))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.code()).isEqualTo("provider_timeout"))
                .hasMessage("The provider sent only keep-alives for 0 s: no data");
        SseEventData patient = new SseEventData(received::add, Duration.ofDays(1));
        patient.accept("data: one");
        assertThat(patient.accept("")).isTrue(); // a blank line that ends an event is not a keep-alive
        assertThat(received).containsExactly("one");
    }

    private void feed(String... lines) throws ProviderException {
        for (String line : lines) {
            events.accept(line);
        }
    }
}
