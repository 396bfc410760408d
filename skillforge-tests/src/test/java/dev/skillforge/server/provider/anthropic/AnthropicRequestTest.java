package dev.skillforge.server.provider.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.FixtureFiles;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The request bytes of the Anthropic client, and against the recorded requests of {@code shared/fixtures}. */
class AnthropicRequestTest {

    private static final String SYSTEM = "You forge skills.";
    private static final AnthropicRequest.Options AUTOMATIC = AnthropicRequest.Options.DEFAULT;
    private static final AnthropicRequest.Options EXPLICIT = new AnthropicRequest.Options(32_000, null, false, false, true);

    @Test
    void theBodyIsModelMaxTokensAutomaticCacheSystemMessagesAndStreamInThatOrder() {
        ModelCall call = call(new Entry.User("What skills do I have?"), new Entry.Assistant("Let me look.\n\n<shell>skill list</shell>"),
                new Entry.Tool("$ skill list\nNo skills yet."));

        String body = Json.write(AnthropicRequest.build(call, "claude-sonnet-5-5", AUTOMATIC));

        assertThat(body).isEqualTo("{\"model\":\"claude-sonnet-5-5\",\"max_tokens\":32000,\"cache_control\":{\"type\":\"ephemeral\"},"
                + "\"system\":[{\"type\":\"text\",\"text\":\"You forge skills.\"}],\"messages\":["
                + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"What skills do I have?\"}]},"
                + "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Let me look.\\n\\n<shell>skill list</shell>\"}]},"
                + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"[Shell Output]\\n$ skill list\\nNo skills yet.\"}]}],"
                + "\"stream\":true}");
    }

    @Test
    void anHourLongCacheAThinkingBudgetAndSummarisedAdaptiveThinkingAreAskedForAsAnthropicNamesThem() {
        ModelCall call = call(new Entry.User("hi"));

        JsonNode hour = AnthropicRequest.build(call, "m", new AnthropicRequest.Options(8000, null, false, true, false));
        JsonNode budget = AnthropicRequest.build(call, "m", new AnthropicRequest.Options(8000, 4000, true, false, false));
        JsonNode adaptive = AnthropicRequest.build(call, "m", new AnthropicRequest.Options(8000, null, true, false, false));

        assertThat(Json.write(hour.get("cache_control"))).isEqualTo("{\"type\":\"ephemeral\",\"ttl\":\"1h\"}");
        assertThat(hour.has("thinking")).isFalse();
        assertThat(Json.write(budget.get("thinking"))).isEqualTo("{\"type\":\"enabled\",\"budget_tokens\":4000}");
        assertThat(Json.write(adaptive.get("thinking"))).isEqualTo("{\"type\":\"adaptive\",\"display\":\"summarized\"}");
        assertThat(Json.write(adaptive)).endsWith(",\"stream\":true}");
    }

    @Test
    void explicitBreakpointsMarkTheSystemPromptAndTheNewestMessagesLastBlockOnlyAndTheGuardedPartHasNoMarkers() {
        ModelCall call = call(new Entry.User("one"), new Entry.Assistant("two"), new Entry.User("three"));

        ObjectNode body = AnthropicRequest.build(call, "m", new AnthropicRequest.Options(100, null, false, true, true));

        assertThat(body.has("cache_control")).isFalse();
        assertThat(Json.write(body.get("system"))).isEqualTo(
                "[{\"type\":\"text\",\"text\":\"You forge skills.\",\"cache_control\":{\"type\":\"ephemeral\",\"ttl\":\"1h\"}}]");
        assertThat(body.at("/messages/0/content/0").has("cache_control")).isFalse();
        assertThat(body.at("/messages/1/content/0").has("cache_control")).isFalse();
        assertThat(Json.write(body.at("/messages/2/content/0/cache_control"))).isEqualTo("{\"type\":\"ephemeral\",\"ttl\":\"1h\"}");
        assertThat(Json.write(AnthropicRequest.conversation(call))).doesNotContain("cache_control");
    }

