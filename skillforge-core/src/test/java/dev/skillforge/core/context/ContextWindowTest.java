package dev.skillforge.core.context;

import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.Transcript;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.ToIntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The context window: the model's view only grows until a request would pass 80% of the window, then
 * one cut leaves out the oldest turns so that the rest fits in 40%, and the view grows unchanged again.
 * Sizes here are counted a token per four characters, plus the window's overhead per message.
 */
class ContextWindowTest {

    private static final ToIntFunction<String> QUARTER = text -> (text.length() + 3) / 4;
    private static final String SYSTEM = "You forge skills.";
    private static final int WINDOW = 4000;

    private final ContextWindow window = new ContextWindow(WINDOW, QUARTER);
    private final Transcript transcript = new Transcript();

    @Test
    void belowEightyPercentTheViewIsTheWholeTranscriptAndNothingIsAppended() {
        List<Entry> before = askAfterTurns(4);
        assertThat(estimate(before, SYSTEM)).isBetween((long) (0.6 * WINDOW), (long) (0.8 * WINDOW));

        assertThat(window.prepare(transcript, SYSTEM)).isEqualTo(before);
        assertThat(transcript.entries()).isEqualTo(before);
    }

    @Test
    void pastEightyPercentOneCutKeepsTheNewestWholeTurnsThatFitInFortyPercent() {
        List<Entry> before = askAfterTurns(5);
        assertThat(estimate(before, SYSTEM)).isGreaterThan((long) (0.8 * WINDOW));

        List<Entry> view = window.prepare(transcript, SYSTEM);

        List<Entry> after = transcript.entries();
        assertThat(after).hasSize(before.size() + 1).startsWith(before.toArray(Entry[]::new));
        Entry.ContextCut cut = (Entry.ContextCut) after.getLast();
        assertThat(cut.keepFrom()).as("the start of turn 4").isEqualTo(12);
        assertThat(before.get(cut.keepFrom())).isEqualTo(new Entry.User("Question 4"));
        assertThat(view.getFirst()).isEqualTo(cut);
        assertThat(view.subList(1, view.size())).isEqualTo(before.subList(12, before.size()));
        assertThat(estimate(view, SYSTEM)).isLessThanOrEqualTo((long) (0.4 * WINDOW));
        List<Entry> withTurn3 = new ArrayList<>(List.of(new Entry.ContextCut(window.note(before, 8), 8)));
        withTurn3.addAll(before.subList(8, before.size()));
        assertThat(estimate(withTurn3, SYSTEM)).as("turn 3 would not fit as well").isGreaterThan((long) (0.4 * WINDOW));
    }

    @Test
    void theNoteIsDeterministicAndSaysHowMuchWasLeftOutAndTheLastRequestsInIt() {
        ContextWindow small = new ContextWindow(3000, QUARTER); // lists the last 3 requests
        List<String> requests = List.of("Question 1", "Question 2", "Question 3", "Question 4", "  Make it\n\n   a skill,   please  ",
                "Explain " + "very ".repeat(40) + "slowly", "Question 7", "Question 8", "Question 9", "Question 10");
        Transcript again = new Transcript();
        for (Transcript each : List.of(transcript, again)) {
            for (String request : requests) {
                if (each.size() > 0) {
                    each.append(new Entry.Assistant(text("Answer", 250)));
                }
                each.append(new Entry.User(request));
            }
        }

        List<Entry> view = small.prepare(transcript, SYSTEM);

        assertThat(small.prepare(again, SYSTEM)).isEqualTo(view);
        Entry.ContextCut cut = (Entry.ContextCut) view.getFirst();
        assertThat(cut.keepFrom()).as("the start of turn 7").isEqualTo(12);
        assertThat(cut.content()).isEqualTo("[Context note] This conversation outgrew the model's context window, so its start is left"
                + " out of what you see here: 12 messages from 6 turns (the person can still read them). Skills saved earlier are"
                + " still in the skill store: `skill list` shows them. What the person asked in the part left out, oldest first"
                + " (the last 3 of 6):\n- Question 4\n- Make it a skill, please\n- "
                + ("Explain " + "very ".repeat(40)).substring(0, 160) + "…");
    }

