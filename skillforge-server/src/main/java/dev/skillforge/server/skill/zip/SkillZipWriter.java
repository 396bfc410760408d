package dev.skillforge.server.skill.zip;

import dev.skillforge.server.skill.SkillFolder;
import dev.skillforge.server.skill.SkillPath;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Skills as one zip in the Agent Skills layout, {@code NAME/SKILL.md}, {@code NAME/scripts/…}: unpacked
 * into a skills folder (Claude Code's {@code ~/.claude/skills}, another agent's), each is ready to
 * use, and {@link SkillZipReader} reads it back to the same bytes. Names are UTF-8; each file's time
 * is its version's, so the same versions always make the same zip.
 */
public final class SkillZipWriter implements AutoCloseable {

    private final ZipOutputStream zip;

    public SkillZipWriter(OutputStream out) {
        this.zip = new ZipOutputStream(out, StandardCharsets.UTF_8);
    }

    /** Adds every file of {@code folder} under its name's folder, dated {@code createdAt} (epoch milliseconds). */
    public void add(SkillFolder folder, long createdAt) throws IOException {
        for (Map.Entry<SkillPath, byte[]> file : folder.files().entrySet()) {
            ZipEntry entry = new ZipEntry(folder.name().value() + "/" + file.getKey().value());
            entry.setLastModifiedTime(FileTime.fromMillis(createdAt));
            zip.putNextEntry(entry);
            zip.write(file.getValue());
            zip.closeEntry();
        }
    }

    @Override
    public void close() throws IOException {
        zip.close();
    }
}
