package dev.skillforge.server.provider;

import dev.skillforge.core.agent.ProviderException;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SseDataReaderTest {

    @Test
    void anEventOfManyDataLinesPastTheCapIsRefused() {
        String megabyte = "data: " + "x".repeat(1024 * 1024);
        SseDataReader reader = reader(List.of(megabyte, megabyte, megabyte, megabyte, megabyte, ""));

        assertThatThrownBy(reader::next)
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.code()).isEqualTo("provider_event_too_long"))
                .hasMessage("The provider sent an event of more than 4194304 characters of data, the most this server reads"
                        + " as one event: the stream was closed");
    }

    @Test
    void anEventJustUnderTheCapIsJoinedWhole() throws Exception {
        String part = "x".repeat(1024 * 1024);
        SseDataReader reader = reader(List.of("data: " + part, "data:" + part, ": keep-alive", "data: " + part, "", "data: next"));

        assertThat(reader.next()).isEqualTo(part + "\n" + part + "\n" + part);
        assertThat(reader.next()).isEqualTo("next");
        assertThat(reader.next()).isNull();
    }

    private static SseDataReader reader(List<String> lines) {
        Deque<String> left = new ArrayDeque<>(lines);
        return new SseDataReader(left::poll);
    }
}
