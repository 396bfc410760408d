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
 * The folder commands run in ({@code FORGE_DATA_DIR/workspace}) and the check that keeps their
 * arguments inside it.
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
 * {@code ls -LR}), so before each command {@link #escapingLink()} looks through the whole workspace
 * (up to {@value #MAX_ENTRIES} entries) for a link that leads out, and the command is refused
 * while there is one.
 *
 * <p>These checks are a first line only: a program also opens paths named inside its own scripts
 * ({@code sed}'s {@code r}, {@code awk}'s {@code getline <}, an interpreter's code), which no
 * argument check can see. The {@link Sandbox} is what keeps such a program inside.
 */
public final class Workspace {

    /** The most entries {@link #escapingLink()} looks at; a bigger workspace is refused. */
    public static final int MAX_ENTRIES = 50_000;

    private final Path root;

    private Workspace(Path root) {
        this.root = root;
    }

    /** Creates the folder if needed; the check works on its real path. */
    public static Workspace at(Path folder) throws IOException {
        Files.createDirectories(folder);
        return new Workspace(folder.toRealPath());
    }

    public Path root() {
        return root;
    }

    /** Checks every argument after the program's name. */
    public void check(Iterable<String> arguments) throws CommandRefused {
        for (String argument : arguments) {
            check(argument);
        }
    }

    public void check(String argument) throws CommandRefused {
        if (argument.startsWith("-") && !argument.startsWith("--") && argument.length() > 1) {
            if (argument.indexOf('/') >= 0 || argument.contains("..")) {
                throw new CommandRefused(CommandRefused.Kind.PATH, "the option " + CommandRefused.quote(argument) + " has a path glued to it: write the option and the path"
                        + " as two arguments (-f FILE), so the path can be checked");
            }
            return; // short options: -la, -n5
        }
        for (int equals = argument.indexOf('='); equals >= 0; equals = argument.indexOf('=', equals + 1)) {
            checkValue(argument, argument.substring(equals + 1)); // --file=P, if=P, of=P, a=b=P
        }
        if (!argument.startsWith("--")) {
            checkValue(argument, argument); // a long option's own name (--recursive) is not a path
        }
    }

    /** A value as a path, and as the path of a {@code file:} URL ({@code git clone file:///…}). */
    private void checkValue(String argument, String value) throws CommandRefused {
        checkPath(argument, value);
        if (value.regionMatches(true, 0, "file:", 0, 5)) {
            String path = value.substring(5);
            if (path.startsWith("//")) { // file://host/path: the path starts at the first slash after the host
                int slash = path.indexOf('/', 2);
                path = slash < 0 ? "" : path.substring(slash);
            }
            checkPath(argument, percentDecoded(path));
        }
    }

    private void checkPath(String argument, String path) throws CommandRefused {
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
        for (String segment : path.split("/")) {
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
     * Looks through the workspace for a symbolic link that points outside it or nowhere.
     *
     * @return a refusal naming the first one found (or saying the workspace is too big to check)
     */
    public Optional<String> escapingLink() {
        int[] entries = {0};
        String[] found = {null};
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    return count();
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    if (attrs.isSymbolicLink() && !pointsInside(file)) {
                        found[0] = "the workspace holds a symbolic link that leads outside it or nowhere ("
                                + root.relativize(file) + "); no command runs until it is removed";
                        return FileVisitResult.TERMINATE;
                    }
                    return count();
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    return count();
                }

                private FileVisitResult count() {
                    if (++entries[0] > MAX_ENTRIES) {
                        found[0] = "the workspace holds more than " + MAX_ENTRIES + " files and folders, too many to check"
                                + " for links that lead outside; no command runs until some are removed";
                        return FileVisitResult.TERMINATE;
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            return Optional.of("the workspace folder could not be read (" + e.getClass().getSimpleName() + ")");
        }
        return Optional.ofNullable(found[0]);
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
