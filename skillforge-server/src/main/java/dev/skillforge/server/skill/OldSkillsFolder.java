package dev.skillforge.server.skill;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The skills an earlier SkillForge kept as files ({@code FORGE_DATA_DIR/skills/NAME/SKILL.md}),
 * brought into the {@link SkillStore} once, at start, as version 1 of the one local person's skills
 * (source {@code disk}), with their files under {@code scripts/}, {@code references/} and
 * {@code assets/}. The folder is then renamed {@code skills.imported} (or {@code skills.imported-2}, …),
 * untouched inside, so that nothing in it is lost, no one takes it for the live skills, and the
 * next start finds nothing to import. A skill the store already has under that name is left out;
 * a folder that is not a skill (no valid SKILL.md, a symbolic link) is left out and logged, and
 * stays in the renamed folder. Links are never followed.
 */
public final class OldSkillsFolder {

    private static final Logger LOG = LoggerFactory.getLogger(OldSkillsFolder.class);

    private final Path folder;

    /** @param folder the old skills folder, {@code FORGE_DATA_DIR/skills} */
    public OldSkillsFolder(Path folder) {
        this.folder = folder;
    }

    /** What an import did. */
    public record Imported(List<String> skills, List<String> skipped, Path keptAs) {
    }

    /**
     * Imports every skill of the folder that {@code store} lacks, then renames the folder; nothing when there is no
     * folder. A failure of the store leaves the folder where it is, to be imported at the next start.
     */
    public Imported importInto(SkillStore store, SkillLimits limits) throws IOException {
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            return new Imported(List.of(), List.of(), null);
        }
        List<String> imported = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
            for (Path skill : entries) {
                String name = skill.getFileName().toString();
                if (!SkillName.isValid(name) || !Files.isDirectory(skill, LinkOption.NOFOLLOW_LINKS)) {
                    if (!name.startsWith(".")) { // the old store's temporary and deleted folders
                        skipped.add(name + " (not a skill's folder)");
                    }
                    continue;
                }
                if (!store.history(SkillAccess.LOCAL, name).isEmpty()) {
                    skipped.add(name + " (the store has a skill of that name already)");
                    continue;
                }
                try {
                    store.write(SkillAccess.ONE_PERSON, SkillFolder.legacy(name, files(skill, limits), limits), VersionSource.of(VersionSource.Door.DISK));
                    imported.add(name);
                } catch (SkillException e) {
                    skipped.add(name + " (" + e.getMessage() + ")");
                }
            }
        }
        Path keptAs = keep();
        LOG.info("Imported {} skill(s) from {} into the skill store ({}); the folder is kept as {}", imported.size(), folder,
                String.join(", ", imported), keptAs);
        skipped.forEach(what -> LOG.warn("Not imported from {}: {}", folder, what));
        return new Imported(List.copyOf(imported), List.copyOf(skipped), keptAs);
    }

    /** SKILL.md and the regular files under the three folders; anything else (links, other files) stays behind. */
    private static Map<SkillPath, byte[]> files(Path skill, SkillLimits limits) throws IOException {
        Map<SkillPath, byte[]> files = new TreeMap<>();
        Files.walkFileTree(skill, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                String path = skill.relativize(file).toString().replace(file.getFileSystem().getSeparator(), "/");
                if (attributes.isRegularFile() && SkillPath.isValid(path)) {
                    files.put(SkillPath.of(path), read(file, limits));
                } else {
                    LOG.warn("Not imported: {} (only SKILL.md and the regular files under scripts/, references/ and assets/ are)", file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return files;
    }

    /** At most a byte more than a file may hold (a hand-placed file may be huge): one over the limit is refused whole. */
    private static byte[] read(Path file, SkillLimits limits) throws IOException {
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            return in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, Math.max(limits.maxFileBytes(), SkillDocument.MAX_BYTES) + 1));
        }
    }

    private Path keep() throws IOException {
        Path target = folder.resolveSibling(folder.getFileName() + ".imported");
        for (int n = 2; Files.exists(target, LinkOption.NOFOLLOW_LINKS); n++) {
            target = folder.resolveSibling(folder.getFileName() + ".imported-" + n);
        }
        return Files.move(folder, target, StandardCopyOption.ATOMIC_MOVE);
    }
}
