package dev.skillforge.server.skill;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A valid skill name, per the Agent Skills specification: 1 to 64 characters of {@code a-z},
 * {@code 0-9} and {@code -}, no hyphen at either end and no two hyphens in a row.
 *
 * <p>The name is also the folder the skill lives in, so this check is what keeps every skill
 * inside the skills root: a valid name has no {@code /}, no {@code \}, no dot and nothing outside
 * ASCII, hence cannot be {@code .}, {@code ..}, an absolute path or a look-alike of another name.
 */
public record SkillName(String value) {

    public static final int MAX_LENGTH = 64;

    /** What a name may be, in words the model can follow. */
    public static final String RULES = "A skill name is 1 to 64 characters of lowercase letters a-z, digits 0-9 and hyphens,"
            + " not starting or ending with a hyphen and without two hyphens in a row, e.g. pdf-table-extraction.";

    // Java's [a-z] is ASCII-only, so Unicode look-alikes (Cyrillic 'а', fullwidth letters) fail here.
    private static final Pattern FORM = Pattern.compile("[a-z0-9]+(?:-[a-z0-9]+)*");

    /** @throws SkillException when {@code value} is not a valid name (the message says why and what is allowed) */
    public SkillName {
        Optional<String> problem = problemWith(value);
        if (problem.isPresent()) {
            throw new SkillException(problem.get());
        }
    }

    /** @throws SkillException when {@code value} is not a valid name */
    public static SkillName of(String value) {
        return new SkillName(value);
    }

    public static boolean isValid(String value) {
        return problemWith(value).isEmpty();
    }

    /** Why {@code value} is not a valid skill name (one line, naming the rules), or empty when it is valid. */
    public static Optional<String> problemWith(String value) {
        if (value == null || value.isEmpty()) {
            return Optional.of("the skill name is empty. " + RULES);
        }
        if (value.length() <= MAX_LENGTH && FORM.matcher(value).matches()) {
            return Optional.empty();
        }
        return Optional.of("the skill name " + quote(value) + " is not allowed: " + reason(value) + ". " + RULES);
    }

    private static String reason(String value) {
        int length = value.codePointCount(0, value.length());
        if (length > MAX_LENGTH) {
            return "it is " + length + " characters long";
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '/' || c == '\\' || c == '.') {
                return "a name is not a path, so it cannot contain / \\ or .";
            }
            if (c >= 'A' && c <= 'Z') {
                return "it has uppercase letters";
            }
            if (!(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '-') {
                return "it has the character " + quote(String.valueOf(Character.toChars(value.codePointAt(i))));
            }
        }
        if (value.startsWith("-") || value.endsWith("-")) {
            return "it starts or ends with a hyphen";
        }
        return "it has two hyphens in a row";
    }

    /**
     * {@code text} in double quotes, safe to show the model and to log: at most 64 characters, and
     * anything outside printable ASCII written as a {@code \}{@code uXXXX} escape, so a NUL, a
     * newline or a look-alike letter is visible as what it is.
     */
    static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        int shown = Math.min(text.length(), MAX_LENGTH);
        for (int i = 0; i < shown; i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        if (shown < text.length()) {
            out.append("...");
        }
        return out.append('"').toString();
    }

    @Override
    public String toString() {
        return value;
    }
}
