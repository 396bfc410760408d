package dev.skillforge.core.context;

import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.Transcript;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What the model sees of a transcript: everything until a context cut, then the last cut's note and what it keeps. */
class ContextViewTest {

    private static final Entry.User ASK_1 = new Entry.User("Learn cold brew");
    private static final Entry.Assistant ANSWER_1 = new Entry.Assistant("Saved.");
    private static final Entry.User ASK_2 = new Entry.User("Now espresso");
    private static final Entry.Assistant ANSWER_2 = new Entry.Assistant("<shell>skill list</shell>");
    private static final Entry.Tool OUTPUT_2 = new Entry.Tool("$ skill list\ncold-brew");
    private static final Entry.User ASK_3 = new Entry.User("And tea?");

    @Test
    void withoutACutTheViewIsTheWholeTranscript() {
        List<Entry> entries = List.of(ASK_1, ANSWER_1, ASK_2);

        assertThat(ContextView.visible(entries)).isEqualTo(entries);
        assertThat(ContextView.WHOLE.prepare(new Transcript(entries), "system")).isEqualTo(entries);
    }

    @Test
    void theViewIsTheLastCutsNoteThenWhatItKeepsWithoutTheOlderCuts() {
        Entry.ContextCut first = new Entry.ContextCut("[Context note] first", 2);
        Entry.ContextCut second = new Entry.ContextCut("[Context note] second", 4);
        // 0 ASK_1, 1 ANSWER_1, 2 ASK_2, 3 first cut, 4 ANSWER_2, 5 OUTPUT_2, 6 second cut, 7 ASK_3
        List<Entry> entries = List.of(ASK_1, ANSWER_1, ASK_2, first, ANSWER_2, OUTPUT_2, second, ASK_3);

        assertThat(ContextView.visible(entries)).containsExactly(second, ANSWER_2, OUTPUT_2, ASK_3);
        assertThat(ContextView.visible(entries.subList(0, 6))).containsExactly(first, ASK_2, ANSWER_2, OUTPUT_2);
        Transcript transcript = new Transcript(entries);
        assertThat(ContextView.WHOLE.prepare(transcript, "system")).containsExactly(second, ANSWER_2, OUTPUT_2, ASK_3);
        assertThat(transcript.entries()).as("the whole view never appends").isEqualTo(entries);
    }

    @Test
    void aCutThatKeepsFromPastTheEndLeavesOnlyItsNoteInsteadOfFailing() {
        Entry.ContextCut beyond = new Entry.ContextCut("[Context note] bad", 10);

        assertThat(ContextView.visible(List.of(ASK_1, beyond))).containsExactly(beyond);
    }
}
