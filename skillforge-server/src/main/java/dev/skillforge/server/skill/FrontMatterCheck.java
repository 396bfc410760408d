package dev.skillforge.server.skill;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fields of a SKILL.md front matter checked against the Agent Skills specification, every
 * problem collected rather than the first one thrown, so that one answer says all that must change.
 */
final class FrontMatterCheck {

    /** The fields the specification defines; the reference validator ({@code skills-ref}) refuses any other. */
    static final Set<String> FIELDS = Set.of("name", "description", "license", "compatibility", "metadata", "allowed-tools");

    private final Map<?, ?> fields;
    private final List<String> problems = new ArrayList<>();

    FrontMatterCheck(Map<?, ?> fields) {
        this.fields = fields;
    }

    /** The {@code name} field, or null with its problem noted. */
    String name() {
        String name = requiredText("name", "the skill's name, e.g. name: pdf-table-extraction");
        if (name != null) {
            SkillName.problemWith(name).ifPresent(problem -> problems.add("the front matter field name is invalid: " + problem));
        }
        return name;
    }

    /** The {@code description} field, or null with its problem noted. */
    String description() {
        String description = requiredText("description", "what the skill does and when to use it");
        if (description == null) {
            return null;
        }
        if (description.isBlank()) {
            problems.add("the front matter field description is blank: say what the skill does and when to use it.");
        }
        int length = description.codePointCount(0, description.length());
        if (length > SkillDocument.MAX_DESCRIPTION_LENGTH) {
            problems.add("the front matter field description is " + length + " characters long; the limit is "
                    + SkillDocument.MAX_DESCRIPTION_LENGTH + ": shorten it and move details into the instructions.");
        }
        return description;
    }

    /** {@code license}, {@code compatibility}, {@code metadata}, {@code allowed-tools}, and no field the specification lacks. */
    void optionalFields() {
        optionalText("license");
        String compatibility = optionalText("compatibility");
        if (compatibility != null) {
            int length = compatibility.codePointCount(0, compatibility.length());
            if (compatibility.isBlank() || length > SkillDocument.MAX_COMPATIBILITY_LENGTH) {
                problems.add("the front matter field compatibility is " + length + " characters long; it must be 1 to "
                        + SkillDocument.MAX_COMPATIBILITY_LENGTH + " (the environment the skill needs, in a sentence).");
            }
        }
        optionalText("allowed-tools");
        if (fields.containsKey("metadata")) {
            Object metadata = fields.get("metadata");
            if (!(metadata instanceof Map<?, ?> map)) {
                problems.add("the front matter field metadata must be a mapping of key: value lines, not "
                        + (metadata == null ? "empty" : SkillDocument.kindOf(metadata)) + ".");
            } else {
                map.forEach((key, value) -> {
                    if (!(key instanceof String) || !(value instanceof String)) {
                        problems.add("metadata." + key + " must be text: metadata maps text keys to text values (quote numbers,"
                                + " e.g. version: \"1.0\").");
                    }
                });
            }
        }
        for (Object field : fields.keySet()) {
            if (!(field instanceof String key) || !FIELDS.contains(key)) {
                problems.add("the front matter field " + SkillName.quote(String.valueOf(field)) + " is not one of the Agent Skills"
                        + " specification's (name, description, license, compatibility, metadata, allowed-tools): move it under"
                        + " metadata (a line metadata: then an indented line " + SkillName.quote(field + ": ...") + ").");
            }
        }
    }

    /** Notes a problem found by the caller. */
    void problem(String problem) {
        problems.add(problem);
    }

    /** @throws SkillException with every problem noted, when there is one */
    void throwIfAny() {
        if (!problems.isEmpty()) {
            throw new SkillException(SkillException.Kind.INVALID, problems);
        }
    }

    private String requiredText(String field, String hint) {
        if (!fields.containsKey(field)) {
            problems.add("the front matter has no " + field + " field: add " + field + ": with " + hint + ".");
            return null;
        }
        Object value = fields.get(field);
        if (value == null) {
            problems.add("the front matter field " + field + " is empty: give " + hint + ".");
            return null;
        }
        if (!(value instanceof String text)) {
            problems.add("the front matter field " + field + " must be text, not " + SkillDocument.kindOf(value)
                    + ": put it in quotes if it looks like another type.");
            return null;
        }
        return text;
    }

    private String optionalText(String field) {
        if (!fields.containsKey(field)) {
            return null;
        }
        Object value = fields.get(field);
        if (!(value instanceof String text)) {
            problems.add("the front matter field " + field + " must be text, not "
                    + (value == null ? "empty" : SkillDocument.kindOf(value)) + ".");
            return null;
        }
        return text;
    }
}