    @Test
    void theSameCallGivesTheSameBytesAndALongerConversationStartsWithTheShorterOnesBytes() {
        ProviderReplay signed = new ProviderReplay(AnthropicRequest.CONTENT_REPLAY,
                "[{\"type\":\"thinking\",\"thinking\":\"list first\",\"signature\":\"c2ln\"},{\"type\":\"text\",\"text\":\"<shell>skill list</shell>\"}]");
        ModelCall shorter = call(new Entry.User("Ünïcödé \"quotes\""), new Entry.Assistant("<shell>skill list</shell>", signed),
                new Entry.Tool("$ skill list\n(none)"));
        ModelCall longer = call(new Entry.User("Ünïcödé \"quotes\""), new Entry.Assistant("<shell>skill list</shell>", signed),
                new Entry.Tool("$ skill list\n(none)"), new Entry.Assistant("None yet."), new Entry.User("thanks"));

        String once = Json.write(AnthropicRequest.build(shorter, "m", AUTOMATIC));
        String twice = Json.write(AnthropicRequest.build(shorter, "m", AUTOMATIC));
        String shortConversation = Json.write(AnthropicRequest.conversation(shorter));
        String longConversation = Json.write(AnthropicRequest.conversation(longer));

        assertThat(twice).isEqualTo(once);
        assertThat(once).contains("{\"role\":\"assistant\",\"content\":" + signed.data() + "}");
        assertThat(longConversation).startsWith(shortConversation.substring(0, shortConversation.length() - 2) + ",");
    }

    @Test
    void anEmptyAnswerWithNothingStoredIsLeftOutAndAReplayOfAnotherFormatOrCorruptGivesTheVerbatimText() {
        ModelCall call = call(new Entry.User("hi"), new Entry.Assistant(""), new Entry.User("hello?"),
                new Entry.Assistant("text", new ProviderReplay("openai.reasoning_content", "thought")), new Entry.User("and?"),
                new Entry.Assistant("kept", new ProviderReplay(AnthropicRequest.CONTENT_REPLAY, "not json")), new Entry.User("ok"));

        JsonNode messages = AnthropicRequest.conversation(call).get("messages");

        assertThat(messages).hasSize(6);
        assertThat(Json.write(messages.get(2))).isEqualTo("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"text\"}]}");
        assertThat(Json.write(messages.get(4))).isEqualTo("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"kept\"}]}");
    }

    @Test
    void afterAContextCutAnswersGoWithoutTheirThinkingWhoseSignaturesVouchForAnotherConversationStart() {
        ProviderReplay signed = new ProviderReplay(AnthropicRequest.CONTENT_REPLAY, "[{\"type\":\"thinking\",\"thinking\":\"t\",\"signature\":\"s\"},"
                + "{\"type\":\"redacted_thinking\",\"data\":\"r\"},{\"type\":\"text\",\"text\":\"answer\"}]");
        ProviderReplay onlyThinking = new ProviderReplay(AnthropicRequest.CONTENT_REPLAY,
                "[{\"type\":\"thinking\",\"thinking\":\"t\",\"signature\":\"s\"}]");
        Entry.ContextCut cut = new Entry.ContextCut("[Earlier messages were left out]", 2);
        ModelCall afterCut = call(cut, new Entry.User("again"), new Entry.Assistant("answer", signed), new Entry.User("more"),
                new Entry.Assistant("", onlyThinking), new Entry.User("last"));
        ModelCall withoutCut = call(new Entry.User("again"), new Entry.Assistant("answer", signed), new Entry.User("more"));

        String cutConversation = Json.write(AnthropicRequest.conversation(afterCut));

        assertThat(cutConversation).contains("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"answer\"}]}")
                .doesNotContain("thinking").contains("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"[Earlier messages were left out]\"}]}");
        assertThat(AnthropicRequest.conversation(afterCut).get("messages")).hasSize(5); // the thinking-only answer has nothing left
        assertThat(Json.write(AnthropicRequest.conversation(withoutCut))).contains(signed.data());
    }

    // ================================================================ against the recorded requests

