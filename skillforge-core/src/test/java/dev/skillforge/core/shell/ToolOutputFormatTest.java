package dev.skillforge.core.shell;

import dev.skillforge.core.shell.ToolOutputFormat.Executed;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ToolOutputFormatTest {

    @Test
    void oneCommandIsDollarCommandNewlineResult() {
        assertThat(ToolOutputFormat.format(List.of(new Executed("skill list", "- a\n- b"))))
                .isEqualTo("$ skill list\n- a\n- b");
    }

    @Test
    void blocksAreJoinedByABlankLine() {
        String text = ToolOutputFormat.format(List.of(
                new Executed("skill list", "- a"),
                new Executed("skill get a", "name: a"),
                new Executed("skill list", "- a")));
        assertThat(text).isEqualTo("$ skill list\n- a\n\n$ skill get a\nname: a\n\n$ skill list\n- a");
    }

    @Test
    void emptyResultKeepsTheNewlineAfterTheCommand() {
        assertThat(ToolOutputFormat.format(List.of(new Executed("skill delete a", "")))).isEqualTo("$ skill delete a\n");
    }

    @Test
    void noCommandsGiveEmptyText() {
        assertThat(ToolOutputFormat.format(List.of())).isEmpty();
    }

    @Test
    void multiLineCommandIsWrittenVerbatim() {
        assertThat(ToolOutputFormat.format(List.of(new Executed("skill set x\n---\nname: x\n---", "saved x"))))
                .isEqualTo("$ skill set x\n---\nname: x\n---\nsaved x");
    }

    @Test
    void resultIsNotTrimmedOrReencoded() {
        String result = "  leading\r\ntrailing  \n\n\t😀 ";
        assertThat(ToolOutputFormat.format(List.of(new Executed("cat f", result)))).isEqualTo("$ cat f\n" + result);
    }

    @Test
    void resultOfExactly2000CharactersIsNotCut() {
        String result = "r".repeat(2000);
        assertThat(ToolOutputFormat.format(List.of(new Executed("cat big", result)))).isEqualTo("$ cat big\n" + result);
    }

    @Test
    void resultOf2001CharactersIsCutWithTheExactNote() {
        String result = "a".repeat(2000) + "Z";
        assertThat(ToolOutputFormat.format(List.of(new Executed("cat big", result))))
                .isEqualTo("$ cat big\n" + "a".repeat(2000) + "\n[truncated: 1 more characters of 2001]");
    }

    @Test
    void longResultNoteCountsTheCutCharacters() {
        String result = "b".repeat(5000);
        assertThat(ToolOutputFormat.truncate(result, 2000))
                .isEqualTo("b".repeat(2000) + "\n[truncated: 3000 more characters of 5000]");
    }

    @Test
    void eachResultIsCutOnItsOwn() {
        String text = ToolOutputFormat.format(List.of(
                new Executed("one", "x".repeat(2500)),
                new Executed("two", "short")));
        assertThat(text).isEqualTo("$ one\n" + "x".repeat(2000) + "\n[truncated: 500 more characters of 2500]"
                + "\n\n$ two\nshort");
    }

    @Test
    void maxResultCharsIs2000() {
        assertThat(ToolOutputFormat.MAX_RESULT_CHARS).isEqualTo(2000);
    }

    @Test
    void cutNeverSplitsASurrogatePair() {
        // 1999 chars then an emoji: its high surrogate is char 2000 (index 1999), its low one char 2001.
        String result = "a".repeat(1999) + "😀" + "tail";
        String cut = ToolOutputFormat.truncate(result, 2000);
        assertThat(cut).isEqualTo("a".repeat(1999) + "\n[truncated: 6 more characters of 2005]");
    }

    @Test
    void cutKeepsASurrogatePairThatFitsWhole() {
        String result = "a".repeat(1998) + "😀" + "tail";
        assertThat(ToolOutputFormat.truncate(result, 2000))
                .isEqualTo("a".repeat(1998) + "😀" + "\n[truncated: 4 more characters of 2004]");
    }

    @Test
    void cutOfAllEmojiTextLeavesNoLoneSurrogate() {
        String result = "😀".repeat(1500); // 3000 chars
        String cut = ToolOutputFormat.truncate(result, 2001);
        String kept = cut.substring(0, cut.indexOf('\n'));
        assertThat(kept).isEqualTo("😀".repeat(1000));
        assertThat(cut).endsWith("[truncated: 1000 more characters of 3000]");
    }

    @Test
    void truncateOfShortTextReturnsItUnchanged() {
        assertThat(ToolOutputFormat.truncate("", 2000)).isEmpty();
        assertThat(ToolOutputFormat.truncate("abc", 3)).isEqualTo("abc");
    }

    @Test
    void formatIsDeterministic() {
        List<Executed> executed = List.of(new Executed("a", "é😀".repeat(1200)), new Executed("b", "ok"));
        String first = ToolOutputFormat.format(executed);
        for (int i = 0; i < 5; i++) {
            assertThat(ToolOutputFormat.format(List.copyOf(executed))).isEqualTo(first);
        }
    }
}
