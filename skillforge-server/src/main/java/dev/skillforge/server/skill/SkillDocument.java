package dev.skillforge.server.skill;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Parse;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.schema.CoreSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A parsed, valid SKILL.md: YAML front matter between two {@code ---} lines holding {@code name}
 * and {@code description} (and the specification's optional fields), then the Markdown
 * instructions (the body).
 *
 * <p>The text comes from the model, which may have copied it from a hostile page, so parsing is
 * defensive: the size is capped before any parsing, YAML builds only plain maps, lists and scalars
 * (no custom types), few aliases are allowed (no "billion laughs"), nesting is shallow (no stack
 * overflow), and duplicate keys are refused (no doubt about which {@code name} counts).
 */
public final class SkillDocument {

    /** The largest SKILL.md accepted, in UTF-8 bytes. */
    public static final int MAX_BYTES = 256 * 1024;
    /** The longest description accepted, in characters (code points), per the Agent Skills specification. */
    public static final int MAX_DESCRIPTION_LENGTH = 1024;
    /** The longest {@code compatibility} accepted, in characters, per the specification. */
    public static final int MAX_COMPATIBILITY_LENGTH = 500;

    static final int MAX_ALIASES = 5;
    static final int MAX_NESTING = 10;

    private static final String FENCE = "---";
    private static final Logger LOG = LoggerFactory.getLogger(SkillDocument.class);

    /**
     * Plain maps, lists and scalars only; few aliases; no duplicate keys. The read buffer holds the
     * whole front matter: snakeyaml-engine 2.10 fails with an IndexOutOfBoundsException when a
     * surrogate pair (an emoji) straddles the end of its buffer.
     */
    private static LoadSettings yamlSettings(String yaml) {
        return LoadSettings.builder()
                .setLabel("SKILL.md front matter")
                .setSchema(new CoreSchema())
                .setMaxAliasesForCollections(MAX_ALIASES)
                .setAllowRecursiveKeys(false)
                .setAllowDuplicateKeys(false)
                .setCodePointLimit(MAX_BYTES)
                .setBufferSize(yaml.length() + 1)
                .build();
    }

    private final String name;
    private final String description;
    private final String body;
    private final String text;
    private final Map<?, ?> frontMatter;

    private SkillDocument(String name, String description, String body, String text, Map<?, ?> frontMatter) {
        this.name = name;
        this.description = description;
        this.body = body;
        this.text = text;
        this.frontMatter = frontMatter;
    }

    /**
     * Parses and validates a SKILL.md as the Agent Skills specification says: {@code name} and
     * {@code description}, and only the optional {@code license}, {@code compatibility} (at most
     * {@value #MAX_COMPATIBILITY_LENGTH} characters), {@code metadata} (a map of text to text) and
     * {@code allowed-tools} besides them.
     *
     * @throws SkillException naming every problem of the fields (or the one that stops parsing), each a sentence
     */
    public static SkillDocument parse(String text) {
        return parse(text, true, null);
    }

    /** {@link #parse}, for the skill {@code skill}: a {@code name} field that differs is one more problem. */
    static SkillDocument parseFor(SkillName skill, String text) {
        return parse(text, true, skill);
    }

    /**
     * Parses the SKILL.md of {@code skill} written before the other fields were checked: only {@code name} and
     * {@code description} must be right, so that a skill kept by an earlier version is never lost.
     */
    static SkillDocument parseLegacy(SkillName skill, String text) {
        return parse(text, false, skill);
    }

    private static SkillDocument parse(String text, boolean strict, SkillName skill) {
        if (text.length() > MAX_BYTES) { // a char is at least one UTF-8 byte: no need to encode a huge text
            throw tooBig(text.length() + "+");
        }
        int bytes = text.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_BYTES) {
            throw tooBig(String.valueOf(bytes));
        }
        // Editors on Windows may save a byte order mark; it is not part of the text.
        String content = text.startsWith("\uFEFF") ? text.substring(1) : text;

        int firstLineEnd = lineEnd(content, 0);
        if (!isFence(content, 0, firstLineEnd)) {
            throw new SkillException("SKILL.md must start with a line --- that opens the YAML front matter"
                    + " (name and description), then a closing --- line, then the Markdown instructions.");
        }
        int yamlStart = next(content, firstLineEnd);
        int lineStart = yamlStart;
        while (lineStart < content.length() && !isFence(content, lineStart, lineEnd(content, lineStart))) {
            lineStart = next(content, lineEnd(content, lineStart));
        }
        if (lineStart >= content.length()) {
            throw new SkillException("the YAML front matter opened by the first --- line is never closed:"
                    + " add a line with only --- after the description, before the instructions.");
        }
        String yaml = content.substring(yamlStart, lineStart);
        String body = content.substring(next(content, lineEnd(content, lineStart)));

        Map<?, ?> fields = frontMatter(yaml);
        FrontMatterCheck check = new FrontMatterCheck(fields);
        String name = check.name();
        if (skill != null && name != null && !name.equals(skill.value())) {
            check.problem("the front matter field name is " + SkillName.quote(name) + " but the skill is saved as "
                    + SkillName.quote(skill.value()) + ": they must be the same.");
        }
        String description = check.description();
        if (strict) {
            check.optionalFields();
        }
        check.throwIfAny();
        return new SkillDocument(name, description, body, text, fields);
    }

    /** The {@code name} field (a valid {@link SkillName}). */
    public String name() {
        return name;
    }

    /** The {@code description} field, as written (1 to 1024 characters, not blank). */
    public String description() {
        return description;
    }

    /** The Markdown after the closing {@code ---} line (may be empty). */
    public String body() {
        return body;
    }

    /** The whole SKILL.md exactly as given. */
    public String text() {
        return text;
    }

    /** The front matter as YAML read it: plain maps, lists and scalars, in the order written. */
    public Map<?, ?> frontMatter() {
        return frontMatter;
    }

    private static SkillException tooBig(String bytes) {
        return new SkillException("SKILL.md is " + bytes + " bytes; the limit is " + MAX_BYTES
                + " bytes (256 KiB): shorten the instructions.");
    }

    private static Map<?, ?> frontMatter(String yaml) {
        LoadSettings settings = yamlSettings(yaml);
        Object loaded;
        try {
            checkNesting(yaml, settings);
            loaded = new Load(settings).loadFromString(yaml);
        } catch (SkillException e) {
            throw e;
        } catch (MarkedYamlEngineException e) {
            String where = e.getProblemMark().or(e::getContextMark).map(SkillDocument::lineOf).orElse("");
            String problem = Optional.ofNullable(e.getProblem()).orElse(e.getContext());
            throw new SkillException("the front matter is not valid YAML: " + oneLine(problem) + where
                    + ". Write it as simple key: value lines, quoting values that contain a colon.");
        } catch (YamlEngineException e) {
            if (String.valueOf(e.getMessage()).contains("aliases")) {
                throw new SkillException("the front matter uses too many YAML aliases (*references to &anchors):"
                        + " write name and description out as plain text.");
            }
            throw new SkillException("the front matter is not valid YAML: " + oneLine(e.getMessage())
                    + ". Write it as simple key: value lines.");
        } catch (RuntimeException e) {
            // A bug of the YAML library on hostile input must still be a refusal, not a failed command.
            LOG.warn("The YAML parser failed on a SKILL.md front matter", e);
            throw new SkillException("the front matter could not be read as YAML: write it as simple key: value lines.");
        }
        if (loaded == null) {
            throw new SkillException("the front matter is empty: it needs name and description lines.");
        }
        if (!(loaded instanceof Map<?, ?> map)) {
            throw new SkillException("the front matter must be a YAML mapping of key: value lines with name and description, not "
                    + kindOf(loaded) + ".");
        }
        return map;
    }

    /**
     * Refuses deep nesting before anything recursive sees the YAML: the parser is iterative, while
     * building the objects recurses once per level and a few thousand {@code [} would overflow the stack.
     */
    private static void checkNesting(String yaml, LoadSettings settings) {
        int depth = 0;
        for (Event event : new Parse(settings).parseString(yaml)) {
            Event.ID id = event.getEventId();
            if (id == Event.ID.MappingStart || id == Event.ID.SequenceStart) {
                if (++depth > MAX_NESTING) {
                    throw new SkillException("the front matter nests lists or mappings more than " + MAX_NESTING
                            + " levels deep: name and description are plain text.");
                }
            } else if (id == Event.ID.MappingEnd || id == Event.ID.SequenceEnd) {
                depth--;
            }
        }
    }

    static String kindOf(Object value) {
        return switch (value) {
            case Number _ -> "a number";
            case Boolean _ -> "true/false";
            case List<?> _ -> "a list";
            case Map<?, ?> _ -> "a mapping";
            case String _ -> "plain text";
            case byte[] _ -> "binary data";
            default -> "a " + value.getClass().getSimpleName();
        };
    }

    /** The mark's line as a line of SKILL.md (1-based, after the opening {@code ---}). */
    private static String lineOf(Mark mark) {
        return " (line " + (mark.getLine() + 2) + " of SKILL.md)";
    }

    private static String oneLine(String message) {
        return message == null ? "unknown problem" : message.strip().replaceAll("\\s+", " ");
    }

    private static int lineEnd(String s, int from) {
        int newline = s.indexOf('\n', from);
        return newline < 0 ? s.length() : newline;
    }

    private static int next(String s, int lineEnd) {
        return Math.min(lineEnd + 1, s.length());
    }

    /** A fence line is {@code ---} alone, allowing trailing spaces and a CR (files saved on Windows). */
    private static boolean isFence(String s, int start, int end) {
        return s.substring(start, end).stripTrailing().equals(FENCE);
    }
}
