package dev.skillforge.server.exec;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * {@code FORGE_SANDBOX=none}: the program starts directly, in the workspace, with the clean
 * environment. It can read whatever the server's user can read, write wherever it can write,
 * reach the network and signal the server's processes; only the argument checks stand in the way.
 */
final class NoSandbox implements Sandbox {

    private final Path workspace;

    public NoSandbox(Path workspace) {
        this.workspace = workspace;
    }

    @Override
    public Launch launch(List<String> argv) {
        return new Launch(argv, Sandbox.cleanEnvironment(workspace), Optional.empty());
    }
}
