package dev.skillforge.server.exec;

import dev.skillforge.server.people.Caller;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.ForgeClient;
import dev.skillforge.testkit.ServerProcess;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Regression: the database (attachments included) was readable by every local account, and what a program wrote
 * could be run by them. The data folder, what the server writes in it and what its programs write are the server's
 * and the sandbox user's alone, in a real server process (run as root by CI, and as an unprivileged user by
 * {@link AsAnUnprivilegedUserTest}).
 */
class DataFolderModesTest {

    @TempDir
    Path base;

    static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }

    static int owner(Path path) throws IOException {
        return (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    @Test
    void theDataFolderTheDatabaseAndWhatProgramsWriteAreClosedToOtherAccounts() throws Exception {
        Path data = base.resolve("data");
        boolean root = SandboxUser.effectiveUid() == 0;
        int programs = root ? SandboxUser.NOBODY : SandboxUser.effectiveUid();
        SimScript script = new SimScript(SimReply.of("<shell>touch made</shell>\n<shell>mkdir folder</shell>"), SimReply.of("Made."));
        String id;
        try (SimProviderServer sim = SimProviderServer.startOnLoopback(script)) {
            Map<String, String> env = new HashMap<>(Map.of("FORGE_PROVIDER", "openai", "FORGE_BASE_URL", sim.baseUrl(), "FORGE_MODEL",
                    SimProviderServer.MODEL, "FORGE_ALLOW_COMMANDS", "touch,mkdir"));
            try (ServerProcess server = ServerProcess.start("data-folder-modes", data, env)) {
                id = ForgeClient.create(server);
                List<ForgeClient.Received> events = ForgeClient.turn(server, id, "Make a file and a folder.");
                assertThat(events.stream().filter(e -> e.type().equals("tool-result")).map(e -> e.event().data().path("exitCode").asInt()))
                        .as("%s", events).containsExactly(0, 0);
                server.stop();
            }
        }
        assertThat(mode(data)).isEqualTo(root ? "rwx--x---" : "rwx------");
        if (root) {
            assertThat((Integer) Files.getAttribute(data, "unix:gid")).as("the sandbox's group passes through").isEqualTo(SandboxUser.NOBODY);
        }
        assertThat(mode(data.resolve("skillforge.db"))).isEqualTo("rw-------");
        try (Stream<Path> all = Files.walk(data)) {
            assertThat(all.filter(path -> !path.equals(data) && !path.equals(data.resolve("workspaces"))).map(path -> {
                try {
                    return path + " " + mode(path);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            })).as("nothing in the data folder is open to others").allSatisfy(line -> assertThat(line).endsWith("---"));
        }
        Path workspace = data.resolve("workspaces").resolve(Caller.LOCAL_ID).resolve(id);
        assertThat(mode(workspace)).isEqualTo("rwx------");
        assertThat(owner(workspace)).isEqualTo(programs);
        assertThat(mode(workspace.resolve("made"))).as("a file a program made").isEqualTo("rw-------");
        assertThat(mode(workspace.resolve("folder"))).as("a folder a program made").isEqualTo("rwx------");
        assertThat(owner(workspace.resolve("made"))).isEqualTo(programs).isNotZero();
        assertThat(((Integer) Files.getAttribute(workspace.resolve("made"), "unix:mode")) & 06000).as("set-id bits").isZero();
    }

    @Test
    void aDataFolderLeftOpenByAnEarlierVersionIsClosedAtStart() throws Exception {
        Path data = Files.createDirectories(base.resolve("open"));
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path skills = Files.createDirectories(data.resolve("skills/demo"));
        Files.setPosixFilePermissions(data.resolve("skills"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(skills.resolve("SKILL.md"), "---\nname: demo\ndescription: A demo.\n---\n");
        try (ServerProcess server = ServerProcess.start("data-folder-closed", data, Map.of())) {
            server.stop();
        }
        assertThat(mode(data)).isEqualTo("rwx------"); // no program is allowed: nobody needs to pass
        // The old skills folder, imported into the database at start and kept aside as it was.
        assertThat(mode(data.resolve("skills.imported"))).isEqualTo("rwx------");
        assertThat(mode(data.resolve("skillforge.db"))).isEqualTo("rw-------");
    }
}
