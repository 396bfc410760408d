package dev.skillforge.server.skill;

import java.text.Normalizer;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The path of one file inside a skill's folder, relative to it, with {@code /} between folders:
 * {@code SKILL.md}, or a file under {@code scripts/}, {@code references/} or {@code assets/} (the
 * folders the Agent Skills specification names), e.g. {@code scripts/extract.py}.
 *
 * <p>A path is data that comes from the model, a zip or a URL, and it names a file that others
 * unpack on their disks, so it is checked strictly: no empty, {@code .} or {@code ..} segment, no
 * leading {@code /}, no backslash, no control character, none of Windows' reserved characters
 * ({@code < > : " | ? *}), no segment ending in a dot or a space, at most {@value #MAX_LENGTH}
 * characters and {@value #MAX_DEPTH} levels. Two paths that differ only in case or Unicode
 * normalisation would be one file on macOS or Windows: {@link #collisionKey()} tells them apart.
 */
public record SkillPath(String value) implements Comparable<SkillPath> {

    /** The skill's instructions, at the folder's root. */
    public static final SkillPath SKILL_MD = new SkillPath("SKILL.md");
    /** The folders a skill's other files live in. */
    public static final List<String> FOLDERS = List.of("scripts", "references", "assets");

    private static final String SKILL_MD_NAME = "SKILL.md";
    static final int MAX_LENGTH = 200;
    static final int MAX_DEPTH = 8;
    private static final String RULES = "A file of a skill is SKILL.md or lies under scripts/, references/ or assets/,"
            + " e.g. scripts/extract.py.";

    /** @throws SkillException when {@code value} is not a path a skill's file may have (the message says why) */
    public SkillPath {
        Optional<String> problem = problemWith(value);
        if (problem.isPresent()) {
            throw new SkillException(problem.get());
        }
    }

    public static SkillPath of(String value) {
        return new SkillPath(value);
    }

    public static boolean isValid(String value) {
        return problemWith(value).isEmpty();
    }

    /** Why {@code value} is not a skill file's path (one sentence naming the rules), or empty when it is one. */
    public static Optional<String> problemWith(String value) {
        if (value == null || value.isEmpty()) {
            return Optional.of("the file path is empty. " + RULES);
        }
        String quoted = SkillName.quote(value);
        if (value.equals(SKILL_MD_NAME)) {
            return Optional.empty();
        }
        if (value.length() > MAX_LENGTH) {
            return Optional.of("the file path " + quoted + " is " + value.length() + " characters long; the limit is " + MAX_LENGTH + ".");
        }
        if (value.startsWith("/") || value.contains("\\") || value.matches("(?s)^[A-Za-z]:.*")) {
            return Optional.of("the file path " + quoted + " is absolute or uses backslashes: give it relative to the skill's"
                    + " folder, with /, e.g. scripts/extract.py.");
        }
        String[] segments = value.split("/", -1);
        for (String segment : segments) {
            Optional<String> problem = segmentProblem(segment);
            if (problem.isPresent()) {
                return Optional.of("the file path " + quoted + " " + problem.get() + ".");
            }
        }
        if (segments.length > MAX_DEPTH) {
            return Optional.of("the file path " + quoted + " is " + segments.length + " levels deep; the limit is " + MAX_DEPTH + ".");
        }
        if (segments.length < 2 || !FOLDERS.contains(segments[0])) {
            return Optional.of("the file " + quoted + " is not allowed where it is. " + RULES);
        }
        return Optional.empty();
    }

    private static Optional<String> segmentProblem(String segment) {
        if (segment.isEmpty()) {
            return Optional.of("has an empty folder name (// or a / at an end)");
        }
        if (segment.equals(".") || segment.equals("..")) {
            return Optional.of("has a " + segment + " part: a file of a skill stays inside its folder");
        }
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
                return Optional.of("has a control character");
            }
            if ("<>:\"|?*".indexOf(c) >= 0) {
                return Optional.of("has the character " + c + ", which Windows cannot hold in a file name");
            }
        }
        if (segment.endsWith(".") || segment.endsWith(" ") || segment.startsWith(" ")) {
            return Optional.of("has a name that starts with a space or ends with a dot or a space");
        }
        return Optional.empty();
    }

    /** Whether this is the skill's SKILL.md. */
    public boolean isSkillMd() {
        return value.equals(SKILL_MD_NAME);
    }

    /** The same for paths that one case-insensitive, normalising file system (macOS, Windows) would take for one file. */
    public String collisionKey() {
        return Normalizer.normalize(value, Normalizer.Form.NFC).toLowerCase(Locale.ROOT);
    }

    /** SKILL.md first, then by path. */
    @Override
    public int compareTo(SkillPath other) {
        if (isSkillMd() != other.isSkillMd()) {
            return isSkillMd() ? -1 : 1;
        }
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
