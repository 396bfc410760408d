package dev.skillforge.testkit;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The start-up cache of the servers {@link ServerProcess} starts: JDK 25's ahead-of-time cache (as {@code ./skillforge}
 * trains one for itself), made once per build by the first start of any test JVM that finds none — a server started,
 * one turn, stopped — and used by every later start, which then loads and links classes from it: about half the CPU
 * of a start (2.2 → 1.1 s measured), and the suite starts dozens of servers on two cores.
 *
 * <p>A cache holds classes from jars only, so the children run on the test JVM's class path without its folders (the
 * tests' own classes, which a server does not use); when a module's classes are a folder too (the tests run from an
 * IDE or before {@code package}), there is no cache and the children start as before. The cache's name is a digest
 * of everything it depends on (the JVM, its options, each jar's path, size and time), so a rebuilt jar gets a new one.
 * The test JVMs run side by side: a file lock lets one train while the others wait for its cache.
 */
final class ChildStartCache {

    private static final Path FOLDER = Path.of("target").toAbsolutePath();

    /** How a child is started for the training: with these options added to its own. */
    interface Trainer {
        void train(List<String> extraOptions) throws IOException, InterruptedException;
    }

    private static final List<String> ENTRIES = List.of(System.getProperty("java.class.path").split(File.pathSeparator));
    private static final List<String> JARS = ENTRIES.stream().filter(entry -> Files.isRegularFile(Path.of(entry))).toList();
    /** Whether the modules are jars (as {@code mvn verify} runs the tests): only then do the children run on jars alone. */
    private static final boolean MODULES_ARE_JARS = JARS.stream()
            .anyMatch(entry -> Path.of(entry).getFileName().toString().startsWith("skillforge-server"));
    private static final String CLASS_PATH = String.join(File.pathSeparator, MODULES_ARE_JARS ? JARS : ENTRIES);

    private static Optional<Path> made;
    private static boolean tried;

    private ChildStartCache() {
    }

    /** The class path the children run on: the test JVM's, only its jars when every module is a jar. */
    static String classPath() {
        return CLASS_PATH;
    }

    /**
     * The options that make a child start from the cache, training it first when this build has none; none when
     * the modules are folders or the training failed (said once on stderr: the children then start without).
     */
    static synchronized List<String> options(List<String> jvmOptions, Trainer trainer) throws InterruptedException {
        if (!tried) {
            tried = true;
            made = makeOnce(jvmOptions, trainer);
        }
        return made.map(cache -> List.of("-XX:AOTCache=" + cache)).orElse(List.of());
    }

    private static Optional<Path> makeOnce(List<String> jvmOptions, Trainer trainer) throws InterruptedException {
        if (!MODULES_ARE_JARS) {
            return Optional.empty();
        }
        try {
            Files.createDirectories(FOLDER);
            Path cache = FOLDER.resolve("child-start-" + digest(jvmOptions) + ".aot");
            try (FileChannel lockFile = FileChannel.open(FOLDER.resolve("child-start.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock ignored = lockFile.lock()) {
                if (!Files.isRegularFile(cache)) {
                    Path partial = FOLDER.resolve(cache.getFileName() + ".partial-" + ProcessHandle.current().pid());
                    Files.deleteIfExists(partial);
                    trainer.train(List.of("-XX:AOTCacheOutput=" + partial));
                    if (!Files.isRegularFile(partial)) {
                        throw new IOException("the training server stopped without writing " + partial);
                    }
                    Files.move(partial, cache, StandardCopyOption.ATOMIC_MOVE);
                    forgetAllBut(cache); // an earlier build's: tens of MB each
                }
            }
            return Optional.of(cache);
        } catch (IOException | AssertionError e) {
            System.err.println("The test servers start without a start-up cache: training it failed: " + e);
            return Optional.empty();
        }
    }

    private static void forgetAllBut(Path cache) throws IOException {
        try (var earlier = Files.newDirectoryStream(FOLDER, "child-start-*.aot")) {
            for (Path other : earlier) {
                if (!other.equals(cache)) {
                    Files.deleteIfExists(other);
                }
            }
        }
    }

    private static String digest(List<String> jvmOptions) throws IOException {
        StringBuilder inputs = new StringBuilder(System.getProperty("java.home")).append('\n')
                .append(Runtime.version()).append('\n').append(String.join(" ", jvmOptions)).append('\n');
        for (String entry : JARS) {
            Path jar = Path.of(entry);
            inputs.append(entry).append(' ').append(Files.size(jar)).append(' ').append(Files.getLastModifiedTime(jar).toMillis()).append('\n');
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(inputs.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
