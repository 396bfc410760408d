package dev.skillforge.server.provider.sim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The offline demo: a deterministic stand-in for a skill agent, so the server does something
 * plausible with no key and no network. It reads the conversation like the real agent would: looks
 * at the skills before acting, reads one with {@code skill get}, saves one with {@code skill set}
 * when asked to learn something, and answers from the tool output. Its answers to a person's
 * message start with a line saying it is a simulation.
 */
public final class DemoAgent implements SimResponder {

    public static final String SIMULATION_NOTICE = "*(Simulated provider: an offline demo, not a real model.)*";

    private static final String SHELL_PREFIX = "[Shell Output]\n";
    private static final Pattern LAST_COMMAND = Pattern.compile("<shell>([\\s\\S]*?)</shell>");
    private static final Pattern KEBAB = Pattern.compile("\\b([a-z0-9]+(?:-[a-z0-9]+)+)\\b");
    /** An attached document as the prompt carries it (core's Attachment.wrap): its name, then its text. */
    private static final Pattern DOCUMENT = Pattern.compile("<document name=\"([^\"]*)\" type=\"[^\"]*\">\n[\\s\\S]*?</document>\n\n");
    private static final Set<String> FILLER = Set.of("learn", "how", "to", "the", "a", "an", "about", "from", "this",
            "that", "video", "page", "skill", "skills", "me", "please", "save", "remember", "create", "make", "teach",
            "of", "for", "and", "on", "in", "with", "my", "your", "i", "you", "it", "can", "could", "would", "new",
            "forge", "write", "turn", "into", "as", "is", "are", "do", "does", "what", "at", "by", "so", "document", "file",
            "attached", "attachment", "pdf", "text");

    private final Duration chunkDelay;

    public DemoAgent(Duration chunkDelay) {
        this.chunkDelay = chunkDelay;
    }

    private enum Intent { LEARN, LIST, SHOW, DELETE, SEARCH, HELP }

    @Override
    public SimReply reply(List<TokenCounter.Message> messages) {
        TokenCounter.Message last = messages.getLast();
        String request = withoutDocuments(lastPersonMessage(messages));
        Intent intent = intentOf(request);
        String text;
        if (last.content().startsWith(SHELL_PREFIX)) {
            String command = lastCommand(lastAssistantContent(messages));
            text = followUp(intent, request, command, stripCommandEcho(last.content().substring(SHELL_PREFIX.length()), command));
        } else {
            text = SIMULATION_NOTICE + "\n\n" + seen(last.images()) + opening(intent, request);
        }
        return new SimReply(List.of(), chunk(text), chunkDelay, null);
    }

    /** What a model that sees would say first: the simulation cannot look, but it says what it was sent. */
    private static String seen(List<SimImage> images) {
        StringBuilder text = new StringBuilder();
        for (SimImage image : images) {
            text.append("I received an image of ").append(image.width()).append("x").append(image.height()).append(" (")
                    .append(image.mediaType()).append("); a real model would look at it, the simulation only measures it.\n\n");
        }
        return text.toString();
    }

    private static Intent intentOf(String request) {
        // Skill names such as make-cold-brew hold verbs too: only the words around them say what is asked.
        String lower = KEBAB.matcher(request.toLowerCase(Locale.ROOT)).replaceAll(" ");
        if (lower.matches("(?s).*\\b(delete|remove)\\b.*")) {
            return Intent.DELETE;
        }
        if (lower.matches("(?s).*\\b(search|find)\\b.*")) {
            return Intent.SEARCH;
        }
        if (lower.matches("(?s).*\\b(show|get|read|open|view)\\b.*")) {
            return Intent.SHOW;
        }
        if (lower.matches("(?s).*\\b(learn|teach|save|remember|create|forge|make|write)\\b.*")) {
            return Intent.LEARN;
        }
        if (lower.matches("(?s).*\\b(skills?|list|have)\\b.*")) {
            return Intent.LIST;
        }
        return Intent.HELP;
    }

    private static String opening(Intent intent, String request) {
        return switch (intent) {
            case LEARN -> "I'll check which skills you already have first, so I know whether to write a new one or update the one you have.\n\n<shell>skill list</shell>";
            case LIST -> "Let me look at your skills.\n\n<shell>skill list</shell>";
            case SHOW -> "Let me open it.\n\n<shell>skill get " + nameIn(request) + "</shell>";
            case DELETE -> "Deleting it.\n\n<shell>skill delete " + nameIn(request) + "</shell>";
            case SEARCH -> "Searching your skills.\n\n<shell>skill search " + searchWords(request) + "</shell>";
            case HELP -> """
                    I forge **skills**: `SKILL.md` files that teach an agent how to do something. Try:

                    - "What skills do I have?"
                    - "Learn how to make cold brew coffee"
                    - "Show the skill cold-brew-coffee"
                    - "Search my skills for coffee\"""";
        };
    }

