package dev.skillforge.server.skill;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The whole folder of one skill as one version holds it: {@code SKILL.md} and the files under
 * {@code scripts/}, {@code references/} and {@code assets/}, each as bytes. Only valid folders
 * exist: every factory checks the name, every path, the SKILL.md (UTF-8, the specification's
 * fields, a {@code name} equal to the skill's) and the {@link SkillLimits}, and refuses with every
 * problem named at once. Immutable; the bytes given are copied.
 */
public final class SkillFolder {

    private final SkillName name;
    private final SortedMap<SkillPath, byte[]> files;
    private final SkillDocument document;

    private SkillFolder(SkillName name, SortedMap<SkillPath, byte[]> files, SkillDocument document) {
        this.name = name;
        this.files = Collections.unmodifiableSortedMap(files);
        this.document = document;
    }

    /**
     * The folder of skill {@code name} holding {@code files}, checked against the specification and {@code limits}.
     *
     * @throws SkillException listing every problem: {@link SkillException.Kind#TOO_LARGE} when only limits are passed
     */
    public static SkillFolder of(String name, Map<SkillPath, byte[]> files, SkillLimits limits) {
        return check(name, files, limits, true);
    }

    /** A skill with only its SKILL.md. */
    public static SkillFolder ofSkillMd(String name, String skillMd, SkillLimits limits) {
        return of(name, Map.of(SkillPath.SKILL_MD, skillMd.getBytes(StandardCharsets.UTF_8)), limits);
    }

    /** A folder kept by an earlier version of SkillForge: its SKILL.md needs only a right name and description. */
    static SkillFolder legacy(String name, Map<SkillPath, byte[]> files, SkillLimits limits) {
        return check(name, files, limits, false);
    }

    /**
     * A folder as the skill store holds it: valid when it was written, so checked again only for what every version
     * has (a SKILL.md with this name and a description), not against today's limits or rules, which an operator or a
     * newer version may have made stricter since: an old version can always be read and restored.
     */
    public static SkillFolder asStored(String name, Map<SkillPath, byte[]> files) {
        return check(name, files, UNLIMITED, false);
    }

    private static final SkillLimits UNLIMITED = new SkillLimits(Integer.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, 0);

    private static SkillFolder check(String name, Map<SkillPath, byte[]> given, SkillLimits limits, boolean strict) {
        SkillName skill = SkillName.of(name);
        List<String> invalid = new ArrayList<>();
        List<String> tooLarge = new ArrayList<>();
        SortedMap<SkillPath, byte[]> files = new TreeMap<>();
        Map<String, SkillPath> seen = new HashMap<>();
        long total = 0;
        for (Map.Entry<SkillPath, byte[]> file : given.entrySet()) {
            SkillPath path = file.getKey();
            byte[] bytes = file.getValue().clone();
            SkillPath earlier = seen.putIfAbsent(path.collisionKey(), path);
            if (earlier != null) {
                invalid.add("the files " + SkillName.quote(earlier.value()) + " and " + SkillName.quote(path.value())
                        + " differ only in case or accents: they would be one file on macOS and Windows; keep one.");
            }
            if (!path.isSkillMd() && bytes.length > limits.maxFileBytes()) {
                tooLarge.add("the file " + path + " is " + bytes.length + " bytes; the limit is " + limits.maxFileBytes() + " bytes a file.");
            }
            total += bytes.length;
            files.put(path, bytes);
        }
        if (files.size() > limits.maxFiles()) {
            tooLarge.add("the skill has " + files.size() + " files; the limit is " + limits.maxFiles() + ", SKILL.md included.");
        }
        if (total > limits.maxSkillBytes()) {
            tooLarge.add("the skill's files are " + total + " bytes together; the limit is " + limits.maxSkillBytes() + " bytes.");
        }
        SkillDocument document = null;
        byte[] skillMd = files.get(SkillPath.SKILL_MD);
        if (skillMd == null) {
            invalid.add("the skill has no SKILL.md: every skill needs one at the root of its folder.");
        } else {
            Optional<String> text = SkillText.utf8(skillMd);
            if (text.isEmpty()) {
                invalid.add("SKILL.md is not UTF-8 text: save it as UTF-8.");
            } else {
                try {
                    document = strict ? SkillDocument.parseFor(skill, text.get()) : SkillDocument.parseLegacy(skill, text.get());
                } catch (SkillException e) {
                    (e.kind() == SkillException.Kind.TOO_LARGE ? tooLarge : invalid).addAll(e.problems());
                }
            }
        }
        if (!invalid.isEmpty()) {
            invalid.addAll(tooLarge);
            throw new SkillException(SkillException.Kind.INVALID, invalid);
        }
        if (!tooLarge.isEmpty()) {
            throw new SkillException(SkillException.Kind.TOO_LARGE, tooLarge);
        }
        return new SkillFolder(skill, files, document);
    }

    /** This folder with {@code path} holding {@code bytes} (added, or replacing the file there), checked again. */
    public SkillFolder with(SkillPath path, byte[] bytes, SkillLimits limits) {
        Map<SkillPath, byte[]> next = new TreeMap<>(files);
        next.put(path, bytes);
        return of(name.value(), next, limits);
    }

    /**
     * This folder without the file at {@code path}.
     *
     * @throws SkillException when {@code path} is SKILL.md (a skill without it is no skill: delete the skill instead)
     */
    public SkillFolder without(SkillPath path) {
        if (path.isSkillMd()) {
            throw new SkillException("SKILL.md cannot be removed from a skill; delete the skill instead.");
        }
        SortedMap<SkillPath, byte[]> next = new TreeMap<>(files);
        next.remove(path);
        return new SkillFolder(name, next, document);
    }

    public SkillName name() {
        return name;
    }

    /** The parsed SKILL.md. */
    public SkillDocument document() {
        return document;
    }

    /** Every file by path, SKILL.md first; the arrays are this folder's own: do not change them. */
    public SortedMap<SkillPath, byte[]> files() {
        return files;
    }

    /** The file at {@code path}, if the folder has one. */
    public Optional<byte[]> file(SkillPath path) {
        return Optional.ofNullable(files.get(path)).map(byte[]::clone);
    }

    /** Each file's path, size and SHA-256, SKILL.md first. */
    public List<SkillFileInfo> manifest() {
        return files.entrySet().stream().map(file -> new SkillFileInfo(file.getKey(), file.getValue().length,
                Sha256.hex(file.getValue()))).toList();
    }

    /** Whether {@code other} holds the same files with the same bytes. */
    public boolean sameFilesAs(SkillFolder other) {
        return manifest().equals(other.manifest());
    }
}
