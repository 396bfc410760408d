package dev.skillforge.server.exec;

/** The process runner's tests with programs in bubblewrap (the default). */
class SandboxedProcessRunnerTest extends ProcessRunnerTest {

    @Override
    SandboxSettings.Kind sandbox() {
        return SandboxSettings.Kind.BWRAP;
    }
}