    private static String followUp(Intent intent, String request, String command, String output) {
        if (command.startsWith("skill list") && intent == Intent.LEARN) {
            String name = slug(request);
            boolean exists = output.contains("- " + name + ":");
            return (exists ? "A skill named `" + name + "` exists already; I'll update it." : "No skill covers this yet; writing `" + name + "`.")
                    + "\n\n<shell>skill set " + name + "\n" + skillDocument(name, request) + "</shell>";
        }
        if (command.startsWith("skill list")) {
            if (output.startsWith("No skills yet")) {
                return "You have no skills yet. Ask me to learn something, for example \"Learn how to make cold brew coffee\".";
            }
            return output.startsWith("error") ? "I couldn't list your skills: " + firstLine(output)
                    : "Here is what you have:\n\n" + output.strip();
        }
        if (command.startsWith("skill search")) {
            // The whole list, not its "N skills match …:" heading alone.
            return output.startsWith("No skills match") ? "None of your skills match those words. Ask me what skills you have to see them all."
                    : "Found " + output.strip().replaceFirst(" match ", " matching ");
        }
        if (command.startsWith("skill set")) {
            return output.startsWith("Saved") ? firstLine(output) + " Ask me to show it, or to change anything."
                    : "Saving failed: " + firstLine(output);
        }
        if (command.startsWith("skill get")) {
            return output.startsWith("error") ? firstLine(output) : "Here it is:\n\n```markdown\n" + output.strip() + "\n```";
        }
        return firstLine(output);
    }

    private static String skillDocument(String name, String request) {
        String topic = request.replaceAll("[\\r\\n\"\\\\:#`]+", " ").strip();
        if (topic.length() > 200) {
            topic = topic.substring(0, 200);
        }
        return "---\nname: " + name + "\ndescription: \"Use when asked about: " + topic + ". Written by the offline demo.\"\n---\n"
                + "# " + name + "\n\nThis skill was written by SkillForge's simulated provider, which has no model behind it: "
                + "connect a real provider to get real instructions.\n\n## When to use\n\n- " + topic + "\n";
    }

    /**
     * What the person wrote, with each attached document reduced to its name: a skill forged from "notes.pdf" is named
     * after the request's words or, when they say no more than "this document", after the file, never after the
     * document's wrapping.
     */
    static String withoutDocuments(String message) {
        Matcher document = DOCUMENT.matcher(message);
        List<String> names = new ArrayList<>();
        String text = document.replaceAll(match -> {
            names.add(match.group(1).replaceFirst("\\.[A-Za-z0-9]{1,5}$", ""));
            return "";
        }).strip();
        if (names.isEmpty() || !slug(text).equals("new-skill")) {
            return text;
        }
        return text + " " + String.join(" ", names);
    }

    /** A skill name from the request's meaningful words, e.g. "Learn how to make cold brew" → "cold-brew". */
    static String slug(String request) {
        List<String> words = new ArrayList<>();
        for (String word : request.toLowerCase(Locale.ROOT).split("[^a-z0-9]+")) {
            if (!word.isEmpty() && !FILLER.contains(word) && words.size() < 5) {
                words.add(word);
            }
        }
        String slug = String.join("-", words);
        if (slug.length() > 64) {
            slug = slug.substring(0, 64).replaceAll("-+$", "");
        }
        return slug.isEmpty() ? "new-skill" : slug;
    }

    private static String nameIn(String request) {
        Matcher kebab = KEBAB.matcher(request.toLowerCase(Locale.ROOT));
        if (kebab.find()) {
            return kebab.group(1);
        }
        String[] words = request.toLowerCase(Locale.ROOT).split("[^a-z0-9]+");
        for (int i = words.length - 1; i >= 0; i--) {
            if (!words[i].isEmpty() && !FILLER.contains(words[i])) {
                return words[i];
            }
        }
        return "unnamed";
    }

    private static String searchWords(String request) {
        List<String> words = Arrays.stream(request.toLowerCase(Locale.ROOT).split("[^a-z0-9]+"))
                .filter(w -> !w.isEmpty() && !FILLER.contains(w) && !w.equals("search") && !w.equals("find"))
                .toList();
        return words.isEmpty() ? "skill" : String.join(" ", words);
    }

    private static String lastPersonMessage(List<TokenCounter.Message> messages) {
        for (TokenCounter.Message message : messages.reversed()) {
            if (message.role().equals("user") && !message.content().startsWith(SHELL_PREFIX)) {
                return message.content();
            }
        }
        return "";
    }

    private static String lastAssistantContent(List<TokenCounter.Message> messages) {
        for (TokenCounter.Message message : messages.reversed()) {
            if (message.role().equals("assistant")) {
                return message.content();
            }
        }
        return "";
    }

    private static String lastCommand(String assistantContent) {
        Matcher matcher = LAST_COMMAND.matcher(assistantContent);
        String command = "";
        while (matcher.find()) {
            command = matcher.group(1).strip();
        }
        return command;
    }

    /** The tool entry starts with "$ command\n" (the whole command, possibly several lines): the output is what follows. */
    private static String stripCommandEcho(String toolOutput, String command) {
        String echo = "$ " + command + "\n";
        return toolOutput.startsWith(echo) ? toolOutput.substring(echo.length()) : toolOutput;
    }

    private static String firstLine(String text) {
        String stripped = text.strip();
        int newline = stripped.indexOf('\n');
        return newline < 0 ? stripped : stripped.substring(0, newline);
    }

    /** Splits text into small chunks, as a model streams: tags end up split across chunks, which the scanner must handle. */
    private static List<String> chunk(String text) {
        List<String> chunks = new ArrayList<>();
        int at = 0;
        while (at < text.length()) {
            int end = Math.min(text.length(), at + 9);
            if (Character.isHighSurrogate(text.charAt(end - 1)) && end < text.length()) {
                end++;
            }
            chunks.add(text.substring(at, end));
            at = end;
        }
        return chunks;
    }
}
