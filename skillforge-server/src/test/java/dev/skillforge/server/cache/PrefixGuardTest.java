package dev.skillforge.server.cache;

import dev.skillforge.server.provider.IgnoredOutput;
import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ModelStreamListener;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.server.provider.gemini.GeminiRequest;
import dev.skillforge.server.provider.openai.OpenAiChatRequest;
import dev.skillforge.server.cache.CacheRule;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The run-time prefix check on hand-made transcripts: growth passes, any edit, loss or re-order is a break, found where it is. */
class PrefixGuardTest {

    private static final String SYSTEM = "You are SkillForge.";
    /** How OpenAI's serialised user message starts before its content. */
    private static final String USER_JSON_PREFIX = "{\"role\":\"user\",\"content\":\"";

    private final List<PrefixGuard.Break> breaks = new ArrayList<>();
    private final PrefixGuard.Observer observer = breaks::add;
    private final List<ModelCall> delegated = new ArrayList<>();
    private final ModelProvider model = (call, listener, cancellation) -> {
        delegated.add(call);
        return new ModelReply(null, new Usage(2000L, 10L, 1024L));
    };

    private PrefixGuard guard(boolean strict) {
        return new PrefixGuard(model, "sim", "skillforge-sim-1", OpenAiChatRequest::messages, CacheRule.OPENAI, strict, observer);
    }

    @Test
    void requestsThatOnlyGrowAreNoBreak() throws Exception {
        PrefixGuard guard = guard(true);
        List<Entry> entries = new ArrayList<>(List.of(new Entry.User("What skills do I have?")));
        call(guard, "c1", entries);
        entries.add(new Entry.Assistant("Let me look.\n<shell>skill list</shell>"));
        entries.add(new Entry.Tool("$ skill list\nNo skills yet."));
        call(guard, "c1", entries);
        entries.add(new Entry.Assistant("You have none."));
        entries.add(new Entry.User("Thanks"));
        call(guard, "c1", entries);
        call(guard, "c2", List.of(new Entry.User("Another conversation, its own history")));

        assertThat(breaks).isEmpty();
        assertThat(delegated).hasSize(4);
    }

    @Test
    void aForksFirstRequestMustExtendThePrefixItSharesWithItsOriginal() throws Exception {
        PrefixGuard guard = guard(false);
        List<Entry> shared = List.of(new Entry.User("Learn cold brew"), new Entry.Assistant("Done."));
        guard.expect(new ModelCall(SYSTEM, shared, "root/fork1"));
        guard.expect(new ModelCall(SYSTEM, shared, "root/fork2"));

        // fork1 sends the shared prefix and its edited message: an extension, no break.
        call(guard, "root/fork1", List.of(new Entry.User("Learn cold brew"), new Entry.Assistant("Done."), new Entry.User("Shorter")));
        assertThat(breaks).isEmpty();
        // fork2's "shared" answer was changed: the guard finds it at once, in the fork's first request.
        call(guard, "root/fork2", List.of(new Entry.User("Learn cold brew"), new Entry.Assistant("Done!"), new Entry.User("Shorter")));
        assertThat(breaks).hasSize(1);
        assertThat(breaks.getFirst().conversation()).isEqualTo("root/fork2");
        assertThat(breaks.getFirst().messageIndex()).isEqualTo(2);
        assertThat(new ModelCall(SYSTEM, shared, "root/fork1").routingKey()).isEqualTo("root");
    }

    @Test
    void aMessageWithAttachmentsIsSentTheSameWayEveryTimeAndAChangedAttachmentIsABreak() throws Exception {
        PrefixGuard guard = guard(false);
        Attachment notes = new Attachment("ab", "notes.md", "text/markdown", 9, Attachment.wrap("notes.md", "text/markdown", "# Brew\n"));
        List<Entry> entries = new ArrayList<>(List.of(new Entry.User("Make a skill", List.of(notes))));
        call(guard, "c1", entries);
        entries.add(new Entry.Assistant("Done."));
        entries.add(new Entry.User("Thanks"));
        call(guard, "c1", entries);
        assertThat(breaks).as("the attachment's wrapped text is replayed as it was").isEmpty();

        // The same message, its attachment's stored text changed: the document is part of the prefix.
        Attachment changed = new Attachment("ab", "notes.md", "text/markdown", 9, Attachment.wrap("notes.md", "text/markdown", "# Brew!\n"));
        call(guard, "c1", List.of(new Entry.User("Make a skill", List.of(changed)), new Entry.Assistant("Done."), new Entry.User("Thanks"),
                new Entry.Assistant("Welcome."), new Entry.User("Bye")));

        assertThat(breaks).hasSize(1);
        assertThat(breaks.getFirst().messageIndex()).isEqualTo(1);
        assertThat(breaks.getFirst().charOffset()).isEqualTo((USER_JSON_PREFIX + "<document name=\\\"notes.md\\\" type=\\\"text/markdown\\\">\\n# Brew").length());
    }

