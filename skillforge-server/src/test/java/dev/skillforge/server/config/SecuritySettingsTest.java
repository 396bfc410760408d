package dev.skillforge.server.config;

import dev.skillforge.server.http.ConnectionLimits;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The connection settings from the environment: defaults, values, and wrong values named. */
class SecuritySettingsTest {

    @Test
    void connectionLimitsComeFromTheEnvironmentWithSensibleDefaults() {
        ConnectionLimits defaults = SecuritySettings.from(Map.of()).connections();
        assertThat(defaults).isEqualTo(ConnectionLimits.DEFAULT);
        assertThat(defaults.maxPerClient()).isEqualTo(100);
        assertThat(defaults.headerTimeout()).isEqualTo(Duration.ofSeconds(10));

        ConnectionLimits set = SecuritySettings.from(Map.of("FORGE_IDLE_TIMEOUT_SECONDS", "4", "FORGE_MAX_CONNECTIONS_PER_CLIENT", "1000"))
                .connections();
        assertThat(set.idleTimeout()).isEqualTo(Duration.ofSeconds(4));
        assertThat(set.headerTimeout()).as("never longer than the idle timeout").isEqualTo(Duration.ofSeconds(4));
        assertThat(set.maxPerClient()).isEqualTo(1000);
        assertThat(set.max()).isEqualTo(ConnectionLimits.DEFAULT_MAX_CONNECTIONS);

        ConnectionLimits fewer = SecuritySettings.from(Map.of("FORGE_MAX_CONNECTIONS", "50")).connections();
        assertThat(fewer.max()).isEqualTo(50);
        assertThat(fewer.maxPerClient()).as("a client's share never above the whole").isEqualTo(50);
        assertThatThrownBy(() -> SecuritySettings.from(Map.of("FORGE_MAX_CONNECTIONS", "50", "FORGE_MAX_CONNECTIONS_PER_CLIENT", "51")))
                .hasMessageStartingWith("FORGE_MAX_CONNECTIONS_PER_CLIENT=51");
        assertThatThrownBy(() -> SecuritySettings.from(Map.of("FORGE_MAX_CONNECTIONS", "0"))).hasMessageStartingWith("FORGE_MAX_CONNECTIONS=0");

        for (String wrong : new String[]{"0", "2001", "-1", "many"}) {
            assertThatThrownBy(() -> SecuritySettings.from(Map.of("FORGE_MAX_CONNECTIONS_PER_CLIENT", wrong)))
                    .hasMessageStartingWith("FORGE_MAX_CONNECTIONS_PER_CLIENT=" + wrong);
        }
    }
}
