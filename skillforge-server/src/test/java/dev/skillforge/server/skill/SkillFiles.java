package dev.skillforge.server.skill;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Test helpers: SKILL.md texts and snapshots of a folder tree, to prove what changed on disk. */
final class SkillFiles {

    private SkillFiles() {
    }

    static String skillMd(String name, String description, String body) {
        return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body;
    }

    /**
     * Every path under {@code base} (links not followed) with its content for files, its target for
     * links and "dir" for folders: equal snapshots mean nothing was created, changed or removed.
     */
    static Map<String, String> snapshot(Path base) {
        Map<String, String> tree = new TreeMap<>();
        try (Stream<Path> paths = Files.walk(base)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                String key = base.relativize(path).toString();
                if (Files.isSymbolicLink(path)) {
                    tree.put(key, "link -> " + Files.readSymbolicLink(path));
                } else if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                    tree.put(key, "dir");
                } else {
                    tree.put(key, Files.readString(path));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return tree;
    }

    /** Creates a symbolic link, or skips the test where the file system cannot. */
    static void link(Path link, Path target) throws IOException {
        try {
            Files.createSymbolicLink(link, target);
        } catch (UnsupportedOperationException | IOException e) {
            org.junit.jupiter.api.Assumptions.abort("symbolic links are not supported here: " + e);
        }
    }
}
