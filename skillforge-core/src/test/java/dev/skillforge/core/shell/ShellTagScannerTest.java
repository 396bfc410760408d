package dev.skillforge.core.shell;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ShellTagScannerTest {

    /** Feeds {@code chunks} in order and returns every command found, in order. */
    private static List<String> scan(ShellTagScanner scanner, String... chunks) {
        List<String> found = new ArrayList<>();
        for (String chunk : chunks) {
            found.addAll(scanner.feed(chunk));
        }
        return found;
    }

    private static List<String> scan(String... chunks) {
        return scan(new ShellTagScanner(), chunks);
    }

    @Test
    void singleTagIsFound() {
        assertThat(scan("<shell>skill list</shell>")).containsExactly("skill list");
    }

    @Test
    void severalTagsAreFoundInOrder() {
        assertThat(scan("<shell>skill list</shell> then <shell>skill get a</shell>\n<shell>skill get b</shell>"))
                .containsExactly("skill list", "skill get a", "skill get b");
    }

    @Test
    void sameCommandTwiceGivesTwoEntries() {
        assertThat(scan("<shell>ls</shell><shell>ls</shell>")).containsExactly("ls", "ls");
    }

    @Test
    void tagSplitAtEveryPositionAcrossTwoChunksIsFound() {
        String output = "before <shell>skill get my-skill</shell> after";
        for (int split = 0; split <= output.length(); split++) {
            ShellTagScanner scanner = new ShellTagScanner();
            List<String> found = scan(scanner, output.substring(0, split), output.substring(split));
            assertThat(found).as("split at %d", split).containsExactly("skill get my-skill");
            assertThat(scanner.insideTag()).as("split at %d", split).isFalse();
        }
    }

    @Test
    void outputSplitIntoSingleCharactersGivesSameCommands() {
        String output = "a<shell>one</shell>b<shell> two </shell><shell></shell><shell>one</shell>";
        String[] chars = output.split("");
        assertThat(chars).hasSize(output.length());
        assertThat(scan(chars)).containsExactly("one", "two", "one");
    }

    @Test
    void emptyTagIsIgnored() {
        assertThat(scan("<shell></shell>")).isEmpty();
    }

    @Test
    void whitespaceOnlyTagIsIgnored() {
        assertThat(scan("<shell>  \n\t \r\n </shell><shell>ls</shell>")).containsExactly("ls");
    }

    @Test
    void whitespaceAroundBodyIsStripped() {
        assertThat(scan("<shell>\n   skill list  \t\n</shell>")).containsExactly("skill list");
    }

    @Test
    void innerWhitespaceOfBodyIsKept() {
        assertThat(scan("<shell>skill   search  a b</shell>")).containsExactly("skill   search  a b");
    }

    @Test
    void multiLineBodyKeepsInnerNewlines() {
        String body = "skill set x\n---\nname: x\ndescription: Does x.\n---\n\n# X\n\nUse it.";
        assertThat(scan("Saving it.\n<shell>\n" + body + "\n</shell>\nDone."))
                .containsExactly(body);
    }

    @Test
    void unclosedTagAtEndIsNotACommand() {
        ShellTagScanner scanner = new ShellTagScanner();
        assertThat(scan(scanner, "Let me check. <shell>skill li")).isEmpty();
        assertThat(scanner.insideTag()).isTrue();
    }

    @Test
    void unclosedTagAfterACompleteOneKeepsTheCompleteOne() {
        ShellTagScanner scanner = new ShellTagScanner();
        assertThat(scan(scanner, "<shell>ls</shell> and <shell>cat")).containsExactly("ls");
        assertThat(scanner.insideTag()).isTrue();
    }

    @Test
    void insideTagIsFalseBeforeAnyTagAndAfterTheClose() {
        ShellTagScanner scanner = new ShellTagScanner();
        assertThat(scanner.insideTag()).isFalse();
        scanner.feed("<shell>ls");
        assertThat(scanner.insideTag()).isTrue();
        scanner.feed("</shell>");
        assertThat(scanner.insideTag()).isFalse();
    }

    @Test
    void partialOpeningTagAtEndIsNotInside() {
        ShellTagScanner scanner = new ShellTagScanner();
        scanner.feed("text <shel");
        assertThat(scanner.insideTag()).isFalse();
    }

    @Test
    void textAroundTagsIsIgnored() {
        assertThat(scan("I'll look.\n\n<shell>skill list</shell>\n\nThen I'll read <b>one</b> <shell>skill get a</shell>!"))
                .containsExactly("skill list", "skill get a");
    }

    @Test
    void plainTextWithoutTagsGivesNothing() {
        ShellTagScanner scanner = new ShellTagScanner();
        assertThat(scan(scanner, "No commands here, just 1 < 2 and a > b.")).isEmpty();
        assertThat(scanner.insideTag()).isFalse();
    }

    @Test
    void openingWithoutClosingAngleIsNotATag() {
        ShellTagScanner scanner = new ShellTagScanner();
        assertThat(scan(scanner, "<shell ls</shell>")).isEmpty();
        assertThat(scanner.insideTag()).isFalse();
    }

    @Test
    void tagWithAttributeOrSpaceIsNotATag() {
        assertThat(scan("<shell >ls</shell><shell lang=\"sh\">ls</shell><shell\n>ls</shell>")).isEmpty();
    }

    @Test
    void strayClosingTagOutsideATagIsIgnored() {
        ShellTagScanner scanner = new ShellTagScanner();
        assertThat(scan(scanner, "oops</shell> then <shell>ls</shell></shell>")).containsExactly("ls");
        assertThat(scanner.insideTag()).isFalse();
    }

    @Test
    void doubledAngleBracketsStillContainATag() {
        // "<<shell>>" holds "<shell>" starting at its second '<': the tag opens and the body starts with '>'.
        assertThat(scan("<<shell>>ls<</shell>>")).containsExactly(">ls<");
    }

    @Test
    void nearMissesAreNotTags() {
        assertThat(scan("<shel>ls</shel> <shelll>ls</shelll> < shell>ls</ shell> <sh ell>x</sh ell> shell>ls</shell"))
                .isEmpty();
    }

    @Test
    void repeatedOpeningPrefixThenRealTagIsFound() {
        assertThat(scan("<she<shel<shell>ls</shel</shell>")).containsExactly("ls</shel");
    }

    @Test
    void openingTagInsideABodyIsLiteralText() {
        ShellTagScanner scanner = new ShellTagScanner();
        assertThat(scan(scanner, "<shell>echo <shell>inner</shell>rest</shell>"))
                .containsExactly("echo <shell>inner");
        assertThat(scanner.insideTag()).isFalse();
    }

    @Test
    void uppercaseTagIsNotATag() {
        assertThat(scan("<SHELL>ls</SHELL><Shell>ls</Shell>")).isEmpty();
    }

    @Test
    void lowercaseCloseDoesNotCloseOnUppercase() {
        assertThat(scan("<shell>ls</SHELL> more</shell>")).containsExactly("ls</SHELL> more");
    }

    @Test
    void unicodeAndEmojiInBodyAndAroundAreKept() {
        String output = "Voilà 🎉 <shell>skill search 日本語 😀 naïve</shell> fertig ✅";
        assertThat(scan(output)).containsExactly("skill search 日本語 😀 naïve");
    }

    @Test
    void emojiSurrogatePairSplitAcrossChunksIsReassembled() {
        String output = "<shell>echo 😀</shell>";
        int highSurrogate = output.indexOf("😀");
        assertThat(Character.isHighSurrogate(output.charAt(highSurrogate))).isTrue();
        assertThat(scan(output.substring(0, highSurrogate + 1), output.substring(highSurrogate + 1)))
                .containsExactly("echo 😀");
    }

    @Test
    void veryLongOutputInSmallChunksFindsAllCommands() {
        StringBuilder output = new StringBuilder();
        int commands = 0;
        String filler = "Some prose with < and > and </ and <s noise. ";
        while (output.length() < 1_000_000) {
            output.append(filler.repeat(20));
            output.append("<shell>skill get s").append(commands).append("</shell>");
            commands++;
        }
        assertThat(output.length()).isGreaterThanOrEqualTo(1_000_000);

        ShellTagScanner scanner = new ShellTagScanner();
        List<String> found = new ArrayList<>();
        for (int i = 0; i < output.length(); i += 7) {
            found.addAll(scanner.feed(output.subSequence(i, Math.min(output.length(), i + 7))));
        }
        assertThat(found).hasSize(commands);
        assertThat(found.getFirst()).isEqualTo("skill get s0");
        assertThat(found.getLast()).isEqualTo("skill get s" + (commands - 1));
        assertThat(scanner.insideTag()).isFalse();
    }

    @Test
    void veryLongBodyIsOneCommand() {
        String body = "x".repeat(1_000_000);
        ShellTagScanner scanner = new ShellTagScanner();
        List<String> found = new ArrayList<>();
        found.addAll(scanner.feed("<shell>"));
        for (int i = 0; i < body.length(); i += 1000) {
            found.addAll(scanner.feed(body.substring(i, i + 1000)));
        }
        assertThat(found).isEmpty();
        found.addAll(scanner.feed("</shell>"));
        assertThat(found).containsExactly(body);
    }

    @Test
    void feedReturnsCommandOnlyInTheChunkWhereTheClosingTagCompletes() {
        ShellTagScanner scanner = new ShellTagScanner();
        assertThat(scanner.feed("<shell>skill ")).isEmpty();
        assertThat(scanner.feed("list</she")).isEmpty();
        assertThat(scanner.feed("ll>")).containsExactly("skill list");
        assertThat(scanner.feed(" and text")).isEmpty();
        assertThat(scanner.feed("")).isEmpty();
    }

    @Test
    void oneChunkCanCompleteOneCommandAndOpenAnother() {
        ShellTagScanner scanner = new ShellTagScanner();
        assertThat(scanner.feed("<shell>a")).isEmpty();
        assertThat(scanner.feed("</shell><shell>b</shell><shell>c")).containsExactly("a", "b");
        assertThat(scanner.insideTag()).isTrue();
        assertThat(scanner.feed("</shell>")).containsExactly("c");
    }

    @Test
    void emptyChunksChangeNothing() {
        assertThat(scan("", "<shell>", "", "ls", "", "</shell>", "")).containsExactly("ls");
    }

    @Test
    void feedAcceptsAnyCharSequence() {
        ShellTagScanner scanner = new ShellTagScanner();
        assertThat(scanner.feed(new StringBuilder("<shell>pwd</shell>"))).containsExactly("pwd");
    }
}
