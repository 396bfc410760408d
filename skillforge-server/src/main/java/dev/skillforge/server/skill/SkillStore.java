package dev.skillforge.server.skill;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Skills on disk in the Agent Skills layout: {@code <root>/NAME/SKILL.md}, so other tools (Claude
 * Code and the like) can use the folder as it is.
 *
 * <p>Every name is checked by {@link SkillName} before it touches a path, so a skill folder is
 * always a direct child of the root. Symbolic links are never followed: a skill folder or
 * SKILL.md that is a link is refused, and deleting a folder removes links inside it as links.
 * Writes are atomic (a temporary file in the skill folder, then an atomic rename), so a reader
 * sees the old SKILL.md or the new one, never half of one, and a failed save leaves the old one.
 *
 * <p>Thread-safe: reads share a lock, writes take it alone. The store assumes it is the only
 * writer of the root (one server process).
 *
 * <p>Refusals a model can act on are {@link SkillException}s; I/O failures are {@link IOException}s.
 */
public final class SkillStore {

    public static final String SKILL_FILE = "SKILL.md";

    private static final Logger LOG = LoggerFactory.getLogger(SkillStore.class);

    /** A skill as listed: its name and description. */
    public record Summary(String name, String description) {
    }

    public enum Outcome { CREATED, UPDATED }

    /** What {@link #save} did: created a new SKILL.md or replaced one, and how many bytes it wrote. */
    public record Saved(String name, Outcome outcome, long bytes) {
    }

    private final Path root;
    private final ReadWriteLock lock = new ReentrantReadWriteLock();

    /**
     * @param root the skills folder ({@code FORGE_DATA_DIR/skills}); created if missing
     * @throws IOException when it cannot be created or resolved
     */
    public SkillStore(Path root) throws IOException {
        Path absolute = root.toAbsolutePath().normalize();
        Files.createDirectories(absolute);
        // Resolved once, so later "is this inside the root" checks compare real paths.
        this.root = absolute.toRealPath();
    }

    public Path root() {
        return root;
    }

    /** The valid skills, sorted by name. A folder without a valid SKILL.md is skipped (and logged), not an error. */
    public List<Summary> list() throws IOException {
        return documents().stream().map(d -> new Summary(d.name(), d.description())).toList();
    }

    /**
     * The skills whose name, description or body contains every one of {@code words}, ignoring
     * case, sorted by name. Blank words are ignored; no words at all match every skill.
     */
    public List<Summary> search(Collection<String> words) throws IOException {
        List<String> needles = words.stream().filter(w -> !w.isBlank()).map(w -> w.toLowerCase(Locale.ROOT)).toList();
        List<Summary> found = new ArrayList<>();
        for (SkillDocument doc : documents()) {
            String haystack = (doc.name() + "\n" + doc.description() + "\n" + doc.body()).toLowerCase(Locale.ROOT);
            if (needles.stream().allMatch(haystack::contains)) {
                found.add(new Summary(doc.name(), doc.description()));
            }
        }
        return found;
    }

