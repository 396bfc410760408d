package dev.skillforge.bench.cache;

import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.Transcript;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** What each baseline sends of a transcript: two past turns (one with a command) and a current turn mid-way. */
class BaselineViewsTest {

    private static final Entry.User FIRST = new Entry.User("What skills do I have?");
    private static final Entry.Assistant LOOK = new Entry.Assistant("Let me look.\n\n<shell>skill list</shell><shell>skill get a</shell>");
    private static final Entry.Tool LISTED = new Entry.Tool("$ skill list\n- a: A.\n\n$ skill get a\n---\nname: a\n---");
    private static final Entry.Assistant ANSWER = new Entry.Assistant("You have one: a.");
    private static final Entry.User SECOND = new Entry.User("Thanks.");
    private static final Entry.Assistant WELCOME = new Entry.Assistant("You are welcome.");
    private static final Entry.User CURRENT = new Entry.User("Delete it.");
    private static final Entry.Assistant DELETING = new Entry.Assistant("<shell>skill delete a</shell>");
    private static final Entry.Tool DELETED = new Entry.Tool("$ skill delete a\nDeleted a.");

    private static final Transcript TRANSCRIPT = new Transcript(List.of(FIRST, LOOK, LISTED, ANSWER, SECOND, WELCOME, CURRENT, DELETING, DELETED));

    @Test
    void textEmbeddedHistoryPastesThePastTurnsAsTextBeforeTheCurrentMessage() {
        List<Entry> view = new TextEmbeddedHistory().prepare(TRANSCRIPT, "sys");

        assertThat(view).containsExactly(new Entry.User("""
                === CONVERSATION HISTORY ===
                Turn 1: user said: What skills do I have?
                Turn 1: assistant said: Let me look.

                <shell>skill list</shell><shell>skill get a</shell>
                Turn 1: tool said: $ skill list
                - a: A.

                $ skill get a
                ---
                name: a
                ---
                Turn 1: assistant said: You have one: a.
                Turn 2: user said: Thanks.
                Turn 2: assistant said: You are welcome.


                Delete it."""), DELETING, DELETED);
    }

    @Test
    void textEmbeddedHistoryOfAFirstTurnIsTheTurnItself() {
        Transcript first = new Transcript(List.of(FIRST, LOOK, LISTED));

        assertThat(new TextEmbeddedHistory().prepare(first, "sys")).containsExactly(FIRST, LOOK, LISTED);
    }

    @Test
    void rebuiltFromPartsMakesEachPastTurnOneAnswerWithTheOutputWhereTheTagsWere() {
        List<Entry> view = new RebuiltFromParts().prepare(TRANSCRIPT, "sys");

        assertThat(view).containsExactly(FIRST, new Entry.Assistant("Let me look.\n\n[Shell Output]\n" + LISTED.content() + "You have one: a."),
                SECOND, WELCOME, CURRENT, DELETING, DELETED);
    }

    @Test
    void lastIterationOnlyKeepsEachPastTurnsMessageAndFinalAnswer() {
        assertThat(new LastIterationOnly().prepare(TRANSCRIPT, "sys"))
                .containsExactly(FIRST, ANSWER, SECOND, WELCOME, CURRENT, DELETING, DELETED);
    }

    @Test
    void slidingWindowKeepsTheLastMessagesOnly() {
        assertThat(new SlidingWindow(3).prepare(TRANSCRIPT, "sys")).containsExactly(CURRENT, DELETING, DELETED);
        Transcript thirtyMessages = new Transcript(IntStream.range(0, 30).mapToObj(i -> (Entry) new Entry.User("m" + i)).toList());
        assertThat(new SlidingWindow(SlidingWindow.SPRING_AI_DEFAULT).prepare(thirtyMessages, "sys"))
                .hasSize(20).startsWith(new Entry.User("m10")).endsWith(new Entry.User("m29"));
    }
}