    @Test
    void theNoteCountsTowardTheFortyPercentHoweverLongTheRequestsItListsAre() {
        ToIntFunction<String> perCharacter = String::length; // as o200k counts Chinese, about
        ContextWindow big = new ContextWindow(20_000, perCharacter); // lists the last 20 requests
        for (int turn = 1; turn <= 40; turn++) {
            transcript.append(new Entry.User(turn + " 请把这个做成技能".repeat(20)));
            transcript.append(new Entry.Assistant("好的".repeat(200)));
        }
        transcript.append(new Entry.User("最后一个问题"));

        List<Entry> view = big.prepare(transcript, SYSTEM);

        assertThat(view.getFirst()).isInstanceOf(Entry.ContextCut.class);
        assertThat(estimate(perCharacter, view, SYSTEM)).isLessThanOrEqualTo((long) (0.4 * 20_000));
    }

    @Test
    void aCurrentTurnAloneBiggerThanFortyPercentIsCutAtAnIterationStartInsideIt() {
        askAfterTurns(1);
        for (int output : new int[]{1200, 1200, 300}) {
            transcript.append(new Entry.Assistant(text("<shell>skill get big</shell>", 20)));
            transcript.append(new Entry.Tool(text("$ skill get big", output)));
        }
        List<Entry> before = transcript.entries();

        List<Entry> view = window.prepare(transcript, SYSTEM);

        Entry.ContextCut cut = (Entry.ContextCut) view.getFirst();
        assertThat(cut.keepFrom()).as("the third iteration of turn 2").isEqualTo(9);
        assertThat(view.subList(1, view.size())).isEqualTo(before.subList(9, before.size()));
        assertThat(estimate(view, SYSTEM)).isLessThanOrEqualTo((long) (0.4 * WINDOW));
        assertThat(cut.content()).contains("9 messages from 2 turns")
                .contains("oldest first:\n- Question 1\n\nThe request you are working on, whose first steps are left out too:\n")
                .endsWith("\n" + before.get(4).content());
    }

    @Test
    void whenNothingMoreCanBeLeftOutTheViewIsSentAsItIsWithoutAnotherCut() {
        Transcript alone = new Transcript(List.of(new Entry.User(text("A whole book", 5000))));
        assertThat(window.prepare(alone, SYSTEM)).isEqualTo(alone.entries());
        assertThat(alone.size()).as("nothing appended").isEqualTo(1);

        addTurns(2);
        Entry.User huge = new Entry.User(text("Another whole book", 3500));
        transcript.append(huge);
        List<Entry> cutOnce = window.prepare(transcript, SYSTEM);
        assertThat(cutOnce).hasSize(2).endsWith(huge);
        assertThat(cutOnce.getFirst()).isInstanceOf(Entry.ContextCut.class);
        assertThat(estimate(cutOnce, SYSTEM)).as("still too big, but all that could go went").isGreaterThan((long) (0.8 * WINDOW));
        int size = transcript.size();

        assertThat(window.prepare(transcript, SYSTEM)).isEqualTo(cutOnce);
        assertThat(transcript.size()).isEqualTo(size);
    }

    @Test
    void theSystemPromptCountsTowardTheWindow() {
        askAfterTurns(4);
        String longSystemPrompt = text("You forge skills.", 600);

        assertThat(window.prepare(transcript, SYSTEM)).doesNotHaveAnyElementsOfTypes(Entry.ContextCut.class);
        List<Entry> view = window.prepare(transcript, longSystemPrompt);

        assertThat(view.getFirst()).isInstanceOf(Entry.ContextCut.class);
        assertThat(estimate(view, longSystemPrompt)).isLessThanOrEqualTo((long) (0.4 * WINDOW));
    }

