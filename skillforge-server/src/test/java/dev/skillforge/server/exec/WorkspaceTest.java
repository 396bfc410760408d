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
            "--file=notes/a.txt", "-", "--", "", "a b", "héllo", "x=1", "http:x", "if=notes/a.txt", "of=out.bin", "bs=1M",
            "s/a=b/c/", "file:notes/a.txt", "https://example.com/a/b", "k=v=notes/a.txt"})
    void argumentsInsideAreFine(String argument) {
        assertThatCode(() -> workspace.check(argument)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/etc/passwd", "/", "..", "../outside/secret.txt", "notes/../../outside", "notes/..", "a/../b",
            "--file=/etc/passwd", "--file=../x", "-f/etc/passwd", "-f../x", "-I/usr", "-C..", "//etc"})
    void argumentsLeavingAreRefused(String argument) {
        assertThatThrownBy(() -> workspace.check(argument)).isInstanceOf(CommandRefused.class);
    }

    /** Issue 11, finding 1: dd's if=/proc/…/environ and other key=/path forms passed as one harmless-looking relative path. */
    @ParameterizedTest
    @ValueSource(strings = {"if=/proc/1/environ", "of=/tmp/evil", "if=../skillforge.db", "of=notes/../../x", "a=b=/etc/passwd",
            "--opt=k=/etc", "file:///", "file:///etc/passwd", "FILE:///etc/passwd", "file://localhost/etc/passwd", "file:/etc/passwd",
            "file:../outside", "file:%2Fetc%2Fpasswd", "file:///%2e%2e/x", "--url=file:///etc/shadow", "url=file:/etc",
            "if=escape/secret.txt"})
    void pathsAfterAnEqualsSignOrInAFileUrlAreCheckedToo(String argument) throws IOException {
        Files.createSymbolicLink(workspace.root().resolve("escape"), outside);
        assertThatThrownBy(() -> workspace.check(argument)).isInstanceOf(CommandRefused.class)
                .hasMessageStartingWith("the argument '" + argument + "' names '");
    }

    @Test
    void aRefusedValueSaysWhichPartWasRefused() {
        assertThatThrownBy(() -> workspace.check("if=/proc/1/environ")).hasMessage("the argument 'if=/proc/1/environ' names"
                + " '/proc/1/environ', which is an absolute path: commands run in the workspace folder and paths must be relative to it");
        assertThatThrownBy(() -> workspace.check("file:///etc/passwd")).hasMessageContaining("names '/etc/passwd', which is an absolute path");
        assertThatThrownBy(() -> workspace.check("of=../x")).hasMessageContaining("names '../x', which climbs out with '..'");
        assertThatThrownBy(() -> workspace.check("/etc/passwd")).hasMessageStartingWith("the argument '/etc/passwd' is an absolute path");
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
