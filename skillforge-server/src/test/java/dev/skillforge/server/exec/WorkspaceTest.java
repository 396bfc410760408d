package dev.skillforge.server.exec;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Arguments cannot leave the workspace: no absolute paths, no '..', no links that lead out. */
class WorkspaceTest {

    @TempDir
    Path base;
    Path outside;
    Workspace workspace;

    @BeforeEach
    void setUp() throws IOException {
        outside = Files.createDirectories(base.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "secret");
        workspace = Workspace.at(base.resolve("data").resolve("workspace"));
        Files.createDirectories(workspace.root().resolve("notes/sub"));
        Files.writeString(workspace.root().resolve("notes/a.txt"), "a");
    }

    @ParameterizedTest
    @ValueSource(strings = {"notes", "notes/a.txt", "./notes/sub", "new-file.txt", "notes/new/deeper", "-la", "-n5", "--count",
            "--file=notes/a.txt", "-", "--", "", "a b", "héllo", "x=1", "http:x"})
    void argumentsInsideAreFine(String argument) {
        assertThatCode(() -> workspace.check(argument)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/etc/passwd", "/", "..", "../outside/secret.txt", "notes/../../outside", "notes/..", "a/../b",
            "--file=/etc/passwd", "--file=../x", "-f/etc/passwd", "-f../x", "-I/usr", "-C..", "//etc"})
    void argumentsLeavingAreRefused(String argument) {
        assertThatThrownBy(() -> workspace.check(argument)).isInstanceOf(CommandRefused.class);
    }

    @Test
    void linksThatLeadOutAreRefusedAndLinksInsideAreFine() throws IOException {
        Files.createSymbolicLink(workspace.root().resolve("escape"), outside);
        Files.createSymbolicLink(workspace.root().resolve("secret-link"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(workspace.root().resolve("dangling"), outside.resolve("not-yet"));
        Files.createSymbolicLink(workspace.root().resolve("inside"), workspace.root().resolve("notes"));

        assertThatThrownBy(() -> workspace.check("escape")).hasMessageContaining("symbolic link that points outside");
        assertThatThrownBy(() -> workspace.check("escape/secret.txt")).hasMessageContaining("symbolic link that points outside");
        assertThatThrownBy(() -> workspace.check("./secret-link")).hasMessageContaining("symbolic link that points outside");
        assertThatThrownBy(() -> workspace.check("--in=escape/secret.txt")).isInstanceOf(CommandRefused.class);
        assertThatThrownBy(() -> workspace.check("dangling")).hasMessageContaining("does not exist");
        assertThatCode(() -> workspace.check("inside/a.txt")).doesNotThrowAnyException();

        assertThat(workspace.escapingLink()).hasValueSatisfying(problem -> assertThat(problem).contains("leads outside"));
        Files.delete(workspace.root().resolve("escape"));
        Files.delete(workspace.root().resolve("secret-link"));
        Files.delete(workspace.root().resolve("dangling"));
        assertThat(workspace.escapingLink()).isEmpty(); // the inside link is fine
    }

    @Test
    void aLinkDeepInsideThatLeadsOutIsFoundBeforeAnyCommandRuns() throws IOException {
        Files.createSymbolicLink(workspace.root().resolve("notes/sub/up"), outside);
        assertThat(workspace.escapingLink()).hasValueSatisfying(problem -> assertThat(problem).contains("notes/sub/up"));
    }
}
