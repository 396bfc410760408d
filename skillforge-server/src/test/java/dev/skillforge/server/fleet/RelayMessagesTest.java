package dev.skillforge.server.fleet;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Events cut into notifications under PostgreSQL's payload limit, and put together again. */
class RelayMessagesTest {

    /** PostgreSQL refuses a payload of this many bytes or more. */
    private static final int POSTGRES_LIMIT = 8000;

    @Test
    void partsStayUnderTheLimitAndNeverCutACharacter() {
        String text = "a" + "€".repeat(10) + "😀".repeat(10);
        List<String> parts = RelayMessages.parts(text, 7);
        assertThat(String.join("", parts)).isEqualTo(text);
        assertThat(parts).allSatisfy(part -> {
            assertThat(part.getBytes(StandardCharsets.UTF_8).length).isBetween(1, 7);
            assertThat(Character.isHighSurrogate(part.charAt(part.length() - 1))).isFalse();
        });
        assertThat(RelayMessages.parts("", 7)).containsExactly("");
    }

    @Test
    void aLongEventCrossesInSeveralNotificationsAndIsPutTogetherOnce() {
        String json = "{\"type\":\"text\",\"content\":\"" + "ü😀x".repeat(5_000) + "\"}";
        List<String> messages = RelayMessages.frame(7, 42, json);
        assertThat(messages).hasSizeGreaterThan(1)
                .allSatisfy(message -> assertThat(message.getBytes(StandardCharsets.UTF_8).length).isLessThan(POSTGRES_LIMIT));

        RelayMessages.Assembly assembly = new RelayMessages.Assembly();
        Optional<RemoteRun.Frame> frame = Optional.empty();
        for (String message : messages) {
            RelayMessages.Received received = RelayMessages.Received.parse(message).orElseThrow();
            assertThat(received.stream()).isEqualTo(7);
            assertThat(frame).as("whole only with its last part").isEmpty();
            frame = assembly.add(received.body());
        }
        assertThat(frame).contains(new RemoteRun.Frame(42, json));
    }

    @Test
    void whatIsNoRelaysMessageIsDroppedAndAFrameCutShortIsNotGluedToTheNext() {
        assertThat(RelayMessages.Received.parse("hello")).isEmpty();
        assertThat(RelayMessages.Received.parse("x hello")).isEmpty();
        assertThat(RelayMessages.Received.parse("3 hello")).contains(new RelayMessages.Received(3, "hello"));

        RelayMessages.Assembly assembly = new RelayMessages.Assembly();
        assertThat(assembly.add("frame 1 1/2 {\"half\":")).isEmpty();
        assertThat(assembly.add("frame 2 1/1 {}")).contains(new RemoteRun.Frame(2, "{}"));
        assertThat(assembly.add("frame x 1/1 {}")).isEmpty();
        assertThat(assembly.add("frame 3 one {}")).isEmpty();
    }
}
