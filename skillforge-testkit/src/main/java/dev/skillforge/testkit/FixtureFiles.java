package dev.skillforge.testkit;

import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.server.provider.SseEventData;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The recorded provider streams of {@code shared/fixtures} (see its README), for the tests of every
 * provider package. The folder sits beside the repository: two levels up from a module in the dev
 * checkout ({@code /work/main/<module>} and {@code /work/shared}), one level up where CI clones the
 * repository with {@code shared/} inside.
 */
public final class FixtureFiles {

    private static final List<String> CANDIDATES = List.of("../../shared/fixtures", "../shared/fixtures");

    private FixtureFiles() {
    }

    /** The fixtures folder, or a failure that says where it was looked for. */
    public static Path dir() {
        Path moduleDir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        for (String candidate : CANDIDATES) {
            Path dir = moduleDir.resolve(candidate).normalize();
            if (Files.isDirectory(dir) && Files.isRegularFile(dir.resolve("README.md"))) {
                return dir;
            }
        }
        throw new IllegalStateException("The recorded fixtures (shared/fixtures) were not found: looked in "
                + CANDIDATES.stream().map(c -> moduleDir.resolve(c).normalize().toString()).toList()
                + " relative to the module directory " + moduleDir
                + ". Check out the shared/ folder beside the repository (or inside it, as CI does).");
    }

    /** A fixture's text, decoded as UTF-8, line endings as recorded. */
    public static String read(String name) {
        Path file = dir().resolve(name);
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("Recorded fixture missing: " + file);
        }
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The data of each event in a recording's {@code text}, read as the provider client reads a body ({@link SseEventData}
     * line by line, then the body's end); LF, CRLF and CR end a line, as on the wire.
     */
    public static List<String> sseData(String text) {
        List<String> data = new ArrayList<>();
        SseEventData events = new SseEventData(data::add, Duration.ofDays(1));
        try (BufferedReader lines = new BufferedReader(new StringReader(text))) {
            String line;
            while ((line = lines.readLine()) != null) {
                events.accept(line);
            }
            events.end();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ProviderException e) {
            throw new IllegalStateException("the recording is not a stream this server reads: " + e.getMessage(), e);
        }
        return data;
    }
}
