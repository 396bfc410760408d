package dev.skillforge.server.provider.gemini;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.FixtureFiles;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The bytes of a Gemini request: fixed order, stored parts replayed byte for byte, videos as file_data parts. */
class GeminiRequestTest {

    private static final String SYSTEM = "You forge skills.";

    @Test
    void requestBytesAreSystemInstructionContentsToolsThenThinkingConfig() {
        ModelCall call = call(new Entry.User("List my skills."),
                new Entry.Assistant("Checking.\n<shell>skill list</shell>"),
                new Entry.Tool("$ skill list\ncold-brew"));

        String body = Json.write(GeminiRequest.build(call, GeminiRequest.Options.ALL));

        assertThat(body).isEqualTo("{\"systemInstruction\":{\"parts\":[{\"text\":\"You forge skills.\"}]},"
                + "\"contents\":["
                + "{\"role\":\"user\",\"parts\":[{\"text\":\"List my skills.\"}]},"
                + "{\"role\":\"model\",\"parts\":[{\"text\":\"Checking.\\n<shell>skill list</shell>\"}]},"
                + "{\"role\":\"user\",\"parts\":[{\"text\":\"[Shell Output]\\n$ skill list\\ncold-brew\"}]}],"
                + "\"tools\":[{\"google_search\":{}},{\"url_context\":{}}],"
                + "\"generationConfig\":{\"thinkingConfig\":{\"includeThoughts\":true}}}");
    }

    @Test
    void withoutToolsOrThoughtsOnlyTheConversationIsSent() {
        String body = Json.write(GeminiRequest.build(call(new Entry.User("hi")), GeminiRequest.Options.NONE));

        assertThat(body).isEqualTo("{\"systemInstruction\":{\"parts\":[{\"text\":\"You forge skills.\"}]},"
                + "\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]}");
        assertThat(Json.write(GeminiRequest.build(call(new Entry.User("hi")), new GeminiRequest.Options(false, true, false))))
                .endsWith("\"tools\":[{\"url_context\":{}}]}");
    }

    @Test
    void aContextCutIsSentAsAUserTurnHoldingItsNote() {
        ModelCall call = call(new Entry.ContextCut("[Context note] 4 messages left out", 4), new Entry.User("Tea?"));

        assertThat(Json.write(GeminiRequest.build(call, GeminiRequest.Options.NONE))).isEqualTo(
                "{\"systemInstruction\":{\"parts\":[{\"text\":\"You forge skills.\"}]},\"contents\":["
                        + "{\"role\":\"user\",\"parts\":[{\"text\":\"[Context note] 4 messages left out\"}]},"
                        + "{\"role\":\"user\",\"parts\":[{\"text\":\"Tea?\"}]}]}");
    }

    @Test
    void storedPartsAreSentForTheModelTurnExactlyAsStored() {
        String stored = "[{\"text\":\"**Plan**\",\"thought\":true},{\"text\":\"Look: \"},{\"text\":\"<shell>skill list</shell>\"},"
                + "{\"text\":\"\",\"thoughtSignature\":\"Eq8D/+sig==\"},{\"functionCall\":{\"name\":\"x\",\"args\":{\"n\":1.50}}}]";
        ModelCall call = call(new Entry.User("q"),
                new Entry.Assistant("Look: <shell>skill list</shell>", new ProviderReplay(GeminiRequest.PARTS_REPLAY, stored)),
                new Entry.Tool("$ skill list\n(none)"));

        String body = Json.write(GeminiRequest.conversation(call));

        // byte for byte: not re-encoded (1.50 stays 1.50), not merged, the signature on the empty text kept
        assertThat(body).contains("{\"role\":\"model\",\"parts\":" + stored + "}");
    }

    @Test
    void replayOfAnotherFormatOrACorruptOneFallsBackToTheVerbatimText() {
        for (ProviderReplay replay : List.of(new ProviderReplay("openai.reasoning_content", "thinking"),
                new ProviderReplay(GeminiRequest.PARTS_REPLAY, "not json"),
                new ProviderReplay(GeminiRequest.PARTS_REPLAY, "[]"),
                new ProviderReplay(GeminiRequest.PARTS_REPLAY, "[\"text\"]"))) {
            String body = Json.write(GeminiRequest.conversation(call(new Entry.User("q"), new Entry.Assistant("a", replay), new Entry.User("q2"))));

            assertThat(body).as(replay.toString()).contains("{\"role\":\"model\",\"parts\":[{\"text\":\"a\"}]}");
        }
    }

    @Test
    void youtubeLinkInAUserMessageIsSentAsAFileDataPartBeforeTheText() {
        String message = "Learn from this video https://youtu.be/dQw4w9WgXcQ?t=42 and make a skill.";

        String body = Json.write(GeminiRequest.conversation(call(new Entry.User(message))));

        assertThat(body).contains("{\"role\":\"user\",\"parts\":["
                + "{\"file_data\":{\"file_uri\":\"https://www.youtube.com/watch?v=dQw4w9WgXcQ\"}},"
                + "{\"text\":\"Learn from this video https://youtu.be/dQw4w9WgXcQ?t=42 and make a skill.\"}]}");
    }

    @Test
    void videoFileLinkCarriesItsMimeTypeAndAPlainLinkAddsNoPart() {
        String body = Json.write(GeminiRequest.conversation(call(
                new Entry.User("Watch https://cdn.example.com/talks/intro.MP4 and read https://example.com/guide"))));

        assertThat(body).contains("\"parts\":[{\"file_data\":{\"mime_type\":\"video/mp4\",\"file_uri\":\"https://cdn.example.com/talks/intro.MP4\"}},"
                + "{\"text\":\"Watch https://cdn.example.com/talks/intro.MP4 and read https://example.com/guide\"}]");
        assertThat(body).doesNotContain("example.com/guide\"}}");
    }

