package dev.skillforge.server.exec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code FORGE_SANDBOX=none}: the program starts directly, in the workspace, with the clean
 * environment, as the {@link SandboxUser} (so a server run as root still runs it as an unprivileged
 * user). It can read whatever that user can read, write wherever it can write, reach the network and
 * signal that user's processes; only the argument checks stand in the way.
 */
final class NoSandbox implements Sandbox {

    private static final Path NOTHING = Path.of("/dev/null");

    private final SandboxUser user;

    NoSandbox(SandboxUser user) {
        this.user = user;
    }

    @Override
    public Launch launch(List<String> argv, Path workspace) {
        List<String> command = new ArrayList<>(user.commandPrefix());
        command.addAll(argv);
        return new Launch(command, Sandbox.cleanEnvironment(workspace), NOTHING, Optional.empty());
    }
}
