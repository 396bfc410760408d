package dev.skillforge.core.shell;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random outputs cut into random chunks: the scanner must find the same commands however the
 * output is split, and the same as a plain regular expression over the whole text.
 */
class ShellTagScannerChunkingPropertyTest {

    private static final long BASE_SEED = 20_260_117L;
    private static final int CASES = 3000;
    private static final Pattern REFERENCE = Pattern.compile("<shell>([\\s\\S]*?)</shell>");

    private static final String[] WORDS = {
            "skill", "list", "get", "set", "search", "delete", "ls", "a", "b", "x", "-n", "\"q\"", "name:",
            "---", "<", ">", "</", "<s", "shell", "<shel", "</shel", "<shell", "</shell", "<SHELL>", "</SHELL>",
            "<<", "=>", "é", "naïve", "日本語", "😀", "🎉", "\u00A0", "\t", "\n", "\r\n", " ", "  ",
    };

    @Test
    void anyChunkingFindsTheSameCommandsAsTheWholeStringAndTheReference() {
        for (int c = 0; c < CASES; c++) {
            long seed = BASE_SEED + c;
            Random random = new Random(seed);
            String output = randomOutput(random);
            List<String> chunks = randomChunks(random, output);

            ShellTagScanner whole = new ShellTagScanner();
            List<String> wholeCommands = whole.feed(output);

            ShellTagScanner chunked = new ShellTagScanner();
            List<String> chunkedCommands = new ArrayList<>();
            for (String chunk : chunks) {
                chunkedCommands.addAll(chunked.feed(chunk));
            }

            String context = "seed " + seed + ", output " + escape(output) + ", chunks " + chunks.stream().map(ShellTagScannerChunkingPropertyTest::escape).toList();
            assertThat(chunkedCommands).as(context).isEqualTo(wholeCommands);
            assertThat(wholeCommands).as(context).isEqualTo(referenceCommands(output));
            assertThat(chunked.insideTag()).as(context).isEqualTo(referenceInsideTag(output));
            assertThat(whole.insideTag()).as(context).isEqualTo(referenceInsideTag(output));
        }
    }

    @Test
    void generatorCoversTheInterestingShapes() {
        // Guards the property above against a generator that silently stops producing tags.
        int withCommands = 0;
        int withDuplicates = 0;
        int unclosed = 0;
        int withEmptyTag = 0;
        for (int c = 0; c < CASES; c++) {
            String output = randomOutput(new Random(BASE_SEED + c));
            List<String> commands = referenceCommands(output);
            withCommands += commands.isEmpty() ? 0 : 1;
            withDuplicates += commands.size() > new TreeSet<>(commands).size() ? 1 : 0;
            unclosed += referenceInsideTag(output) ? 1 : 0;
            withEmptyTag += output.contains("<shell></shell>") || output.contains("<shell> </shell>") ? 1 : 0;
        }
        assertThat(withCommands).isGreaterThan(CASES / 2);
        assertThat(withDuplicates).isGreaterThan(CASES / 20);
        assertThat(unclosed).isGreaterThan(CASES / 20);
        assertThat(withEmptyTag).isGreaterThan(CASES / 20);
    }

    /** The simple definition: every non-overlapping leftmost shortest match, stripped, empty ones dropped. */
    static List<String> referenceCommands(String output) {
        List<String> commands = new ArrayList<>();
        Matcher matcher = REFERENCE.matcher(output);
        while (matcher.find()) {
            String command = matcher.group(1).strip();
            if (!command.isEmpty()) {
                commands.add(command);
            }
        }
        return commands;
    }

    /** Open when an opening tag follows the end of the last complete tag. */
    static boolean referenceInsideTag(String output) {
        Matcher matcher = REFERENCE.matcher(output);
        int end = 0;
        while (matcher.find()) {
            end = matcher.end();
        }
        return output.indexOf("<shell>", end) >= 0;
    }

    private static String randomOutput(Random random) {
        StringBuilder out = new StringBuilder();
        List<String> bodies = new ArrayList<>();
        int pieces = random.nextInt(12);
        for (int p = 0; p < pieces; p++) {
            switch (random.nextInt(9)) {
                case 0, 1 -> out.append(words(random, 1 + random.nextInt(8)));
                case 2, 3 -> {
                    String body = words(random, 1 + random.nextInt(5));
                    bodies.add(body);
                    out.append("<shell>").append(body).append("</shell>");
                }
                case 4 -> out.append("<shell>").append(random.nextBoolean() ? "" : " \n\t ").append("</shell>");
                case 5 -> {
                    String again = bodies.isEmpty() ? "ls" : bodies.get(random.nextInt(bodies.size()));
                    out.append("<shell>").append(again).append("</shell>");
                }
                case 6 -> {
                    String tag = random.nextBoolean() ? "<shell>" : "</shell>";
                    out.append(tag, 0, random.nextInt(tag.length() + 1));
                }
                case 7 -> out.append("<".repeat(1 + random.nextInt(3)));
                default -> out.append(random.nextBoolean() ? "<shell>" : "</shell>");
            }
        }
        return out.toString();
    }

    private static String words(Random random, int count) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < count; i++) {
            text.append(WORDS[random.nextInt(WORDS.length)]);
            if (random.nextInt(3) > 0) {
                text.append(' ');
            }
        }
        return text.toString();
    }

    /** Cuts {@code output} at random positions (empty chunks and single characters included). */
    private static List<String> randomChunks(Random random, String output) {
        List<String> chunks = new ArrayList<>();
        int at = 0;
        int style = random.nextInt(3);
        while (at < output.length()) {
            int size = switch (style) {
                case 0 -> 1;
                case 1 -> random.nextInt(4);
                default -> random.nextInt(Math.max(1, output.length() - at) + 1);
            };
            int end = Math.min(output.length(), at + size);
            chunks.add(output.substring(at, end));
            at = end;
        }
        if (random.nextBoolean()) {
            chunks.add("");
        }
        return chunks;
    }

    private static String escape(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t") + "\"";
    }
}
