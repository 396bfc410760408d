package dev.skillforge.server.config;

import dev.skillforge.core.agent.TurnLimits;
import dev.skillforge.server.conversation.ConversationTimings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The limits of one turn and the conversation layer's timings, read from {@code FORGE_*} variables and checked at start. */
class SettingsTest {

    @TempDir
    Path data;

    @Test
    void withoutSettingsATurnHasTheDefaultLimits() {
        assertThat(Settings.from(env(Map.of())).turnLimits()).isEqualTo(TurnLimits.DEFAULT)
                .isEqualTo(new TurnLimits(10, 1_000_000, 50));
    }

    @Test
    void theTurnLimitsAreRead() {
        Settings settings = Settings.from(env(Map.of("FORGE_MAX_ITERATIONS", "4", "FORGE_MAX_ANSWER_CHARS", "200000",
                "FORGE_MAX_COMMANDS_PER_TURN", "12")));

        assertThat(settings.turnLimits()).isEqualTo(new TurnLimits(4, 200_000, 12));
        assertThat(settings.toString()).contains("turnLimits=TurnLimits[maxIterations=4, maxAnswerChars=200000, maxCommands=12]");
    }

    @Test
    void aLimitOutOfRangeStopsTheStartNamingItsVariable() {
        assertThatThrownBy(() -> Settings.from(env(Map.of("FORGE_MAX_COMMANDS_PER_TURN", "0"))))
                .hasMessage("FORGE_MAX_COMMANDS_PER_TURN=0 is out of range: use 1 to 10000");
        assertThatThrownBy(() -> Settings.from(env(Map.of("FORGE_MAX_ANSWER_CHARS", "999"))))
                .hasMessage("FORGE_MAX_ANSWER_CHARS=999 is out of range: use 1000 to 100000000");
        assertThatThrownBy(() -> Settings.from(env(Map.of("FORGE_MAX_ANSWER_CHARS", "a lot"))))
                .hasMessage("FORGE_MAX_ANSWER_CHARS=a lot is not a whole number");
    }

    @Test
    void withoutSettingsTheConversationTimingsAreTheDefaults() {
        assertThat(Settings.from(env(Map.of())).conversationTimings()).isEqualTo(ConversationTimings.DEFAULTS);
    }

    @Test
    void theConversationTimingsAreRead() {
        ConversationTimings timings = Settings.from(env(Map.of("FORGE_LEASE_SECONDS", "3", "FORGE_HANDOVER_WAIT_MILLIS", "0",
                "FORGE_HOT_IDLE_SECONDS", "60", "FORGE_MAX_HOT_CONVERSATIONS", "20", "FORGE_STORE_WAIT_MILLIS", "500",
                "FORGE_SHUTDOWN_FLUSH_SECONDS", "30", "FORGE_SHUTDOWN_GRACE_SECONDS", "0"))).conversationTimings();

        assertThat(timings.leaseTtl()).isEqualTo(Duration.ofSeconds(3));
        assertThat(timings.leaseRenewal()).isEqualTo(Duration.ofMillis(200));
        assertThat(timings.handoverWait()).isZero();
        assertThat(timings.idleEviction()).isEqualTo(Duration.ofMinutes(1));
        assertThat(timings.maxHot()).isEqualTo(20);
        assertThat(timings.storeWait()).isEqualTo(Duration.ofMillis(500));
        assertThat(timings.shutdownFlush()).isEqualTo(Duration.ofSeconds(30));
        assertThat(timings.shutdownGrace()).as("no grace: a stop cancels running turns at once").isZero();
        // A lease of one second is renewed five times within it.
        assertThat(Settings.from(env(Map.of("FORGE_LEASE_SECONDS", "1"))).conversationTimings().leaseRenewal())
                .isEqualTo(Duration.ofMillis(200));
        assertThatThrownBy(() -> Settings.from(env(Map.of("FORGE_MAX_HOT_CONVERSATIONS", "0"))))
                .hasMessage("FORGE_MAX_HOT_CONVERSATIONS=0 is out of range: use 1 to 1000000");
    }

    private Map<String, String> env(Map<String, String> values) {
        Map<String, String> env = new HashMap<>(values);
        env.put("FORGE_DATA_DIR", data.toString());
        return env;
    }
}
