package dev.skillforge.testkit;

import dev.skillforge.server.exec.SandboxUser;
import dev.skillforge.server.exec.WorkspaceQuota;
import dev.skillforge.server.exec.Workspaces;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/**
 * Data folders for tests that run programs: a server run as root (as CI runs the tests) runs them as
 * {@code nobody}, which must pass through every folder above the workspaces, and JUnit's temporary
 * folders are {@code 0700}.
 */
public final class SandboxFolders {

    private SandboxFolders() {
    }

    /**
     * Lets every account pass through (not list) {@code folder} and the folders above it that this process owns,
     * as a data folder's parents usually do; returns {@code folder}.
     */
    public static Path passable(Path folder) {
        try {
            Files.createDirectories(folder);
            int self = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            for (Path at = folder.toRealPath(); at != null; at = at.getParent()) {
                if ((Integer) Files.getAttribute(at, "unix:uid") == self) {
                    Set<PosixFilePermission> mode = Files.getPosixFilePermissions(at);
                    if (mode.add(PosixFilePermission.OTHERS_EXECUTE)) {
                        Files.setPosixFilePermissions(at, mode);
                    }
                }
            }
            return folder;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The workspaces of a data folder under {@code base}, as a server run by this process would have them. */
    public static Workspaces workspaces(Path base, WorkspaceQuota quota) {
        try {
            return Workspaces.at(passable(base).resolve("workspaces"), SandboxUser.forThisProcess(SandboxUser.NOBODY), quota);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
