package dev.skillforge.server;

import dev.skillforge.server.provider.ProviderPreset;
import dev.skillforge.server.provider.WireAdapter;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** The composition root's registry of wire formats. */
class ProviderFactoryTest {

    @Test
    void everyWireFormatButTheSimulationHasExactlyOneAdapter() {
        ProviderPreset.Wire[] formats = Arrays.stream(ProviderPreset.Wire.values())
                .filter(wire -> wire != ProviderPreset.Wire.SIM).toArray(ProviderPreset.Wire[]::new);

        assertThat(ProviderFactory.ADAPTERS).extracting(WireAdapter::wire).containsExactlyInAnyOrder(formats);
    }
}
