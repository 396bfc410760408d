package dev.skillforge.server.conversation;

import dev.skillforge.core.transcript.Entry;
import dev.skillforge.server.store.StoredEntry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A stored context cut reads back as the cut it was; bad replay columns are named, not a NumberFormatException. */
class StoredContextCutTest {

    private static StoredEntry context(int seq, String format, String data) {
        return new StoredEntry("c1", seq, 2, HotConversation.CONTEXT, "[Context note] …", format, data, 0L);
    }

    @Test
    void aStoredCutReadsBackWithWhereItKeepsFrom() {
        assertThat(HotConversation.entryOf(context(9, HotConversation.KEEP_FROM, "4"))).isEqualTo(new Entry.ContextCut("[Context note] …", 4));
    }

    @Test
    void badReplayColumnsAreRefusedWithTheEntryNamed() {
        for (StoredEntry bad : new StoredEntry[]{context(9, HotConversation.KEEP_FROM, "x"), context(9, HotConversation.KEEP_FROM, null),
                context(9, null, null), context(9, "other", "4"), context(9, HotConversation.KEEP_FROM, "-1"),
                context(9, HotConversation.KEEP_FROM, "9"), context(9, HotConversation.KEEP_FROM, "99999999999")}) {
            assertThat(HotConversation.keepFromOf(bad)).as(bad.toString()).isEqualTo(-1);
            assertThatThrownBy(() -> HotConversation.entryOf(bad)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("context entry 9 of conversation c1");
        }
    }
}