    @Test
    void theSecondRequestCarriesTheFirstAnswersSignedThinkingBlockExactlyAsTheRecordedTurn2RequestDoes() throws Exception {
        String turn1 = FixtureFiles.read("anthropic-thinking-signature-tool-streaming.turn1.sse");
        JsonNode recorded = Json.parse(FixtureFiles.read("anthropic-thinking-signature-tool-streaming.turn2.request.json"));
        AnthropicStreamParserFixtureTest.Parsed parsed = AnthropicStreamParserFixtureTest.parse(turn1);
        ModelCall call = new ModelCall("You are a helpful assistant", List.of(
                new Entry.User("What's the weather in Florence, Italy?"),
                new Entry.Assistant("", parsed.replay()),
                new Entry.Tool("$ weather Florence\n40 C")), "k");

        String ours = Json.write(AnthropicRequest.build(call, "claude-sonnet-4-20250514", new AnthropicRequest.Options(4096, 4000, false, false, false)));
        JsonNode oursJson = Json.parse(ours);

        // the person's turn, the system prompt and the thinking budget are the recording's (key order aside: its recorder sorted keys)
        assertThat(oursJson.at("/messages/0")).isEqualTo(recorded.at("/messages/0"));
        assertThat(oursJson.get("system")).isEqualTo(recorded.get("system"));
        assertThat(oursJson.get("thinking")).isEqualTo(recorded.get("thinking"));
        assertThat(oursJson.get("max_tokens")).isEqualTo(recorded.get("max_tokens"));
        // the answer's blocks: the signed thinking block exactly as the recording sent it back
        JsonNode recordedThinking = recorded.at("/messages/1/content/0");
        assertThat(oursJson.at("/messages/1/role").asText()).isEqualTo("assistant");
        assertThat(oursJson.at("/messages/1/content/0")).isEqualTo(recordedThinking);
        String signature = recordedThinking.get("signature").asText();
        assertThat(ours).contains("\"signature\":\"" + signature + "\"");
        // the tool call too; the recording's client dropped the block's "caller" field, SkillForge sends it back as streamed
        ObjectNode ourToolUse = oursJson.at("/messages/1/content/1").deepCopy();
        assertThat(ourToolUse.remove("caller")).isEqualTo(Json.parse("{\"type\":\"direct\"}"));
        assertThat(ourToolUse).isEqualTo(recorded.at("/messages/1/content/1"));
        assertThat(oursJson.at("/messages/1/content")).hasSize(recorded.at("/messages/1/content").size());
        // the answer's bytes are those stored from the stream, in the order they streamed
        assertThat(ours).contains("{\"role\":\"assistant\",\"content\":" + parsed.replay().data() + "}");
        // where the recording had a tool_result, SkillForge has its [Shell Output] user turn
        assertThat(oursJson.at("/messages/2/content/0/text").asText()).isEqualTo("[Shell Output]\n$ weather Florence\n40 C");
    }

    @Test
    void explicitBreakpointsOfTheCacheProbeTurn3AreWhereTheRecordedRequestHasThem() throws Exception {
        JsonNode recorded = Json.parse(FixtureFiles.read("anthropic-cache-read-streaming.turn3.request.json"));
        AnthropicStreamParserFixtureTest.Parsed turn1 = AnthropicStreamParserFixtureTest.parse(
                FixtureFiles.read("anthropic-cache-read-streaming.turn1.sse"));
        String system = recorded.at("/system/0/text").asText();
        ModelCall call = new ModelCall(system, List.of(
                new Entry.User(recorded.at("/messages/0/content/0/text").asText()),
                new Entry.Assistant(turn1.listener().allText(), turn1.replay()),
                new Entry.User(recorded.at("/messages/2/content/0/text").asText())), "k");

        JsonNode ours = Json.parse(Json.write(AnthropicRequest.build(call, "claude-sonnet-4-6", EXPLICIT))); // stored bytes as sent

        assertThat(system).hasSizeGreaterThan(27_000);
        // system with its marker, then the three messages, the newest one marked: exactly the recording's (key order aside)
        assertThat(ours.get("system")).isEqualTo(recorded.get("system"));
        assertThat(ours.get("messages")).isEqualTo(recorded.get("messages"));
        assertThat(Json.write(AnthropicRequest.conversation(call))).doesNotContain("cache_control");
    }

    private static ModelCall call(Entry... entries) {
        return new ModelCall(SYSTEM, List.of(entries), "conv-42");
    }
}
