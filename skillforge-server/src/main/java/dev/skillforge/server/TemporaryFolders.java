package dev.skillforge.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Temporary folders a run makes for itself (a training run's data, a benchmark's workspaces), removed when it ends. */
public final class TemporaryFolders {

    private TemporaryFolders() {
    }

    /**
     * Deletes {@code folder} and all it holds, deepest first; what cannot be deleted stays (the system cleans its
     * temporary folder): the run that made it is over either way.
     *
     * @throws IOException when the folder cannot be walked
     */
    public static void delete(Path folder) throws IOException {
        try (Stream<Path> paths = Files.walk(folder)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }
}
