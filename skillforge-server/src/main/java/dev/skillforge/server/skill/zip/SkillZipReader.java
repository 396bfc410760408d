package dev.skillforge.server.skill.zip;

import dev.skillforge.server.skill.SkillDocument;
import dev.skillforge.server.skill.SkillException;
import dev.skillforge.server.skill.SkillFolder;
import dev.skillforge.server.skill.SkillLimits;
import dev.skillforge.server.skill.SkillName;
import dev.skillforge.server.skill.SkillPath;
import dev.skillforge.server.skill.SkillText;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The skills in a zip, in any of the layouts people make: a {@code SKILL.md} at the root (one skill,
 * named by its front matter), one skill's folder, several skills' folders, or those folders inside
 * one more folder. What macOS and Windows add by themselves ({@code __MACOSX/}, {@code .DS_Store},
 * {@code Thumbs.db}, {@code desktop.ini}) is skipped and said.
 *
 * <p>A zip is hostile until proved otherwise: {@link ZipDirectory} checks its structure, every name
 * must be a path a skill's file may have ({@link SkillPath}: no {@code ..}, no absolute path, only
 * under {@code scripts/}, {@code references/} or {@code assets/}), the declared sizes are checked
 * against the {@link SkillLimits} before anything is unpacked, and {@link ZipEntryReader} unpacks
 * no more than declared. Every skill is then checked whole ({@link SkillFolder}). The first problem
 * refuses the whole zip; nothing is written until every skill in it passed.
 */
public final class SkillZipReader {

    /** Entries read from one zip, folders included. */
    public static final int MAX_ENTRIES = 10_000;
    /** Skills in one zip. */
    public static final int MAX_SKILLS = 100;
    /** Bytes one zip may unpack to, all skills together. */
    public static final long MAX_UNPACKED_BYTES = 256L * 1024 * 1024;

    private static final Set<String> JUNK = Set.of(".DS_Store", "Thumbs.db", "desktop.ini");

    private final SkillLimits limits;

    public SkillZipReader(SkillLimits limits) {
        this.limits = limits;
    }

    /** The skills of a zip, each checked, and the entries skipped as what an operating system adds. */
    public record Unpacked(List<SkillFolder> skills, List<String> skipped) {
    }

    /**
     * @throws ZipRefusedException when the zip is malformed, hostile or too large
     * @throws SkillException      when a skill in it is not a valid skill (every problem named, with the skill's name)
     */
    public Unpacked read(byte[] zip) {
        List<ZipDirectory.Entry> entries = ZipDirectory.read(zip, MAX_ENTRIES);
        List<String> skipped = new ArrayList<>();
        List<ZipDirectory.Entry> files = new ArrayList<>();
        for (ZipDirectory.Entry entry : entries) {
            if (isJunk(entry.name())) {
                skipped.add(entry.name());
            } else if (entry.directory()) {
                checkPathSyntax(entry.name().endsWith("/") ? entry.name().substring(0, entry.name().length() - 1) : entry.name());
            } else {
                files.add(entry);
            }
        }
        if (files.isEmpty()) {
            throw new ZipRefusedException("the zip holds no files: put a skill's folder (with its SKILL.md) in it.");
        }
        long declared = files.stream().mapToLong(ZipDirectory.Entry::size).sum();
        if (declared > MAX_UNPACKED_BYTES) {
            throw ZipRefusedException.tooLarge("the zip unpacks to " + declared + " bytes; at most " + MAX_UNPACKED_BYTES
                    + " are imported at once: import fewer skills at a time.");
        }
        Map<String, Map<SkillPath, ZipDirectory.Entry>> skills = layout(files);
        if (skills.size() > MAX_SKILLS) {
            throw ZipRefusedException.tooLarge("the zip holds " + skills.size() + " skills; at most " + MAX_SKILLS + " are imported at once.");
        }
        skills.forEach(this::checkDeclaredSizes);
        List<SkillFolder> folders = new ArrayList<>();
        for (Map.Entry<String, Map<SkillPath, ZipDirectory.Entry>> skill : skills.entrySet()) {
            Map<SkillPath, byte[]> contents = new TreeMap<>();
            skill.getValue().forEach((path, entry) -> contents.put(path, ZipEntryReader.read(zip, entry)));
            folders.add(folder(skill.getKey(), contents));
        }
        return new Unpacked(List.copyOf(folders), List.copyOf(skipped));
    }

