package dev.skillforge.server.exec;

/** The process runner's tests with programs started directly ({@code FORGE_SANDBOX=none}). */
class UnsandboxedProcessRunnerTest extends ProcessRunnerTest {

    @Override
    SandboxSettings.Kind sandbox() {
        return SandboxSettings.Kind.NONE;
    }
}
