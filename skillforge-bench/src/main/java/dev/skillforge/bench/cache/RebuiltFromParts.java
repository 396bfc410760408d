package dev.skillforge.bench.cache;

import dev.skillforge.core.context.ContextView;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.Transcript;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Baseline (one of the history strategies SkillForge replaced): each past turn's answer rebuilt from what the page shows, one assistant
 * message for the whole turn: each iteration's text with its {@code <shell>} tags replaced by the
 * output shown in their place ({@code "[Shell Output]\n$ cmd\n…"}). The current turn's iterations
 * are sent as they are.
 */
final class RebuiltFromParts implements ContextView {

    private static final Pattern SHELL_TAG = Pattern.compile("<shell>.*?</shell>", Pattern.DOTALL);

    @Override
    public List<Entry> prepare(Transcript transcript, String systemPrompt) {
        return Turns.pastTurnsAnswered(transcript.entries(), RebuiltFromParts::rebuilt);
    }

    /** The turn's iterations as one answer, as the page shows them; none when no iteration was answered. */
    private static Optional<Entry> rebuilt(List<Entry> turn) {
        StringBuilder answer = new StringBuilder();
        boolean answered = false;
        for (int i = 1; i < turn.size(); i++) {
            if (turn.get(i) instanceof Entry.Assistant assistant) {
                Entry next = i + 1 < turn.size() ? turn.get(i + 1) : null;
                answer.append(shown(assistant.content(), next instanceof Entry.Tool tool ? tool.content() : ""));
                answered = true;
            }
        }
        return answered ? Optional.of(new Entry.Assistant(answer.toString())) : Optional.empty();
    }

    /** An iteration as the page shows it: the first tag's place holds all its commands' output, the other tags are gone. */
    private static String shown(String text, String toolOutput) {
        Matcher tags = SHELL_TAG.matcher(text);
        StringBuilder shown = new StringBuilder();
        boolean first = true;
        while (tags.find()) {
            tags.appendReplacement(shown, first ? Matcher.quoteReplacement("[Shell Output]\n" + toolOutput) : "");
            first = false;
        }
        tags.appendTail(shown);
        return shown.toString();
    }
}