    @Test
    void anEditedEarlierMessageIsABreakAtItsIndexAndCharacter() throws Exception {
        PrefixGuard guard = guard(false);
        call(guard, "c1", List.of(new Entry.User("Learn cold brew"), new Entry.Assistant("Done."), new Entry.User("Shorter please")));

        // The stored answer was edited (say in the database) between the turns: "Done." -> "Done!".
        call(guard, "c1", List.of(new Entry.User("Learn cold brew"), new Entry.Assistant("Done!"), new Entry.User("Shorter please"),
                new Entry.Assistant("Here."), new Entry.User("Thanks")));

        assertThat(breaks).hasSize(1);
        PrefixGuard.Break found = breaks.getFirst();
        assertThat(found.conversation()).isEqualTo("c1");
        assertThat(found.request()).isEqualTo(2);
        assertThat(found.messageIndex()).as("system 0, user 1, assistant 2").isEqualTo(2);
        assertThat(found.charOffset()).isEqualTo("{\"role\":\"assistant\",\"content\":\"Done".length());
        assertThat(found.previousMessages()).isEqualTo(4);
        assertThat(found.messages()).isEqualTo(6);
        assertThat(delegated).as("not strict: the call still goes out").hasSize(2);
    }

    @Test
    void aChangedSystemPromptIsABreakAtMessageZero() throws Exception {
        PrefixGuard guard = guard(false);
        List<Entry> entries = List.of(new Entry.User("Hi"));
        guard.stream(new ModelCall(SYSTEM, entries, "c1"), NO_OUTPUT, new Cancellation());
        guard.stream(new ModelCall(SYSTEM + " Today is Monday.", entries, "c1"), NO_OUTPUT, new Cancellation());

        assertThat(breaks).singleElement().satisfies(found -> {
            assertThat(found.messageIndex()).isZero();
            assertThat(found.charOffset()).isEqualTo("{\"role\":\"system\",\"content\":\"".length() + SYSTEM.length());
        });
    }

    @Test
    void aRequestThatLostItsLastMessagesIsABreakWhereTheyEnd() throws Exception {
        PrefixGuard guard = guard(false);
        call(guard, "c1", List.of(new Entry.User("One"), new Entry.Assistant("Two"), new Entry.Tool("three")));
        call(guard, "c1", List.of(new Entry.User("One")));

        assertThat(breaks).singleElement().satisfies(found -> {
            assertThat(found.messageIndex()).isEqualTo(2);
            assertThat(found.charOffset()).isZero();
        });
    }

    @Test
    void aDifferenceInsideAMessageIsFoundAtItsCharacter() throws Exception {
        PrefixGuard guard = guard(false);
        call(guard, "c1", List.of(new Entry.User("Hello world")));
        call(guard, "c1", List.of(new Entry.User("Hello World"), new Entry.Assistant("x"), new Entry.Tool("y")));

        assertThat(breaks).singleElement().satisfies(found -> {
            assertThat(found.messageIndex()).isEqualTo(1);
            assertThat(found.charOffset()).isEqualTo(USER_JSON_PREFIX.length() + "Hello ".length());
        });
    }

    @Test
    void inStrictModeABreakFailsTheCallBeforeItIsSent() throws Exception {
        PrefixGuard guard = guard(true);
        call(guard, "c1", List.of(new Entry.User("Hello world")));

        assertThatThrownBy(() -> call(guard, "c1", List.of(new Entry.User("Hello World"))))
                .isInstanceOf(ProviderException.class)
                .satisfies(e -> assertThat(((ProviderException) e).code()).isEqualTo(PrefixGuard.CACHE_BREAK_CODE))
                .hasMessageContaining("message 1, character " + (USER_JSON_PREFIX.length() + 6));
        assertThat(breaks).hasSize(1);
        assertThat(delegated).hasSize(1);
    }

