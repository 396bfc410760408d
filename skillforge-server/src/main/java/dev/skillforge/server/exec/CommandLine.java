package dev.skillforge.server.exec;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits one command line into the words of an argv with a shell's quoting rules, and refuses
 * everything else a shell would do. Nothing is ever interpreted: a command line either becomes a
 * plain list of words or is refused with a message saying why.
 *
 * <p>Quoting, as in POSIX sh: spaces and tabs separate words; {@code 'single quotes'} keep every
 * character literally; {@code "double quotes"} keep every character except that {@code \"} and
 * {@code \\} stand for {@code "} and {@code \}; outside quotes a backslash makes the next character
 * literal. {@code ''} is an empty word.
 *
 * <p>Refused: outside quotes, the characters a shell gives a meaning ({@value #SHELL_SYNTAX}): pipes,
 * redirection, {@code ;}, {@code &&}, background jobs, command substitution, variables, globs,
 * brace and tilde expansion, subshells; {@code #} at the start of a word (a comment); a first word
 * holding {@code =} (a variable assignment); inside double quotes, {@code $} and a backquote (a
 * shell would expand them there too); anywhere, a newline or any other control character except a
 * tab; an unclosed quote; an empty line.
 */
final class CommandLine {

    /** The characters a shell would interpret outside quotes. */
    public static final String SHELL_SYNTAX = "|;&<>`$()*?[]{}~";

    private CommandLine() {
    }

    /**
     * @return the words, at least one
     * @throws CommandRefused with a message for the model when the line uses anything but plain words and quotes
     */
    public static List<String> split(String line) throws CommandRefused {
        checkCharacters(line);
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        int i = 0;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == ' ' || c == '\t') {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
                i++;
            } else if (c == '\'') {
                int end = line.indexOf('\'', i + 1);
                if (end < 0) {
                    throw new CommandRefused(CommandRefused.Kind.SYNTAX, "a single quote at column " + (i + 1) + " is never closed");
                }
                word.append(line, i + 1, end);
                inWord = true;
                i = end + 1;
            } else if (c == '"') {
                i = doubleQuoted(line, i, word);
                inWord = true;
            } else if (c == '\\') {
                if (i + 1 >= line.length()) {
                    throw new CommandRefused(CommandRefused.Kind.SYNTAX, "the line ends with a backslash, which escapes nothing");
                }
                word.append(line.charAt(i + 1));
                inWord = true;
                i += 2;
            } else {
                if (SHELL_SYNTAX.indexOf(c) >= 0) {
                    throw new CommandRefused(CommandRefused.Kind.SYNTAX, describe(line, i));
                }
                if (c == '#' && !inWord) {
                    throw new CommandRefused(CommandRefused.Kind.SYNTAX, "'#' at column " + (i + 1) + " starts a comment in a shell; quote it ('#') to pass it as text");
                }
                if (c == '=' && words.isEmpty()) {
                    throw new CommandRefused(CommandRefused.Kind.SYNTAX, "the first word holds '=': setting variables is not supported; write the program's name first");
                }
                word.append(c);
                inWord = true;
                i++;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        if (words.isEmpty()) {
            throw new CommandRefused(CommandRefused.Kind.SYNTAX, "the command is empty");
        }
        return List.copyOf(words);
    }

    /** Reads a double-quoted part starting at {@code open}; returns the index after its closing quote. */
    private static int doubleQuoted(String line, int open, StringBuilder word) throws CommandRefused {
        int i = open + 1;
        while (i < line.length()) {
            char c = line.charAt(i);
            switch (c) {
                case '"' -> {
                    return i + 1;
                }
                case '\\' -> {
                    if (i + 1 < line.length() && (line.charAt(i + 1) == '"' || line.charAt(i + 1) == '\\')) {
                        word.append(line.charAt(i + 1));
                        i += 2;
                    } else {
                        word.append(c);
                        i++;
                    }
                }
                case '$', '`' -> throw new CommandRefused(CommandRefused.Kind.SYNTAX, "'" + c + "' inside double quotes at column " + (i + 1)
                        + " would be expanded by a shell, and nothing is expanded here; use single quotes to pass it as text");
                default -> {
                    word.append(c);
                    i++;
                }
            }
        }
        throw new CommandRefused(CommandRefused.Kind.SYNTAX, "a double quote at column " + (open + 1) + " is never closed");
    }

    private static void checkCharacters(String line) throws CommandRefused {
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\n' || c == '\r') {
                throw new CommandRefused(CommandRefused.Kind.SYNTAX, "the command spans more than one line: write one command per <shell> tag, on one line");
            }
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                throw new CommandRefused(CommandRefused.Kind.SYNTAX, String.format("the command holds the control character U+%04X at column %d", (int) c, i + 1));
            }
        }
    }

    private static String describe(String line, int at) {
        char c = line.charAt(at);
        String what = switch (c) {
            case '|' -> line.startsWith("||", at) ? "'||' (run if the first fails)" : "'|' (a pipe)";
            case ';' -> "';' (a second command)";
            case '&' -> line.startsWith("&&", at) ? "'&&' (a second command)" : "'&' (a background job)";
            case '>', '<' -> "'" + c + "' (redirection)";
            case '`' -> "'`' (command substitution)";
            case '$' -> line.startsWith("$(", at) ? "'$(' (command substitution)" : "'$' (a variable)";
            case '(', ')' -> "'" + c + "' (a subshell)";
            case '*', '?', '[', ']' -> "'" + c + "' (a glob pattern)";
            case '{', '}' -> "'" + c + "' (brace expansion)";
            case '~' -> "'~' (the home folder)";
            default -> "'" + c + "'";
        };
        return "the command uses " + what + " at column " + (at + 1) + ", shell syntax that is not interpreted here: "
                + "commands run without a shell, one program with plain arguments per <shell> tag "
                + "(quote a character to pass it as text: '" + c + "')";
    }
}