    /** Each skill's files by path, under the skill's name ({@code "" }: named by its SKILL.md, at the zip's root). */
    private static Map<String, Map<SkillPath, ZipDirectory.Entry>> layout(List<ZipDirectory.Entry> files) {
        List<String> names = files.stream().map(ZipDirectory.Entry::name).toList();
        String prefix = "";
        if (!names.contains("SKILL.md")) {
            String first = names.getFirst().contains("/") ? names.getFirst().substring(0, names.getFirst().indexOf('/') + 1) : "";
            boolean wrapped = !first.isEmpty() && names.stream().allMatch(n -> n.startsWith(first)) && !names.contains(first + "SKILL.md");
            prefix = wrapped ? first : "";
        }
        boolean atRoot = names.contains(prefix + "SKILL.md");
        Map<String, Map<SkillPath, ZipDirectory.Entry>> skills = new LinkedHashMap<>();
        for (ZipDirectory.Entry file : files) {
            String name = file.name().substring(prefix.length());
            checkPathSyntax(file.name());
            String skill;
            String path;
            if (atRoot) {
                skill = "";
                path = name;
            } else {
                int slash = name.indexOf('/');
                if (slash < 0) {
                    throw new ZipRefusedException(ZipDirectory.quote(file.name()) + " lies outside any skill's folder: a zip of skills"
                            + " holds a folder per skill (NAME/SKILL.md, NAME/scripts/…), or one SKILL.md at its root.");
                }
                skill = name.substring(0, slash);
                path = name.substring(slash + 1);
                SkillName.problemWith(skill).ifPresent(problem -> {
                    throw new ZipRefusedException("the folder " + ZipDirectory.quote(skill) + " cannot be a skill's: " + problem);
                });
            }
            SkillPath.problemWith(path).ifPresent(problem -> {
                throw new ZipRefusedException(ZipDirectory.quote(file.name()) + " cannot be imported: " + problem);
            });
            skills.computeIfAbsent(skill, s -> new TreeMap<>()).put(SkillPath.of(path), file);
        }
        skills.forEach((skill, paths) -> {
            if (!paths.containsKey(SkillPath.SKILL_MD)) {
                throw new ZipRefusedException("the folder " + ZipDirectory.quote(skill) + " has no SKILL.md, so it is not a skill.");
            }
        });
        return skills;
    }

    /** Refuses names that would leave the folder they are unpacked in, whatever layout they are in. */
    private static void checkPathSyntax(String name) {
        if (name.startsWith("/") || name.contains("\\") || name.matches("(?s)^[A-Za-z]:.*")) {
            throw new ZipRefusedException(ZipDirectory.quote(name) + " is an absolute path or uses backslashes: a zip of skills"
                    + " holds relative paths with /.");
        }
        for (String segment : name.split("/", -1)) {
            if (segment.equals("..") || segment.equals(".")) {
                throw new ZipRefusedException(ZipDirectory.quote(name) + " has a " + segment + " part: it would be unpacked outside"
                        + " its folder.");
            }
        }
    }

    private void checkDeclaredSizes(String skill, Map<SkillPath, ZipDirectory.Entry> files) {
        String which = skill.isEmpty() ? "the skill" : "skill " + skill;
        if (files.size() > limits.maxFiles()) {
            throw ZipRefusedException.tooLarge(which + " has " + files.size() + " files; the limit is " + limits.maxFiles() + ".");
        }
        long total = 0;
        for (Map.Entry<SkillPath, ZipDirectory.Entry> file : files.entrySet()) {
            long max = file.getKey().isSkillMd() ? SkillDocument.MAX_BYTES : limits.maxFileBytes();
            if (file.getValue().size() > max) {
                throw ZipRefusedException.tooLarge(file.getKey() + " of " + which + " unpacks to " + file.getValue().size()
                        + " bytes; the limit is " + max + " bytes a file.");
            }
            total += file.getValue().size();
        }
        if (total > limits.maxSkillBytes()) {
            throw ZipRefusedException.tooLarge(which + " unpacks to " + total + " bytes; the limit is " + limits.maxSkillBytes() + " bytes.");
        }
    }

    /** The skill checked whole; at the root, named by its SKILL.md. Problems name the skill. */
    private SkillFolder folder(String skill, Map<SkillPath, byte[]> contents) {
        String name = skill;
        try {
            if (name.isEmpty()) {
                String text = SkillText.utf8(contents.get(SkillPath.SKILL_MD))
                        .orElseThrow(() -> new SkillException("SKILL.md is not UTF-8 text: save it as UTF-8."));
                name = SkillDocument.parse(text).name();
            }
            return SkillFolder.of(name, contents, limits);
        } catch (SkillException e) {
            String which = name.isEmpty() ? "the SKILL.md at the zip's root: " : "skill " + name + ": ";
            throw new SkillException(e.kind(), e.problems().stream().map(problem -> which + problem).toList());
        }
    }

    private static boolean isJunk(String name) {
        String last = name.endsWith("/") ? "" : name.substring(name.lastIndexOf('/') + 1);
        return name.startsWith("__MACOSX/") || JUNK.contains(last);
    }
}
