package dev.skillforge.server.exec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The sandbox's tests as a server not run as root sees them. CI runs the suite as root, where every program is
 * dropped to {@code nobody}; a server run by any other user maps the sandbox's user to itself instead. So when this
 * JVM is root, the sandbox's test classes run again in a child JVM as an unprivileged user ({@value #UID}, no
 * account needed) and must all pass; run by anyone else, they already did, and this is skipped.
 */
class AsAnUnprivilegedUserTest {

    static final int UID = 4242;
    /** The test classes run again: the sandbox from inside, the runner in it, the escape corpus, the data folder's modes. */
    static final List<Class<?>> CLASSES = List.of(BubblewrapTest.class, SandboxedProcessRunnerTest.class, SandboxCorpusTest.class,
            DataFolderModesTest.class);

    @TempDir
    Path home;

    @Test
    void theSandboxTestsPassAsAnUnprivilegedUser() throws Exception {
        assumeThat(SandboxUser.effectiveUid()).as("run as root: as anyone else these tests already ran unprivileged").isZero();
        Path work = Files.createDirectories(home.resolve("work"));
        String classPath = readableClassPath(home.resolve("classpath"));
        Files.setPosixFilePermissions(home, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        chownTree(work);
        List<String> command = new ArrayList<>(List.of("setpriv", "--reuid=" + UID, "--regid=" + UID, "--clear-groups", "--",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "--enable-native-access=ALL-UNNAMED",
                "-Xmx512m", "-XX:TieredStopAtLevel=1", "-cp", classPath, Child.class.getName()));
        CLASSES.forEach(type -> command.add(type.getName()));
        Path log = Path.of("target", "process-logs", "unprivileged-sandbox-tests.log").toAbsolutePath();
        Files.createDirectories(log.getParent());
        ProcessBuilder builder = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().keySet().removeIf(key -> key.startsWith("FORGE_"));
        Process child = builder.start();
        boolean ended = child.waitFor(4, TimeUnit.MINUTES);
        if (!ended) {
            child.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(ended).as("the child ended; its output:\n" + output).isTrue();
        assertThat(output).as(output).contains("as uid " + UID + ":");
        assertThat(child.exitValue()).as(output).isZero();
        String result = output.lines().filter(line -> line.startsWith("RESULT ")).findFirst().orElseThrow();
        assertThat(result).as(output).matches("RESULT succeeded=[1-9][0-9]+ failed=0 skipped=[0-9]+ aborted=0");
    }

    /**
     * The class path, with every entry this JVM's user alone can reach (Maven's repository in root's home) linked
     * (or copied) into {@code folder}, which every user may read.
     */
    static String readableClassPath(Path folder) throws IOException {
        Files.createDirectories(folder);
        List<String> entries = new ArrayList<>();
        int index = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path source = Path.of(entry).toAbsolutePath();
            if (!Files.exists(source)) {
                continue;
            }
            Path target = folder.resolve(index++ + "-" + source.getFileName());
            if (Files.isDirectory(source)) {
                try (Stream<Path> files = Files.walk(source)) {
                    for (Path file : (Iterable<Path>) files::iterator) {
                        Path copy = target.resolve(source.relativize(file).toString());
                        if (Files.isDirectory(file)) {
                            Files.createDirectories(copy);
                        } else {
                            linkOrCopy(file, copy);
                        }
                    }
                }
            } else {
                linkOrCopy(source, target);
            }
            entries.add(target.toString());
        }
        try (Stream<Path> all = Files.walk(folder)) {
            for (Path path : (Iterable<Path>) all::iterator) {
                Files.setPosixFilePermissions(path, java.nio.file.attribute.PosixFilePermissions.fromString(
                        Files.isDirectory(path) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static void linkOrCopy(Path file, Path copy) throws IOException {
        try {
            Files.createLink(copy, file);
        } catch (FileSystemException | UnsupportedOperationException e) {
            Files.copy(file, copy); // another file system
        }
    }

    private static void chownTree(Path folder) throws IOException {
        try (Stream<Path> all = Files.walk(folder)) {
            for (Path path : (Iterable<Path>) all::iterator) {
                Files.setAttribute(path, "unix:uid", UID, LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(path, "unix:gid", UID, LinkOption.NOFOLLOW_LINKS);
            }
        }
    }

    /** The child: runs the classes named in its arguments with JUnit's launcher and prints a summary line. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            System.out.println("as uid " + SandboxUser.effectiveUid() + ": " + Arrays.toString(args));
            LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
            for (String name : args) {
                request.selectors(selectClass(Class.forName(name)));
            }
            LauncherDiscoveryRequest discovery = request.build();
            SummaryGeneratingListener listener = new SummaryGeneratingListener();
            LauncherFactory.create().execute(discovery, listener);
            TestExecutionSummary summary = listener.getSummary();
            PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
            summary.printFailuresTo(out, 30);
            summary.printTo(out);
            out.println("RESULT succeeded=" + summary.getTestsSucceededCount() + " failed=" + summary.getTotalFailureCount()
                    + " skipped=" + summary.getTestsSkippedCount() + " aborted=" + summary.getTestsAbortedCount());
            out.flush();
            System.exit(summary.getTotalFailureCount() == 0 ? 0 : 1);
        }
    }
}
