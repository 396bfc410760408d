package dev.skillforge.server;

import dev.skillforge.server.exec.SandboxUser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

/**
 * The data folder ({@code FORGE_DATA_DIR}) closed to every other local account: the database, the attachments,
 * the skills and the workspaces hold what people told the server, and a workspace holds what a model wrote.
 * The folder is {@code 0700} (or {@code 0710} with the sandbox's group, which must pass through to the
 * workspaces: {@link SandboxUser}); what it already holds loses every permission of group and others; and
 * the server's process creates files {@code 0600} and folders {@code 0700} ({@link #ownerOnlyFromNowOn()}).
 */
final class DataFolder {

    private static final Logger LOG = LoggerFactory.getLogger(DataFolder.class);
    private static final String WORKSPACES = "workspaces";
    private static final Set<PosixFilePermission> GROUP_AND_OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private DataFolder() {
    }

    /**
     * Sets this process's file-mode creation mask to {@code 077}, as a daemon does (systemd's {@code UMask=0077}):
     * every file and folder it makes from now on, the database's included, is its owner's alone. Programs it
     * starts inherit the mask. Logged and left as it was where the C library cannot be reached.
     */
    static void ownerOnlyFromNowOn() {
        try {
            Linker linker = Linker.nativeLinker();
            MethodHandle umask = linker.downcallHandle(linker.defaultLookup().find("umask").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
            int previous = (int) umask.invokeExact(0077);
            LOG.debug("File-mode creation mask 077 (was {})", Integer.toOctalString(previous));
        } catch (Throwable e) {
            LOG.warn("Could not set the file-mode creation mask to 077 ({}): new files get the mask this process was started with",
                    e.toString());
        }
    }

    /**
     * Makes the data folder if needed, and closes it and what it holds (but the workspaces, which
     * {@link dev.skillforge.server.exec.Workspaces} closes itself) to other accounts.
     */
    static void prepare(Path folder, SandboxUser user) throws IOException {
        Files.createDirectories(folder);
        user.closeAllBut(folder);
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
            for (Path entry : entries) {
                if (!entry.getFileName().toString().equals(WORKSPACES) && !Files.isSymbolicLink(entry)) {
                    PosixFileAttributeView view = Files.getFileAttributeView(entry, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
                    Set<PosixFilePermission> mode = view.readAttributes().permissions();
                    if (mode.removeAll(GROUP_AND_OTHERS)) {
                        view.setPermissions(mode);
                    }
                }
            }
        }
    }
}
