package dev.skillforge.server.skill;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.CommandResult;
import dev.skillforge.core.agent.CommandRunner;
import dev.skillforge.core.shell.ShellCommand;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@code skill} commands the model writes in {@code <shell>} tags, in-process, against a
 * {@link SkillStore}: each turn's runner ({@link #in}) writes as the person of the turn and names the
 * turn's conversation in every version it makes.
 *
 * <p>Model output is untrusted (a page or a video transcript can carry injected commands), so
 * nothing here ever starts a process or touches a path itself: the first line is split on
 * whitespace into words, the first word must be {@code skill}, and every name and file path goes
 * through {@link SkillName} and {@link SkillPath}. Shell syntax ({@code ;}, {@code |}, {@code $(…)})
 * is just characters of a word. Anything else gets exit code {@value #EXIT_NOT_A_COMMAND} and the
 * list of commands that exist. Nothing the model can write removes a version: a delete or a
 * rewrite adds one, and {@code skill restore} brings any earlier one back.
 *
 * <p>Exit codes: {@value #EXIT_OK} success, {@value #EXIT_ERROR} the command was understood but
 * failed ({@code error: …} says what to do), {@value #EXIT_USAGE} wrong arguments (usage text),
 * {@value #EXIT_NOT_A_COMMAND} not a skill command. The commands are quick database operations, so a
 * cancellation does not interrupt one that has started.
 */
public final class SkillCommands {

    public static final int EXIT_OK = 0;
    public static final int EXIT_ERROR = 1;
    public static final int EXIT_USAGE = 2;
    public static final int EXIT_NOT_A_COMMAND = 127;

    /** The commands, one a line, as the model should write them. */
    public static final String COMMANDS = """
            skill list                  all skills, each with its description
            skill get NAME [PATH]       the SKILL.md of skill NAME, or its file PATH
            skill files NAME            the files of skill NAME
            skill set NAME              create or replace skill NAME; the whole SKILL.md goes on the lines after this one, in the same tag
            skill file NAME PATH        create or replace file PATH of skill NAME (under scripts/, references/ or assets/); its content goes on the lines after this one
            skill history NAME          the versions of skill NAME, newest first
            skill restore NAME VERSION  make an earlier version current again (also undoes a delete)
            skill delete NAME           delete skill NAME (skill restore brings it back)
            skill search WORDS...       the skills whose name, description or instructions contain every word (any case)
            skill help                  this list
            """;

    static final String HELP = "Skill commands (one per <shell> tag):\n" + COMMANDS;

    private static final Logger LOG = LoggerFactory.getLogger(SkillCommands.class);

    private final SkillStore store;

    public SkillCommands(SkillStore store) {
        this.store = store;
    }

    /**
     * The runner of the commands of {@code owner}'s conversation's turns: they act on the owner's skills (and read the
     * team library, which the model never changes), and {@code conversationKey} (its id, or a stateless turn's key) is
     * named in the versions they make.
     */
    public CommandRunner in(String owner, String conversationKey) {
        return new Turn(new SkillAccess(owner, false), VersionSource.model(conversationKey));
    }

    /** One turn's commands: who they act for and where their versions come from. */
    private final class Turn implements CommandRunner {

        private final SkillAccess who;
        private final VersionSource source;

        Turn(SkillAccess who, VersionSource source) {
            this.who = who;
            this.source = source;
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
            if (!subcommand.equals("set") && !subcommand.equals("file") && !input.isBlank()) {
                return usage("put one command in each <shell> tag; only skill set and skill file take lines after the command.");
            }
            try {
                return switch (subcommand) {
                    case "list" -> args.isEmpty() ? list() : usage("skill list takes no arguments.");
                    case "get" -> args.size() == 1 || args.size() == 2 ? get(args) : usage("skill get takes a skill name and,"
                            + " optionally, the path of one of its files.");
                    case "files" -> args.size() == 1 ? files(args.getFirst()) : usage("skill files takes one skill name.");
                    case "set" -> args.size() == 1 ? set(args.getFirst(), input) : usage("skill set takes one skill name.");
                    case "file" -> args.size() == 2 ? file(args.get(0), args.get(1), input)
                            : usage("skill file takes a skill name and a file path, e.g. skill file csv-cleanup scripts/clean.py.");
                    case "history" -> args.size() == 1 ? history(args.getFirst()) : usage("skill history takes one skill name.");
                    case "restore" -> args.size() == 2 ? restore(args.get(0), args.get(1))
                            : usage("skill restore takes a skill name and a version number, e.g. skill restore csv-cleanup 3.");
                    case "delete" -> args.size() == 1 ? delete(args.getFirst()) : usage("skill delete takes one skill name.");
                    case "search" -> args.isEmpty() ? usage("skill search needs at least one word.") : search(args);
                    case "help", "--help", "-h" -> CommandResult.ok(HELP);
                    default -> usage("there is no skill subcommand " + SkillName.quote(subcommand) + ".");
                };
            } catch (SkillException e) {
                return error(e.getMessage());
            } catch (RuntimeException e) {
                // The model gets no server details; the log gets them.
                LOG.warn("Skill command {} failed", command.id(), e);
                return error("the skill store could not be read or written (" + e.getClass().getSimpleName()
                        + "); nothing was changed. Try again, or tell the user.");
            }
        }

        private CommandResult list() {
            List<SkillSummary> skills = store.list(who.owner());
            if (skills.isEmpty()) {
                return CommandResult.ok("No skills yet. Create one with skill set NAME (see skill help).");
            }
            return CommandResult.ok(count(skills.size()) + ":\n" + lines(skills));
        }

        private CommandResult get(List<String> args) {
            String name = checkedName(args.getFirst());
            SkillVersion current = store.current(who.owner(), name).orElseThrow(() -> notFound(name));
            SkillPath path = args.size() == 2 ? SkillPath.of(args.get(1)) : SkillPath.SKILL_MD;
            byte[] bytes = store.folder(who.owner(), name, current.version()).flatMap(folder -> folder.file(path))
                    .orElseThrow(() -> new SkillException("skill " + name + " has no file " + path + ". skill files " + name
                            + " lists its files."));
            return SkillText.decode(bytes).map(CommandResult::ok).orElseGet(() -> error(path + " of skill " + name + " is binary ("
                    + bytes.length + " bytes): it cannot be shown as text."));
        }

        private CommandResult files(String name) {
            SkillVersion current = store.current(who.owner(), checkedName(name)).orElseThrow(() -> notFound(name));
            return CommandResult.ok(SkillReplies.files(current));
        }

        private CommandResult set(String name, String input) {
            checkedName(name);
            if (input.isBlank()) {
                return usage("skill set " + name + " needs the whole SKILL.md on the lines after it, starting with a --- line,"
                        + " then name: and description:, then ---, then the instructions.");
            }
            try {
                return saved(store.putFile(who, name, SkillPath.SKILL_MD, content(input), source), SkillPath.SKILL_MD);
            } catch (SkillException e) {
                return error("skill " + name + " was not saved: " + e.getMessage());
            }
        }

        private CommandResult file(String name, String pathText, String input) {
            checkedName(name);
            SkillPath path = SkillPath.of(pathText);
            if (input.isBlank()) {
                return usage("skill file " + name + " " + path + " needs the whole content of the file on the lines after it.");
            }
            try {
                return saved(store.putFile(who, name, path, content(input), source), path);
            } catch (SkillException e) {
                return error(path + " of skill " + name + " was not saved: " + e.getMessage());
            }
        }

        private CommandResult history(String name) {
            List<SkillVersion> versions = store.history(who.owner(), checkedName(name));
            if (versions.isEmpty()) {
                throw notFound(name);
            }
            return CommandResult.ok(SkillReplies.history(versions));
        }

        private CommandResult restore(String name, String versionText) {
            checkedName(name);
            if (!versionText.matches("v?[0-9]{1,9}")) {
                return usage("the version is a number from skill history " + name + ", e.g. 3.");
            }
            int version = Integer.parseInt(versionText.replace("v", ""));
            Written written = store.restore(who, name, version, source);
            if (written.outcome() == Written.Outcome.UNCHANGED) {
                return CommandResult.ok("Skill " + name + " already holds the files of version " + version + " (it is version "
                        + written.version().version() + "); nothing changed.");
            }
            return CommandResult.ok("Restored skill " + name + " to the files of version " + version + ", as its new version "
                    + written.version().version() + ".");
        }

        private CommandResult delete(String name) {
            Optional<SkillVersion> deleted = store.delete(who, checkedName(name), source);
            if (deleted.isEmpty()) {
                return notFoundResult(name);
            }
            return CommandResult.ok("Deleted skill " + name + ". Its versions are kept: skill restore " + name + " "
                    + (deleted.get().version() - 1) + " brings it back.");
        }

        private CommandResult search(List<String> words) {
            String query = SkillName.quote(String.join(" ", words));
            List<SkillSummary> found = store.search(who.owner(), words);
            if (found.isEmpty()) {
                return CommandResult.ok("No skills match " + query + ". Try fewer or other words, or skill list.");
            }
            return CommandResult.ok(count(found.size()) + " match " + query + ":\n" + lines(found));
        }
    }

    private static CommandResult saved(Written written, SkillPath path) {
        SkillVersion version = written.version();
        long bytes = version.files().stream().filter(f -> f.path().equals(path)).mapToLong(SkillFileInfo::size).sum();
        String what = path.isSkillMd() ? "skill " + version.name() : path + " of skill " + version.name();
        if (written.outcome() == Written.Outcome.UNCHANGED) {
            return CommandResult.ok("Saved " + what + " (unchanged, " + bytes + " bytes): it already held exactly this, so no new"
                    + " version was made.");
        }
        return CommandResult.ok("Saved " + what + " (" + written.outcome().name().toLowerCase(Locale.ROOT) + ", " + bytes
                + " bytes, version " + version.version() + ").");
    }

    /** The text after the command line, as the file's bytes: blank lines before it are layout, and a text file ends with a newline. */
    private static byte[] content(String input) {
        String content = input.replaceFirst("\\A(?:[ \\t]*\\r?\\n)+", "");
        // The tag scanner strips the final newline.
        if (!content.endsWith("\n")) {
            content += "\n";
        }
        return content.getBytes(StandardCharsets.UTF_8);
    }

    private static String checkedName(String name) {
        return SkillName.of(name).value();
    }

    /** "1 skill", "3 skills". */
    public static String count(int n) {
        return n + (n == 1 ? " skill" : " skills");
    }

    /** One line per skill, {@code - NAME: description}: a multi-line description is folded onto its line; team skills say so. */
    public static String lines(List<SkillSummary> skills) {
        return skills.stream()
                .map(s -> "- " + s.name() + (s.team() ? " (team library)" : "") + ": " + s.description().strip().replaceAll("\\s+", " "))
                .collect(Collectors.joining("\n"));
    }

    private static SkillException notFound(String name) {
        return new SkillException(SkillException.Kind.NOT_FOUND, "there is no skill named " + name + ". Run skill list to see the skills.");
    }

    private static CommandResult notFoundResult(String name) {
        return error(notFound(name).getMessage());
    }

    private static CommandResult error(String message) {
        return CommandResult.failed("error: " + message, EXIT_ERROR);
    }

    private static CommandResult usage(String problem) {
        return CommandResult.failed("error: " + problem + "\n" + HELP, EXIT_USAGE);
    }
}
