package dev.skillforge.server.exec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The workspaces of a data folder ({@code FORGE_DATA_DIR/workspaces}): a folder per person, in it one per
 * key (a conversation's id, or a stateless conversation's key), made when its first program runs, owned by
 * the {@link SandboxUser}, which alone may enter it. A workspace that holds a link leading out or more than its
 * {@link WorkspaceQuota} blocks only its own programs, and its owner can {@linkplain #clear clear} it.
 *
 * <p>Every method is safe to call for a key whose folder does not exist (yet, or any more).
 */
public final class Workspaces {

    /** Keys are ids: letters, digits and dashes, so a key is never a path. */
    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9-]{0,99}");
    private static final String PROBE = ".probe";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private final Path root;
    private final SandboxUser user;
    private final WorkspaceQuota quota;

    private Workspaces(Path root, SandboxUser user, WorkspaceQuota quota) {
        this.root = root;
        this.user = user;
        this.quota = quota;
    }

    /**
     * The workspaces under {@code folder}, made if needed and closed to every account but the server and the
     * sandbox's user.
     */
    public static Workspaces at(Path folder, SandboxUser user, WorkspaceQuota quota) throws IOException {
        Files.createDirectories(folder);
        Path real = folder.toRealPath();
        user.closeAllBut(real);
        return new Workspaces(real, user, quota);
    }

    public Path root() {
        return root;
    }

    public SandboxUser user() {
        return user;
    }

    public WorkspaceQuota quota() {
        return quota;
    }

    /**
     * The workspace of {@code owner}'s {@code key}, made (empty, the sandbox user's) if it does not exist.
     *
     * @throws IllegalArgumentException when {@code owner} or {@code key} is not an id
     */
    public Workspace open(String owner, String key) {
        Path folder = folder(owner, key);
        try {
            if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
                Path person = folder.getParent();
                if (!Files.isDirectory(person, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectory(person);
                    user.closeAllBut(person);
                }
                Files.createDirectory(folder);
                user.own(folder);
            }
        } catch (java.nio.file.FileAlreadyExistsException e) {
            // made meanwhile by a command of the same conversation on another thread
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the workspace " + folder, e);
        }
        return new Workspace(folder, quota);
    }

    /** The folder a sandbox probe runs in; never a conversation's. */
    Path probe() throws IOException {
        Path folder = root.resolve(PROBE);
        Files.createDirectories(folder);
        user.own(folder);
        return folder;
    }

    /** What the workspace of {@code owner}'s {@code key} holds now: nothing when it was never made. */
    public Workspace.Usage usage(String owner, String key) {
        Path folder = folder(owner, key);
        return Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS) ? new Workspace(folder, quota).inspect()
                : new Workspace.Usage(0, 0, quota, Optional.empty());
    }

    /** Removes everything in the workspace of {@code owner}'s {@code key}, keeping the folder; whatever its programs made of it. */
    public void clear(String owner, String key) {
        Path folder = folder(owner, key);
        if (Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            removeTree(folder, false);
        }
    }

    /** Removes the workspace of {@code owner}'s {@code key}, folder and all (its conversation is gone). */
    public void delete(String owner, String key) {
        Path folder = folder(owner, key);
        if (Files.exists(folder, LinkOption.NOFOLLOW_LINKS)) {
            removeTree(folder, true);
        }
    }

    /**
     * Gives {@code owner}'s {@code to} a copy of their {@code from}'s workspace (a fork continues with the files its
     * history made). Links are copied as links; nothing is copied when {@code from} has none, or holds more than its quota.
     */
    public void copy(String owner, String from, String to) {
        Path source = folder(owner, from);
        if (!Files.isDirectory(source, LinkOption.NOFOLLOW_LINKS) || usage(owner, from).over()) {
            return;
        }
        Path target = open(owner, to).root();
        try {
            Files.walkFileTree(source, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                    Path copy = target.resolve(source.relativize(dir).toString());
                    if (!dir.equals(source)) {
                        Files.copy(dir, copy, LinkOption.NOFOLLOW_LINKS, StandardCopyOption.COPY_ATTRIBUTES);
                        chown(copy);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    if (attrs.isRegularFile() || attrs.isSymbolicLink()) { // not a pipe or a socket
                        Path copy = target.resolve(source.relativize(file).toString());
                        Files.copy(file, copy, LinkOption.NOFOLLOW_LINKS, StandardCopyOption.COPY_ATTRIBUTES);
                        chown(copy);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy the workspace of " + from, e);
        }
    }

    private void chown(Path copy) throws IOException {
        if (user.dropped()) {
            Files.setAttribute(copy, "unix:gid", user.gid(), LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(copy, "unix:uid", user.uid(), LinkOption.NOFOLLOW_LINKS);
        }
    }

    /** @throws IllegalArgumentException when {@code key} is not an id */
    void checkKey(String key) {
        if (key == null || !KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("not a workspace key: " + key);
        }
    }

    private Path folder(String owner, String key) {
        checkKey(owner);
        checkKey(key);
        return root.resolve(owner).resolve(key);
    }

    /**
     * Deletes a tree a program made, whatever modes it gave its folders (each folder is opened up before it is
     * read, since a server not run as root is bound by them too), without recursion (a program can nest folders
     * deeper than a thread's stack).
     */
    private static void removeTree(Path folder, boolean andFolder) {
        Deque<Path> open = new ArrayDeque<>();
        Deque<Path> emptied = new ArrayDeque<>(); // folders in the order they were opened: deleted from the last
        open.push(folder);
        try {
            while (!open.isEmpty()) {
                Path dir = open.pop();
                Files.setPosixFilePermissions(dir, OWNER_ONLY);
                emptied.push(dir);
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
                    for (Path entry : entries) {
                        if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                            open.push(entry);
                        } else {
                            Files.deleteIfExists(entry);
                        }
                    }
                }
            }
            while (!emptied.isEmpty()) {
                Path dir = emptied.pop();
                if (andFolder || !dir.equals(folder)) {
                    Files.deleteIfExists(dir);
                }
            }
        } catch (NoSuchFileException e) {
            // gone already
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the workspace " + folder, e);
        }
    }
}
