package dev.skillforge.server.config;

import dev.skillforge.server.config.DataDirectory.Origin;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Where the data folder is: FORGE_DATA_DIR when set, else beside the installation the launcher names. */
class DataDirectoryTest {

    private static final Path WORKING_FOLDER = Path.of("").toAbsolutePath();

    @Test
    void withoutFORGE_DATA_DIRTheDataFolderIsBesideTheInstallationWhateverTheWorkingFolder() {
        DataDirectory data = DataDirectory.from(Map.of(), "/opt/skillforge");

        assertThat(data.path()).isEqualTo(Path.of("/opt/skillforge/data"));
        assertThat(data.origin()).isEqualTo(Origin.INSTALLATION);
        assertThat(data.describe()).isEqualTo("/opt/skillforge/data (beside the installation; FORGE_DATA_DIR to choose another)");
        assertThat(data.warning()).isEmpty();
        assertThat(DataDirectory.from(Map.of("FORGE_DATA_DIR", " "), "/opt/skillforge")).as("blank is unset").isEqualTo(data);
    }

    @Test
    void anAbsoluteFORGE_DATA_DIRWinsWithoutAWarning() {
        DataDirectory data = DataDirectory.from(Map.of("FORGE_DATA_DIR", "/var/lib/skillforge"), "/opt/skillforge");

        assertThat(data).isEqualTo(new DataDirectory(Path.of("/var/lib/skillforge"), Origin.SETTING));
        assertThat(data.describe()).isEqualTo("/var/lib/skillforge (FORGE_DATA_DIR)");
        assertThat(data.warning()).isEmpty();
    }

    @Test
    void aRelativeFORGE_DATA_DIRIsTheWorkingFolder_sAndWarnedOf() {
        DataDirectory data = DataDirectory.from(Map.of("FORGE_DATA_DIR", "./my-data"), "/opt/skillforge");

        assertThat(data).isEqualTo(new DataDirectory(WORKING_FOLDER.resolve("my-data"), Origin.RELATIVE_SETTING));
        assertThat(data.warning()).hasValueSatisfying(warning -> assertThat(warning)
                .startsWith("FORGE_DATA_DIR is a relative path: the data folder is " + WORKING_FOLDER.resolve("my-data"))
                .endsWith("Set FORGE_DATA_DIR to an absolute path"));
    }

    @Test
    void startedWithoutTheLauncherOrFORGE_DATA_DIRTheDataFolderIsTheWorkingFolder_sAndWarnedOf() {
        DataDirectory data = DataDirectory.from(Map.of(), null);

        assertThat(data).isEqualTo(new DataDirectory(WORKING_FOLDER.resolve("data"), Origin.WORKING_FOLDER));
        assertThat(data.warning()).hasValueSatisfying(warning -> assertThat(warning)
                .startsWith("Started without ./skillforge and without FORGE_DATA_DIR: the data folder is " + WORKING_FOLDER.resolve("data")));
    }
}
