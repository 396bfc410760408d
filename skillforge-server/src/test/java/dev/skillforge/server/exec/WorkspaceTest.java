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

/**
 * Arguments cannot leave the workspace: no absolute paths, no '..', no links that lead out; and what a
 * workspace holds is counted against its quota.
 */
class WorkspaceTest {

    /** Programs run as this test's own user: no folder changes owner. */
    static final SandboxUser OWN = new SandboxUser(false, 1000, 1000);
    static final WorkspaceQuota QUOTA = new WorkspaceQuota(20, 1000);
    static final String ME = "someone";

    @TempDir
    Path base;
    Path outside;
    Workspaces workspaces;
    Workspace workspace;

    @BeforeEach
    void setUp() throws IOException {
        outside = Files.createDirectories(base.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "secret");
        workspaces = Workspaces.at(base.resolve("data").resolve("workspaces"), OWN, QUOTA);
        workspace = workspaces.open(ME, "c1");
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

    /** dd's if=/proc/…/environ and other key=/path forms passed as one harmless-looking relative path. */
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

        assertThat(workspace.inspect().refusal()).hasValueSatisfying(problem -> assertThat(problem).contains("leads outside"));
        Files.delete(workspace.root().resolve("escape"));
        Files.delete(workspace.root().resolve("secret-link"));
        Files.delete(workspace.root().resolve("dangling"));
        assertThat(workspace.inspect().refusal()).isEmpty(); // the inside link is fine
    }

    @Test
    void aLinkDeepInsideThatLeadsOutIsFoundBeforeAnyCommandRuns() throws IOException {
        Files.createSymbolicLink(workspace.root().resolve("notes/sub/up"), outside);
        assertThat(workspace.inspect().refusal()).hasValueSatisfying(problem -> assertThat(problem).contains("notes/sub/up"));
    }

    @Test
    void aRemovalMayNameALinkThatLeadsOutAsItsLastNameOnly() throws IOException {
        Files.createSymbolicLink(workspace.root().resolve("escape"), outside);
        assertThatCode(() -> workspace.checkRemoval(java.util.List.of("-f", "escape"))).doesNotThrowAnyException();
        assertThatThrownBy(() -> workspace.checkRemoval(java.util.List.of("-r", "escape/"))).hasMessageContaining("points outside");
        assertThatThrownBy(() -> workspace.checkRemoval(java.util.List.of("escape/secret.txt"))).hasMessageContaining("points outside");
        assertThatThrownBy(() -> workspace.check("escape")).hasMessageContaining("points outside");
    }

    @Test
    void filesAndBytesAreCountedAgainstTheQuota() throws IOException {
        Workspace.Usage fresh = workspace.inspect();
        assertThat(fresh.files()).isEqualTo(3); // notes, notes/sub, notes/a.txt
        assertThat(fresh.bytes()).isEqualTo(1);
        assertThat(fresh.over()).isFalse();

        Files.write(workspace.root().resolve("big"), new byte[(int) QUOTA.maxBytes()]);
        Workspace.Usage full = workspace.inspect();
        assertThat(full.over()).isTrue();
        assertThat(full.refusal()).hasValueSatisfying(why -> assertThat(why).contains("more than 1000 bytes, its quota"));

        Files.delete(workspace.root().resolve("big"));
        for (int i = 0; i < QUOTA.maxFiles(); i++) {
            Files.createFile(workspace.root().resolve("f" + i));
        }
        Workspace.Usage many = workspace.inspect();
        assertThat(many.files()).isEqualTo(QUOTA.maxFiles() + 1); // counting stops there
        assertThat(many.refusal()).hasValueSatisfying(why -> assertThat(why).contains("more than 20 files and folders, its quota"));
    }

    @Test
    void eachKeyHasItsOwnFolderAndAKeyIsNeverAPath() throws IOException {
        Workspace other = workspaces.open(ME, "c2");
        assertThat(other.root()).isNotEqualTo(workspace.root()).hasParent(workspace.root().getParent());
        Workspace theirs = workspaces.open("someone-else", "c1");
        assertThat(theirs.root()).as("another person's workspace of the same key").isNotEqualTo(workspace.root());
        assertThat(theirs.root().getParent()).isNotEqualTo(workspace.root().getParent());
        assertThatThrownBy(() -> workspaces.open("..", "c1")).isInstanceOf(IllegalArgumentException.class);
        assertThat(other.inspect().files()).isZero();
        for (String hostile : java.util.List.of("..", "../x", "a/b", ".probe", "", "-rf", "x".repeat(101))) {
            assertThatThrownBy(() -> workspaces.open(ME, hostile)).as(hostile).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void clearingEmptiesEvenFoldersAProgramClosedAndDeletingRemovesTheFolder() throws IOException {
        Path closed = Files.createDirectories(workspace.root().resolve("closed/deeper"));
        Files.writeString(closed.resolve("x"), "x");
        Files.setPosixFilePermissions(closed, java.nio.file.attribute.PosixFilePermissions.fromString("---------"));
        Files.setPosixFilePermissions(closed.getParent(), java.nio.file.attribute.PosixFilePermissions.fromString("r-x------"));

        workspaces.clear(ME, "c1");
        assertThat(workspace.root()).isEmptyDirectory();
        assertThat(workspaces.usage(ME, "c1").files()).isZero();

        workspaces.delete(ME, "c1");
        assertThat(workspace.root()).doesNotExist();
        assertThat(workspaces.usage(ME, "c1").files()).isZero();
        workspaces.delete(ME, "c1"); // nothing left to delete is fine
    }

    @Test
    void aForkGetsACopyOfTheFilesAndLinksAsLinks() throws IOException {
        Files.createSymbolicLink(workspace.root().resolve("inside"), Path.of("notes/a.txt"));
        workspaces.copy(ME, "c1", "fork");
        Path fork = workspaces.open(ME, "fork").root();
        assertThat(fork.resolve("notes/a.txt")).hasContent("a");
        assertThat(fork.resolve("notes/sub")).isDirectory();
        assertThat(Files.isSymbolicLink(fork.resolve("inside"))).isTrue();
        assertThat(fork.resolve("inside")).hasContent("a");
        workspaces.copy(ME, "never-made", "fork2");
        assertThat(workspaces.usage(ME, "fork2").files()).isZero();
    }
}
