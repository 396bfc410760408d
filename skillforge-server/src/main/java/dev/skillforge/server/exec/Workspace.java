package dev.skillforge.server.exec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;

/**
 * One conversation's folder, where its programs run ({@link Workspaces}), the check that keeps their
 * arguments inside it, and what it holds against its {@link WorkspaceQuota}.
 *
 * <p>Every argument is read as a path a program might open, since which arguments a program
 * treats as files is the program's business: an argument is checked as a whole (a long option's
 * name, {@code --name}, excepted), and so is every value after an {@code =} in it
 * ({@code --file=VALUE}, {@code dd}'s {@code if=VALUE}, {@code a=b=VALUE}), and the path of each of
 * these that is a {@code file:} URL (percent escapes decoded). Refused: an absolute path; a {@code ..} segment; a
 * short option with a path glued to it ({@code -f/etc/passwd}: write {@code -f FILE}); a path
 * through a symbolic link whose target is outside the workspace or does not exist (a program
 * writing through a dangling link would create its target). Paths that do not exist yet are fine:
 * a program may create them, inside. Hard links cannot be told apart from files; the workspace
 * holds none unless an allowed program makes them.
 *
 * <p>A program may also find links on its own while it walks a folder ({@code grep -R},
 * {@code ls -LR}), so before each command {@link #inspect()} looks through the whole workspace
 * (up to its quota of entries) for a link that leads out, and counts what it holds: the command is refused
 * while there is such a link or the workspace is over its quota.
 *
 * <p>These checks are a first line only: a program also opens paths named inside its own scripts
 * ({@code sed}'s {@code r}, {@code awk}'s {@code getline <}, an interpreter's code), which no
 * argument check can see. The {@link Sandbox} is what keeps such a program inside.
 */
public final class Workspace {

    /**
     * What a workspace holds.
     *
     * @param files   files, folders and links, not counting the workspace itself (counting stops past the quota)
     * @param bytes   the size of its files (counting stops past the quota)
     * @param quota   what it may hold
     * @param refusal why its programs may not run, if they may not
     */
    public record Usage(long files, long bytes, WorkspaceQuota quota, Optional<String> refusal) {
        /** Whether this is more than the quota allows. */
        public boolean over() {
            return files > quota.maxFiles() || bytes > quota.maxBytes();
        }
    }

    private final Path root;
    private final WorkspaceQuota quota;

    /** @param root the folder's real path */
    Workspace(Path root, WorkspaceQuota quota) {
        this.root = root;
        this.quota = quota;
    }

    public Path root() {
        return root;
    }

    public WorkspaceQuota quota() {
        return quota;
    }

    /** Checks every argument after the program's name. */
    public void check(Iterable<String> arguments) throws CommandRefused {
        for (String argument : arguments) {
            check(argument, false);
        }
    }

    /**
     * Checks the arguments of a program that removes what they name ({@code rm}, {@code rmdir}): as {@link #check},
     * but a link may be the last name of a path (not followed by an unlink, so a link leading out can be removed),
     * unless the path ends with {@code /}, which would follow it.
     */
    public void checkRemoval(Iterable<String> arguments) throws CommandRefused {
        for (String argument : arguments) {
            check(argument, true);
        }
    }

    public void check(String argument) throws CommandRefused {
        check(argument, false);
    }

    private void check(String argument, boolean unlinks) throws CommandRefused {
        if (argument.startsWith("-") && !argument.startsWith("--") && argument.length() > 1) {
            if (argument.indexOf('/') >= 0 || argument.contains("..")) {
                throw new CommandRefused(CommandRefused.Kind.PATH, "the option " + CommandRefused.quote(argument) + " has a path glued to it: write the option and the path"
                        + " as two arguments (-f FILE), so the path can be checked");
            }
            return; // short options: -la, -n5
        }
        for (int equals = argument.indexOf('='); equals >= 0; equals = argument.indexOf('=', equals + 1)) {
            checkValue(argument, argument.substring(equals + 1), false); // --file=P, if=P, of=P, a=b=P
        }
        if (!argument.startsWith("--")) {
            checkValue(argument, argument, unlinks); // a long option's own name (--recursive) is not a path
        }
    }