    @Test
    void theSameTranscriptGivesTheSameBytesAndALongerOneExtendsTheConversation() {
        ModelCall shorter = call(new Entry.User("Learn https://www.youtube.com/watch?v=dQw4w9WgXcQ"),
                new Entry.Assistant("ok", new ProviderReplay(GeminiRequest.PARTS_REPLAY, "[{\"text\":\"ok\",\"thoughtSignature\":\"s\"}]")),
                new Entry.Tool("$ x\ny"));
        ModelCall longer = call(new Entry.User(new String("Learn https://www.youtube.com/watch?v=dQw4w9WgXcQ")),
                new Entry.Assistant("ok", new ProviderReplay(GeminiRequest.PARTS_REPLAY, "[{\"text\":\"ok\",\"thoughtSignature\":\"s\"}]")),
                new Entry.Tool("$ x\ny"), new Entry.Assistant("done"), new Entry.User("thanks"));

        byte[] once = Json.bytes(GeminiRequest.build(shorter, GeminiRequest.Options.ALL));
        byte[] twice = Json.bytes(GeminiRequest.build(shorter, GeminiRequest.Options.ALL));
        String shortConversation = Json.write(GeminiRequest.conversation(shorter));
        String longConversation = Json.write(GeminiRequest.conversation(longer));

        assertThat(twice).isEqualTo(once);
        assertThat(longConversation).startsWith(shortConversation.substring(0, shortConversation.length() - 2) + ",");
    }

    // ================================================================ against the recorded requests

    @Test
    void replayOfTheRecordedGemini3ToolTurnGivesTheRecordedTurn2ModelPartsWithTheSignatureByteForByte() throws Exception {
        String turn1 = FixtureFiles.read("gemini-3-pro-tool-streaming.turn1.sse");
        String turn2Request = FixtureFiles.read("gemini-3-pro-tool-streaming.turn2.request.json");
        GeminiStreamParserFixtureTest.Parsed parsed = GeminiStreamParserFixtureTest.parseSse(turn1);
        ModelCall call = new ModelCall("You are a helpful assistant", List.of(
                new Entry.User("What's the weather in Florence,Italy?"),
                new Entry.Assistant("", parsed.replay()),
                new Entry.Tool("$ weather Florence\n40 C")), "k");

        String ours = Json.write(GeminiRequest.build(call, GeminiRequest.Options.NONE));
        JsonNode recorded = Json.parse(turn2Request);
        JsonNode oursJson = Json.parse(ours);

        // the person's turn and the model turn are what the recording sent (key order aside: the recorder sorted keys)
        assertThat(oursJson.at("/contents/0")).isEqualTo(recorded.at("/contents/0"));
        assertThat(oursJson.at("/contents/1")).isEqualTo(recorded.at("/contents/1"));
        // the signature is the same bytes in both requests
        String signature = recorded.at("/contents/1/parts/0/thoughtSignature").asText();
        assertThat(signature).startsWith("EqcECqQEAb4").hasSize(740);
        assertThat(ours).contains("\"thoughtSignature\":\"" + signature + "\"");
        assertThat(turn2Request).contains("\"thoughtSignature\":\"" + signature + "\"");
        // our model turn is the streamed part re-written compactly, in the order it streamed
        String streamedPart = turn1.lines().filter(l -> l.startsWith("data: ")).findFirst().orElseThrow();
        JsonNode streamed = Json.parse(streamedPart.substring(6)).at("/candidates/0/content/parts/0");
        assertThat(ours).contains("{\"role\":\"model\",\"parts\":[" + Json.write(streamed) + "]}");
        // where the recording had a functionResponse, SkillForge has its [Shell Output] user turn
        assertThat(oursJson.at("/contents/2/parts/0/text").asText()).isEqualTo("[Shell Output]\n$ weather Florence\n40 C");
    }

    @Test
    void flashCacheProbeTurn3ContentsMatchTheRecordedConversation() throws Exception {
        JsonNode recorded = Json.parse(FixtureFiles.read("gemini-2.5-flash-implicit-cache-streaming.turn3.request.json"));
        GeminiStreamParserFixtureTest.Parsed turn1 =
                GeminiStreamParserFixtureTest.parseSse(FixtureFiles.read("gemini-2.5-flash-implicit-cache-streaming.turn1.sse"));
        String system = recorded.at("/systemInstruction/parts/0/text").asText();
        ModelCall call = new ModelCall(system, List.of(
                new Entry.User(recorded.at("/contents/0/parts/0/text").asText()),
                new Entry.Assistant(turn1.listener().allText(), turn1.replay()),
                new Entry.User(recorded.at("/contents/2/parts/0/text").asText())), "k");

        JsonNode ours = Json.parse(Json.write(GeminiRequest.conversation(call)));

        assertThat(ours.at("/systemInstruction/parts/0/text").asText()).isEqualTo(system).hasSizeGreaterThan(27_000);
        assertThat(ours.get("contents")).hasSize(3);
        for (int i = 0; i < 3; i++) {
            assertThat(ours.at("/contents/" + i + "/role")).isEqualTo(recorded.at("/contents/" + i + "/role"));
            // the recorder added "thought": false to each part; the text is the same
            assertThat(ours.at("/contents/" + i + "/parts/0/text")).isEqualTo(recorded.at("/contents/" + i + "/parts/0/text"));
            assertThat(ours.at("/contents/" + i + "/parts")).hasSize(1);
        }
    }

    private static ModelCall call(Entry... entries) {
        return new ModelCall(SYSTEM, List.of(entries), "conv-42");
    }
}