    @Test
    void geminiRequestsAreCheckedMessageByMessageToo() throws Exception {
        PrefixGuard guard = new PrefixGuard(model, "gem", "gemini-2.5-flash", GeminiRequest::conversation, null, false, observer);
        call(guard, "c1", List.of(new Entry.User("Watch https://youtu.be/abcdefghijk")));
        call(guard, "c1", List.of(new Entry.User("Watch https://youtu.be/abcdefghijk"), new Entry.Assistant("Seen."), new Entry.User("Good")));
        assertThat(breaks).isEmpty();

        call(guard, "c1", List.of(new Entry.User("Watch https://youtu.be/abcdefghijk"), new Entry.Assistant("Seen!"), new Entry.User("Good")));
        assertThat(breaks).singleElement().satisfies(found -> assertThat(found.messageIndex()).as("systemInstruction 0, user 1, model 2").isEqualTo(2));
    }

    @Test
    void aNewContextCutStartsANewPrefixWithoutABreakAndTheRequestsAfterItAreCheckedAgainstIt() throws Exception {
        PrefixGuard guard = guard(true);
        Entry.User espresso = new Entry.User("And espresso?");
        Entry.ContextCut cut = new Entry.ContextCut("[Context note] 2 messages left out", 2);
        Entry.ContextCut later = new Entry.ContextCut("[Context note] 4 messages left out", 4);
        call(guard, "c1", List.of(new Entry.User("Learn cold brew"), new Entry.Assistant("Saved."), espresso));
        call(guard, "c1", List.of(cut, espresso));
        call(guard, "c1", List.of(cut, espresso, new Entry.Assistant("Done."), new Entry.User("Tea?")));
        call(guard, "c1", List.of(later, new Entry.User("Tea?")));

        assertThat(breaks).as("strict: a break would have thrown").isEmpty();
        assertThat(delegated).hasSize(4);
        assertThatThrownBy(() -> call(guard, "c1", List.of(later, new Entry.User("Tea!"))))
                .isInstanceOf(ProviderException.class);
        assertThat(breaks).singleElement().satisfies(found -> assertThat(found.messageIndex()).as("system 0, note 1").isEqualTo(2));
    }

    @Test
    void aRequestThatLosesItsContextCutIsABreakNotACut() throws Exception {
        PrefixGuard guard = guard(false);
        Entry.User espresso = new Entry.User("And espresso?");
        call(guard, "c1", List.of(new Entry.ContextCut("[Context note] 2 messages left out", 2), espresso));
        call(guard, "c1", List.of(new Entry.User("Learn cold brew"), new Entry.Assistant("Saved."), espresso));

        assertThat(breaks).singleElement().satisfies(found -> assertThat(found.messageIndex()).isEqualTo(1));
    }

    @Test
    void aContextCutThatAlsoChangesTheSystemPromptIsABreakAtMessageZero() throws Exception {
        PrefixGuard guard = guard(false);
        Entry.User espresso = new Entry.User("And espresso?");
        call(guard, "c1", List.of(new Entry.User("Learn cold brew"), new Entry.Assistant("Saved."), espresso));
        guard.stream(new ModelCall(SYSTEM + " Today is Sunday.", List.of(new Entry.ContextCut("[Context note] 2 messages left out", 2),
                espresso), "c1"), NO_OUTPUT, new Cancellation());

        assertThat(breaks).singleElement().satisfies(found -> assertThat(found.messageIndex()).isEqualTo(0));
    }

    @Test
    void theDebugLineSaysTheSharesAndTheIteration() {
        assertThat(CacheDebug.line("c1", "sim", "m", 2, new Usage(2000L, 10L, 1536L), 1920L))
                .isEqualTo("[Cache Debug] conversation=c1 provider=sim model=m iteration=2 promptTokens=2000 cachedTokens=1536"
                        + " cacheWriteTokens=unknown cachedShare=76.8% possibleShare=96.0%");
        assertThat(CacheDebug.line("c1", "ollama", "m", 0, new Usage(500L, 3L, null), null))
                .isEqualTo("[Cache Debug] conversation=c1 provider=ollama model=m iteration=0 promptTokens=500 cachedTokens=unknown"
                        + " cacheWriteTokens=unknown cachedShare=unknown");
        assertThat(CacheDebug.line("c1", "anthropic", "m", 1, new Usage(2000L, 10L, 1500L, 480L), null))
                .isEqualTo("[Cache Debug] conversation=c1 provider=anthropic model=m iteration=1 promptTokens=2000 cachedTokens=1500"
                        + " cacheWriteTokens=480 cachedShare=75.0%");
    }

    private static void call(PrefixGuard guard, String key, List<Entry> entries) throws ProviderException {
        guard.stream(new ModelCall(SYSTEM, entries, key), NO_OUTPUT, new Cancellation());
    }

    private static final ModelStreamListener NO_OUTPUT = IgnoredOutput.INSTANCE;
}