    /**
     * The SKILL.md of skill {@code name} exactly as stored, or empty when there is no such skill.
     * It is returned even when it is not valid, so that it can be read and repaired.
     *
     * @throws SkillException when the name is invalid or the skill folder or SKILL.md is a symbolic link
     */
    public Optional<String> get(String name) throws IOException {
        SkillName skill = SkillName.of(name);
        lock.readLock().lock();
        try {
            Path folder = folderOf(skill);
            if (kindOf(folder) != Kind.FOLDER) {
                refuseLink(folder, skill);
                return Optional.empty();
            }
            Path file = folder.resolve(SKILL_FILE);
            if (kindOf(file) != Kind.FILE) {
                refuseLink(file, skill);
                return Optional.empty();
            }
            return Optional.of(read(file, skill));
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Validates {@code content} as a SKILL.md whose {@code name} field is {@code name}, then writes
     * it atomically as {@code <root>/NAME/SKILL.md}, creating the folder if needed. On any failure
     * the previous SKILL.md (if any) is unchanged and no new folder is left behind.
     *
     * @throws SkillException when the name or the content is invalid, or the folder or SKILL.md is a
     *     symbolic link or not what it should be
     */
    public Saved save(String name, String content) throws IOException {
        SkillName skill = SkillName.of(name);
        SkillDocument doc = SkillDocument.parse(content);
        if (!doc.name().equals(skill.value())) {
            throw new SkillException("the front matter field name is " + SkillName.quote(doc.name()) + " but the skill is saved as "
                    + SkillName.quote(skill.value()) + ": they must be the same.");
        }
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        lock.writeLock().lock();
        try {
            Path folder = folderOf(skill);
            boolean newFolder = false;
            switch (kindOf(folder)) {
                case MISSING -> {
                    Files.createDirectory(folder);
                    newFolder = true;
                }
                case FOLDER -> { }
                case LINK -> throw linkRefused(skill);
                default -> throw new SkillException("there is a file named " + skill + " in the skills folder where the skill's folder"
                        + " would go: choose another name.");
            }
            Path file = folder.resolve(SKILL_FILE);
            Outcome outcome = switch (kindOf(file)) {
                case MISSING -> Outcome.CREATED;
                case FILE -> Outcome.UPDATED;
                case LINK -> throw linkRefused(skill);
                default -> throw new SkillException("the " + SKILL_FILE + " of skill " + skill + " is not a regular file: it cannot be"
                        + " replaced; choose another name.");
            };
            try {
                writeAtomically(folder, file, bytes);
            } catch (IOException | RuntimeException e) {
                if (newFolder) {
                    Files.deleteIfExists(folder);
                }
                throw e;
            }
            return new Saved(skill.value(), outcome, bytes.length);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Deletes the folder of skill {@code name} with everything in it. Links inside it are removed
     * as links; what they point to is untouched.
     *
     * @return false when there is no such skill
     * @throws SkillException when the name is invalid or the skill folder or SKILL.md is a symbolic link
     */
    public boolean delete(String name) throws IOException {
        SkillName skill = SkillName.of(name);
        lock.writeLock().lock();
        try {
            Path folder = folderOf(skill);
            if (kindOf(folder) != Kind.FOLDER) {
                refuseLink(folder, skill);
                return false;
            }
            refuseLink(folder.resolve(SKILL_FILE), skill);
            // Renamed out of the way first, so the skill disappears at once even if removing its files fails halfway.
            Path trash = root.resolve(".deleted-" + skill + "-" + UUID.randomUUID());
            Files.move(folder, trash, StandardCopyOption.ATOMIC_MOVE);
            try {
                deleteTree(trash);
            } catch (IOException e) {
                LOG.warn("Skill {} is deleted but its files could not all be removed from {}", skill, trash, e);
            }
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }

    private enum Kind { MISSING, FOLDER, FILE, LINK, OTHER }

    private static Kind kindOf(Path path) throws IOException {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return Kind.MISSING;
        }
        if (attributes.isSymbolicLink()) {
            return Kind.LINK;
        }
        return attributes.isDirectory() ? Kind.FOLDER : attributes.isRegularFile() ? Kind.FILE : Kind.OTHER;
    }

    private Path folderOf(SkillName skill) {
        Path folder = root.resolve(skill.value());
        // Cannot fail for a valid name; checked anyway because escaping the root would be the worst bug here.
        if (!root.equals(folder.getParent())) {
            throw new IllegalStateException("skill folder outside the root: " + folder);
        }
        return folder;
    }

    private static void refuseLink(Path path, SkillName skill) throws IOException {
        if (kindOf(path) == Kind.LINK) {
            throw linkRefused(skill);
        }
    }

    private static SkillException linkRefused(SkillName skill) {
        return new SkillException("skill " + skill + " is a symbolic link on the server; SkillForge does not follow links out of"
                + " the skills folder, so it will not read, change or delete it. Ask the user to fix it, or use another name.");
    }

    /** Reads at most {@link SkillDocument#MAX_BYTES} (a hand-placed file may be huge), never through a link. */
    private static String read(Path file, SkillName skill) throws IOException {
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            byte[] bytes = in.readNBytes(SkillDocument.MAX_BYTES + 1);
            if (bytes.length > SkillDocument.MAX_BYTES) {
                throw new SkillException("the " + SKILL_FILE + " of skill " + skill + " is larger than " + SkillDocument.MAX_BYTES
                        + " bytes, so it is not read.");
            }
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    private static void writeAtomically(Path folder, Path file, byte[] bytes) throws IOException {
        // CREATE_NEW with a random name: never opens an existing file or a planted link.
        Path temp = folder.resolve("." + SKILL_FILE + "." + UUID.randomUUID() + ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS)) {
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true); // the rename must not reach the disk before the data
            }
            // A rename replaces the target entry itself, never what a link would point to.
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** Walks without following links (the default), so a link is deleted as a link. */
    private static void deleteTree(Path folder) throws IOException {
        Files.walkFileTree(folder, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException failure) throws IOException {
                if (failure != null) {
                    throw failure;
                }
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** The valid skills, sorted by name. */
    private List<SkillDocument> documents() throws IOException {
        List<SkillDocument> docs = new ArrayList<>();
        lock.readLock().lock();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(root)) {
            for (Path folder : entries) {
                String name = folder.getFileName().toString();
                if (!SkillName.isValid(name)) {
                    continue; // temporary and deleted folders start with a dot; other names cannot be skills
                }
                validDocument(folder, SkillName.of(name)).ifPresent(docs::add);
            }
        } finally {
            lock.readLock().unlock();
        }
        docs.sort(Comparator.comparing(SkillDocument::name));
        return docs;
    }

    private static Optional<SkillDocument> validDocument(Path folder, SkillName skill) {
        try {
            Kind kind = kindOf(folder);
            if (kind != Kind.FOLDER) {
                if (kind == Kind.LINK) {
                    LOG.warn("Skipping skill folder {}: it is a symbolic link", folder);
                }
                return Optional.empty();
            }
            Path file = folder.resolve(SKILL_FILE);
            Kind fileKind = kindOf(file);
            if (fileKind != Kind.FILE) {
                LOG.warn("Skipping skill folder {}: its {} is {}", folder, SKILL_FILE, fileKind == Kind.LINK ? "a symbolic link" : fileKind == Kind.MISSING ? "missing" : "not a regular file");
                return Optional.empty();
            }
            SkillDocument doc = SkillDocument.parse(read(file, skill));
            if (!doc.name().equals(skill.value())) {
                LOG.warn("Skipping skill folder {}: its {} says name: {}", folder, SKILL_FILE, doc.name());
                return Optional.empty();
            }
            return Optional.of(doc);
        } catch (SkillException e) {
            LOG.warn("Skipping skill folder {}: {}", folder, e.getMessage());
        } catch (IOException e) {
            LOG.warn("Skipping skill folder {}: it could not be read", folder, e);
        }
        return Optional.empty();
    }
}
