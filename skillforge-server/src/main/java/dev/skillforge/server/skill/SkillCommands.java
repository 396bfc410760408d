package dev.skillforge.server.skill;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.CommandResult;
import dev.skillforge.core.agent.CommandRunner;
import dev.skillforge.core.shell.ShellCommand;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@code skill} commands the model writes in {@code <shell>} tags, in-process, against a
 * {@link SkillStore}.
 *
 * <p>Model output is untrusted (a page or a video transcript can carry injected commands), so
 * nothing here ever starts a process or touches a path itself: the first line is split on
 * whitespace into words, the first word must be {@code skill}, and every name goes through
 * {@link SkillName} inside the store. Shell syntax ({@code ;}, {@code |}, {@code $(…)}) is just
 * characters of a word. Anything else gets exit code {@value #EXIT_NOT_A_COMMAND} and the list of
 * commands that exist.
 *
 * <p>Exit codes: {@value #EXIT_OK} success, {@value #EXIT_ERROR} the command was understood but
 * failed ({@code error: …} says what to do), {@value #EXIT_USAGE} wrong arguments (usage text),
 * {@value #EXIT_NOT_A_COMMAND} not a skill command. The commands are quick file operations, so a
 * cancellation does not interrupt one that has started.
 */
public final class SkillCommands implements CommandRunner {

    public static final int EXIT_OK = 0;
    public static final int EXIT_ERROR = 1;
    public static final int EXIT_USAGE = 2;
    public static final int EXIT_NOT_A_COMMAND = 127;

    /** The commands, one a line, as the model should write them. */
    public static final String COMMANDS = """
            skill list              all skills, each with its description
            skill get NAME          the SKILL.md of skill NAME
            skill set NAME          create or replace skill NAME; the whole SKILL.md goes on the lines after this one, in the same tag
            skill delete NAME       delete skill NAME and its folder
            skill search WORDS...   the skills whose name, description or instructions contain every word (any case)
            skill help              this list
            """;

    static final String HELP = "Skill commands (one per <shell> tag):\n" + COMMANDS;

    private static final Logger LOG = LoggerFactory.getLogger(SkillCommands.class);

    private final SkillStore store;

    public SkillCommands(SkillStore store) {
        this.store = store;
    }

    @Override
    public CommandResult run(ShellCommand command, Cancellation cancellation) {
        String text = command.command();
        int newline = text.indexOf('\n');
        String firstLine = newline < 0 ? text : text.substring(0, newline);
        String input = newline < 0 ? "" : text.substring(newline + 1);
        List<String> words = Arrays.stream(firstLine.strip().split("\\s+")).filter(w -> !w.isEmpty()).toList();

        if (words.isEmpty() || !words.getFirst().equals("skill")) {
            String what = words.isEmpty() ? "an empty command" : SkillName.quote(words.getFirst());
            return CommandResult.failed("error: " + what + " is not a command here; nothing was run. Only these commands exist:\n"
                    + COMMANDS, EXIT_NOT_A_COMMAND);
        }
        if (words.size() == 1) {
            return usage("a subcommand is missing.");
        }
        String subcommand = words.get(1);
        List<String> args = words.subList(2, words.size());
        if (!subcommand.equals("set") && !input.isBlank()) {
            return usage("put one command in each <shell> tag; only skill set takes lines after the command.");
        }
        try {
            return switch (subcommand) {
                case "list" -> args.isEmpty() ? list() : usage("skill list takes no arguments.");
                case "get" -> args.size() == 1 ? get(args.getFirst()) : usage("skill get takes one skill name.");
                case "set" -> args.size() == 1 ? set(args.getFirst(), input) : usage("skill set takes one skill name.");
                case "delete" -> args.size() == 1 ? delete(args.getFirst()) : usage("skill delete takes one skill name.");
                case "search" -> args.isEmpty() ? usage("skill search needs at least one word.") : search(args);
                case "help", "--help", "-h" -> CommandResult.ok(HELP);
                default -> usage("there is no skill subcommand " + SkillName.quote(subcommand) + ".");
            };
        } catch (SkillException e) {
            return error(e.getMessage());
        } catch (IOException e) {
            // The model gets no server paths; the log gets the detail.
            LOG.warn("Skill command {} failed", command.id(), e);
            return error("the skill store could not read or write its files (" + e.getClass().getSimpleName()
                    + "); nothing was changed. Try again, or tell the user.");
        }
    }

    private CommandResult list() throws IOException {
        List<SkillStore.Summary> skills = store.list();
        if (skills.isEmpty()) {
            return CommandResult.ok("No skills yet. Create one with skill set NAME (see skill help).");
        }
        return CommandResult.ok(count(skills.size()) + ":\n" + lines(skills));
    }

    private CommandResult get(String name) throws IOException {
        Optional<String> content = store.get(name);
        if (content.isEmpty()) {
            return notFound(name);
        }
        return CommandResult.ok(content.get());
    }

    private CommandResult set(String name, String input) throws IOException {
        SkillName.problemWith(name).ifPresent(problem -> {
            throw new SkillException(problem);
        });
        if (input.isBlank()) {
            return usage("skill set " + name + " needs the whole SKILL.md on the lines after it, starting with a --- line,"
                    + " then name: and description:, then ---, then the instructions.");
        }
        // Blank lines between the command and the front matter are layout, not content.
        String content = input.replaceFirst("\\A(?:[ \\t]*\\r?\\n)+", "");
        // The tag scanner strips the final newline; a text file ends with one.
        if (!content.endsWith("\n")) {
            content += "\n";
        }
        try {
            SkillStore.Saved saved = store.save(name, content);
            return CommandResult.ok("Saved skill " + saved.name() + " (" + saved.outcome().name().toLowerCase(Locale.ROOT)
                    + ", " + saved.bytes() + " bytes).");
        } catch (SkillException e) {
            return error("skill " + name + " was not saved: " + e.getMessage());
        }
    }

    private CommandResult delete(String name) throws IOException {
        return store.delete(name) ? CommandResult.ok("Deleted skill " + name + ".") : notFound(name);
    }

    private CommandResult search(List<String> words) throws IOException {
        String query = SkillName.quote(String.join(" ", words));
        List<SkillStore.Summary> found = store.search(words);
        if (found.isEmpty()) {
            return CommandResult.ok("No skills match " + query + ". Try fewer or other words, or skill list.");
        }
        return CommandResult.ok(count(found.size()) + " match " + query + ":\n" + lines(found));
    }

    /** "1 skill", "3 skills". */
    public static String count(int n) {
        return n + (n == 1 ? " skill" : " skills");
    }

    /** One line per skill, {@code - NAME: description}: a multi-line description is folded onto its line. */
    public static String lines(List<SkillStore.Summary> skills) {
        return skills.stream()
                .map(s -> "- " + s.name() + ": " + s.description().strip().replaceAll("\\s+", " "))
                .collect(Collectors.joining("\n"));
    }

    private static CommandResult notFound(String name) {
        return error("there is no skill named " + name + ". Run skill list to see the skills.");
    }

    private static CommandResult error(String message) {
        return CommandResult.failed("error: " + message, EXIT_ERROR);
    }

    private static CommandResult usage(String problem) {
        return CommandResult.failed("error: " + problem + "\n" + HELP, EXIT_USAGE);
    }
}