    @Test
    void aWindowBelow1024TokensIsRefused() {
        assertThatThrownBy(() -> new ContextWindow(1023, QUARTER)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a context window must be at least 1024 tokens, was 1023");
        assertThat(new ContextWindow(1024, QUARTER).windowTokens()).isEqualTo(1024);
    }

    /**
     * 500 random turns (1 to 4 iterations, random sizes, now and then a tool output bigger than 40% of the
     * window), the view prepared before every model call as the agent loop does, for ten conversations.
     */
    @Test
    void overManyTurnsEachViewExtendsThePreviousOneUntilARareCutThatKeepsTheRestUnderFortyPercent() {
        int windowTokens = 20_000;
        for (long seed = 0; seed < 10; seed++) {
            Random random = new Random(seed);
            ContextWindow big = new ContextWindow(windowTokens, QUARTER);
            Transcript conversation = new Transcript();
            List<Entry> previous = List.of();
            int calls = 0;
            int cuts = 0;
            for (int turn = 0; turn < 500; turn++) {
                conversation.append(new Entry.User(text("Question " + turn, random.nextInt(5, 200))));
                int iterations = random.nextInt(1, 5);
                for (int iteration = 0; iteration < iterations; iteration++) {
                    int size = conversation.size();
                    List<Entry> view = big.prepare(conversation, SYSTEM);
                    List<Entry> entries = conversation.entries();
                    String at = "seed " + seed + ", turn " + turn + ", iteration " + iteration;
                    calls++;
                    assertThat(view).as(at + ": the view a reload computes").isEqualTo(ContextView.visible(entries));
                    boolean roomToCut = couldLeaveOutMore(entries, view);
                    if (entries.size() == size) {
                        assertThat(view.subList(0, Math.min(previous.size(), view.size())))
                                .as(at + ": no cut, so the view extends the previous one").isEqualTo(previous);
                    } else {
                        cuts++;
                        assertThat(entries).as(at).hasSize(size + 1);
                        assertThat(view.getFirst()).as(at + ": a new cut starts the view").isSameAs(entries.getLast());
                        assertThat(estimate(view, SYSTEM) <= 0.4 * windowTokens || !roomToCut)
                                .as(at + ": a cut keeps at most 40%% unless it could leave out nothing more").isTrue();
                    }
                    assertThat(estimate(view, SYSTEM) <= 0.8 * windowTokens || !roomToCut)
                            .as(at + ": at most 80%% unless nothing more can be left out").isTrue();
                    previous = view;
                    conversation.append(new Entry.Assistant(text("<shell>skill get x</shell>", random.nextInt(5, 150))));
                    if (iteration < iterations - 1) {
                        int output = random.nextInt(25) == 0 ? random.nextInt(8_000, 16_000) : random.nextInt(5, 600);
                        conversation.append(new Entry.Tool(text("$ skill get x", output)));
                    }
                }
            }
            assertThat(cuts).as("seed %d: cuts are rare", seed).isBetween(1, calls / 10);
        }
    }

    // ================================================================ helpers

    /**
     * Appends turns of four entries (the request, an answer with a command, the command's output of 500
     * tokens, a last answer), then the next request; returns the transcript's entries.
     */
    private List<Entry> askAfterTurns(int count) {
        addTurns(count);
        transcript.append(new Entry.User("Question " + (count + 1)));
        return transcript.entries();
    }

    private void addTurns(int count) {
        for (int turn = 1; turn <= count; turn++) {
            transcript.append(new Entry.User("Question " + turn));
            transcript.append(new Entry.Assistant(text("Let me look: <shell>skill get cold-brew</shell>", 100)));
            transcript.append(new Entry.Tool(text("$ skill get cold-brew", 500)));
            transcript.append(new Entry.Assistant(text("Done.", 50)));
        }
    }

    /** {@code start} padded to {@code tokens} tokens. */
    private static String text(String start, int tokens) {
        return start + "\n" + "x".repeat(Math.max(0, tokens * 4 - start.length() - 1));
    }

    private static long estimate(List<Entry> view, String system) {
        return estimate(QUARTER, view, system);
    }

    /** The estimate of a request of {@code view} and {@code system}, counted as the window counts. */
    private static long estimate(ToIntFunction<String> tokens, List<Entry> view, String system) {
        long total = tokens.applyAsInt(system) + ContextWindow.MESSAGE_OVERHEAD;
        for (Entry entry : view) {
            total += tokens.applyAsInt(entry.content()) + ContextWindow.MESSAGE_OVERHEAD;
        }
        return total;
    }

    /** Whether the view could lose more: a turn start, or an iteration start of the current turn, after where it starts. */
    private static boolean couldLeaveOutMore(List<Entry> entries, List<Entry> view) {
        int from = view.getFirst() instanceof Entry.ContextCut cut ? cut.keepFrom() : 0;
        int lastUser = entries.size() - 1;
        while (!(entries.get(lastUser) instanceof Entry.User)) {
            lastUser--;
        }
        for (int i = from + 1; i < entries.size(); i++) {
            if (entries.get(i) instanceof Entry.User || (entries.get(i) instanceof Entry.Assistant && i > lastUser)) {
                return true;
            }
        }
        return false;
    }
}