    /** A value as a path, and as the path of a {@code file:} URL ({@code git clone file:///…}). */
    private void checkValue(String argument, String value, boolean unlinks) throws CommandRefused {
        checkPath(argument, value, unlinks);
        if (value.regionMatches(true, 0, "file:", 0, 5)) {
            String path = value.substring(5);
            if (path.startsWith("//")) { // file://host/path: the path starts at the first slash after the host
                int slash = path.indexOf('/', 2);
                path = slash < 0 ? "" : path.substring(slash);
            }
            checkPath(argument, percentDecoded(path), false);
        }
    }

    private void checkPath(String argument, String path, boolean unlinks) throws CommandRefused {
        if (path.isEmpty() || path.equals("-")) {
            return;
        }
        String subject = "the argument " + CommandRefused.quote(argument) + (path.equals(argument) ? "" : " names " + CommandRefused.quote(path) + ", which");
        if (path.startsWith("/")) {
            throw new CommandRefused(CommandRefused.Kind.PATH, subject + " is an absolute path: commands run in the workspace folder and paths must be"
                    + " relative to it");
        }
        for (String segment : path.split("/", -1)) {
            if (segment.equals("..")) {
                throw new CommandRefused(CommandRefused.Kind.PATH, subject + " climbs out with '..': paths must stay inside the workspace folder");
            }
        }
        Path current = root;
        String[] segments = path.split("/");
        for (int i = 0; i < segments.length; i++) {
            String segment = segments[i];
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            Path next;
            try {
                next = current.resolve(segment);
            } catch (InvalidPathException e) {
                throw new CommandRefused(CommandRefused.Kind.PATH, subject + " is not a valid path");
            }
            if (!Files.exists(next, LinkOption.NOFOLLOW_LINKS)) {
                return; // nothing further exists, so no link further down either
            }
            if (Files.isSymbolicLink(next)) {
                if (unlinks && i == segments.length - 1 && !path.endsWith("/")) {
                    return; // removed, not followed
                }
                Path target;
                try {
                    target = next.toRealPath();
                } catch (IOException e) {
                    throw new CommandRefused(CommandRefused.Kind.PATH, subject + " goes through a symbolic link whose target does"
                            + " not exist; links that may point outside the workspace are not followed");
                }
                if (!target.startsWith(root)) {
                    throw new CommandRefused(CommandRefused.Kind.PATH, subject + " goes through a symbolic link that points outside"
                            + " the workspace folder");
                }
                next = target;
            }
            current = next;
        }
    }

    /**
     * Looks through the workspace for a symbolic link that points outside it or nowhere, and counts its files
     * and bytes, stopping past the quota.
     *
     * @return what it holds, with a refusal naming the first such link found, or the quota it is over
     */
    public Usage inspect() {
        long[] counted = {0, 0};
        String[] found = {null};
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    return dir.equals(root) ? FileVisitResult.CONTINUE : count(0);
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    if (attrs.isSymbolicLink() && !pointsInside(file)) {
                        found[0] = "the workspace holds a symbolic link that leads outside it or nowhere ("
                                + root.relativize(file) + "); no command runs until it is removed";
                        return FileVisitResult.TERMINATE;
                    }
                    return count(attrs.isRegularFile() ? attrs.size() : 0);
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    return count(0);
                }

                private FileVisitResult count(long size) {
                    counted[0]++;
                    counted[1] += size;
                    if (counted[0] > quota.maxFiles()) {
                        found[0] = "the workspace holds more than " + quota.maxFiles() + " files and folders, its quota";
                        return FileVisitResult.TERMINATE;
                    }
                    if (counted[1] > quota.maxBytes()) {
                        found[0] = "the workspace holds more than " + quota.maxBytes() + " bytes, its quota";
                        return FileVisitResult.TERMINATE;
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            found[0] = "the workspace folder could not be read (" + e.getClass().getSimpleName() + ")";
        }
        return new Usage(counted[0], counted[1], quota, Optional.ofNullable(found[0]));
    }

    private boolean pointsInside(Path link) {
        try {
            return link.toRealPath().startsWith(root);
        } catch (IOException e) {
            return false;
        }
    }

    /** {@code %2F} and the like decoded as UTF-8 (as the programs that take URLs do); a malformed escape is kept as it is. */
    static String percentDecoded(String text) {
        if (text.indexOf('%') < 0) {
            return text;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] raw = text.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < raw.length; i++) {
            int high = i + 2 < raw.length && raw[i] == '%' ? Character.digit(raw[i + 1], 16) : -1;
            int low = high >= 0 ? Character.digit(raw[i + 2], 16) : -1;
            if (low >= 0) {
                bytes.write(high * 16 + low);
                i += 2;
            } else {
                bytes.write(raw[i]);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

}
