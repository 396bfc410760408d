package dev.skillforge.server.provider.gemini;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.FixtureFiles;
import dev.skillforge.testkit.RecordingListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The recorded Gemini streams of {@code shared/fixtures}, read as {@link GeminiProvider} reads a body:
 * {@link dev.skillforge.server.provider.SseEventData} over the lines, each event's data into {@link GeminiStreamParser}, then the end
 * of the body. Every expected figure was read out of the fixture files. Then hand-written streams for
 * what the recordings do not cover: finish reasons, errors, grounding, URL context, usage rules.
 *
 * <p>{@code gemini-interactions-google-search} is Google's Interactions API ({@code event_type}
 * {@code step.delta}, …), not {@code streamGenerateContent}: SkillForge does not speak it. Only its
 * grounding links apply, and are checked through the equivalent {@code groundingMetadata}.
 */
class GeminiStreamParserFixtureTest {

    // ================================================================ gemini-2.5-flash implicit cache (CRLF framing)

    @ParameterizedTest
    @ValueSource(strings = {"gemini-2.5-flash-implicit-cache-streaming.turn1.sse", "gemini-2.5-flash-implicit-cache-streaming.turn2.sse"})
    void flashImplicitCacheHitReportsCachedContentTokenCountInsideThePromptCount(String fixture) {
        String sse = FixtureFiles.read(fixture);
        assertThat(sse).contains("\r\n\r\n").doesNotContain("[DONE]");

        Parsed parsed = parseSse(sse);

        assertThat(parsed.events()).isEqualTo(1);
        assertThat(parsed.listener().text).containsExactly("cache probe ready");
        assertThat(parsed.listener().reasoning).isEmpty();
        assertThat(parsed.listener().sources).isEmpty();
        // promptTokenCount 4612 already holds the 3765 cached tokens; candidatesTokenCount 3, no thoughts
        assertThat(parsed.usage()).isEqualTo(new Usage(4612L, 3L, 3765L));
        assertThat(parsed.finishReason()).isEqualTo("STOP");
        assertThat(parsed.replay()).isEqualTo(new ProviderReplay(GeminiRequest.PARTS_REPLAY, "[{\"text\":\"cache probe ready\"}]"));
    }

    @Test
    void flashImplicitCacheTurn3WithALongerPromptReportsItsOwnFigures() {
        Parsed parsed = parseSse(FixtureFiles.read("gemini-2.5-flash-implicit-cache-streaming.turn3.sse"));

        assertThat(parsed.listener().allText()).isEqualTo("probe still ready");
        assertThat(parsed.usage()).isEqualTo(new Usage(4633L, 3L, 3760L));
    }

    @Test
    void crlfFramedRecordingParsesExactlyLikeItsLfRewrite() {
        String crlf = FixtureFiles.read("gemini-3-pro-tool-streaming.turn2.sse");
        assertThat(crlf).contains("\r\n\r\n");
        String lf = crlf.replace("\r\n", "\n");

        Parsed fromCrlf = parseSse(crlf);
        Parsed fromLf = parseSse(lf);

        assertThat(fromLf.listener().text).isEqualTo(fromCrlf.listener().text);
        assertThat(fromLf.usage()).isEqualTo(fromCrlf.usage());
        assertThat(fromLf.replay()).isEqualTo(fromCrlf.replay());
        assertThat(fromCrlf.listener().allText()).doesNotContain("\r");
    }

    // ================================================================ gemini-3-pro tool loop (thoughtSignature)

    @Test
    void gemini3ProToolTurn1KeepsTheSignedFunctionCallPartAndDropsTheBareEmptyText() throws Exception {
        String sse = FixtureFiles.read("gemini-3-pro-tool-streaming.turn1.sse");
        assertThat(sse).contains("\"parts\": [{\"text\": \"\"}]"); // the bare empty text of the finishing chunk

        Parsed parsed = parseSse(sse);

        assertThat(parsed.listener().text).isEmpty();
        assertThat(parsed.listener().reasoning).isEmpty();
        // candidatesTokenCount 16 + thoughtsTokenCount 111; no cachedContentTokenCount: proto3 left a zero out
        assertThat(parsed.usage()).isEqualTo(new Usage(65L, 127L, 0L));
        assertThat(parsed.finishReason()).isEqualTo("STOP");
        JsonNode streamedPart = recordedParts(sse).getFirst();
        assertThat(streamedPart.has("thoughtSignature")).isTrue();
        ArrayNode replayed = (ArrayNode) Json.parse(parsed.replay().data());
        assertThat(replayed).hasSize(1);
        assertThat(replayed.get(0)).isEqualTo(streamedPart);
        assertThat(parsed.replay().data()).contains("\"thoughtSignature\":\"" + streamedPart.get("thoughtSignature").asText() + "\"");
    }

    @Test
    void gemini3ProToolTurn2KeepsEveryTextPartUnmergedAndTheSignatureOnTheFinalEmptyTextPart() throws Exception {
        String sse = FixtureFiles.read("gemini-3-pro-tool-streaming.turn2.sse");

        Parsed parsed = parseSse(sse);

        assertThat(parsed.listener().text).containsExactly("The current weather in Florence, Italy",
                " is 40°C (104°F). Stay hydrated, it's quite hot!");
        // the last usageMetadata wins: promptTokenCount 206 (95 in the earlier chunks), 29 + 83 thoughts
        assertThat(parsed.usage()).isEqualTo(new Usage(206L, 112L, 0L));
        List<JsonNode> streamed = recordedParts(sse);
        assertThat(streamed).hasSize(3);
        ArrayNode replayed = (ArrayNode) Json.parse(parsed.replay().data());
        assertThat(replayed).containsExactlyElementsOf(streamed);
        assertThat(replayed.get(2).get("text").asText()).isEmpty();
        assertThat(replayed.get(2).get("thoughtSignature").asText()).startsWith("Eq8DCqwDAb4+9vsoVB3o");
    }

    // ================================================================ gemini-3-pro reasoning (.chunks.jsonl)

    @Test
    void gemini3ProReasoningKeepsTheSignatureOnTheEmptyTextFinalPartAndCountsThoughtsAsOutput() throws Exception {
        String chunks = FixtureFiles.read("gemini-3-pro-reasoning.chunks.jsonl");

        Parsed parsed = parseChunks(chunks);

        assertThat(parsed.events()).isEqualTo(3);
        assertThat(parsed.listener().text).containsExactly("There are **3** \"r\"s in strawberry.\n\n", "St**r**awbe**rr**y");
        // thought summaries were not asked for: thoughtsTokenCount 302 is only counted
        assertThat(parsed.listener().reasoning).isEmpty();
        assertThat(parsed.usage()).isEqualTo(new Usage(9L, 23L + 302L, 0L));
        assertThat(parsed.finishReason()).isEqualTo("STOP");
        ArrayNode replayed = (ArrayNode) Json.parse(parsed.replay().data());
        assertThat(replayed).hasSize(3);
        JsonNode last = replayed.get(2);
        assertThat(last.get("text").asText()).isEmpty();
        String recordedSignature = Json.parse(chunks.lines().toList().get(2))
                .at("/candidates/0/content/parts/0/thoughtSignature").asText();
        assertThat(recordedSignature).hasSizeGreaterThan(1000);
        assertThat(last.get("thoughtSignature").asText()).isEqualTo(recordedSignature);
        assertThat(parsed.replay().data()).endsWith("{\"text\":\"\",\"thoughtSignature\":\"" + recordedSignature + "\"}]");
    }

    // ================================================================ gemini interactions (a different API)

    @Test
    void interactionsApiStreamIsNotStreamGenerateContentAndReadsAsAnIncompleteAnswer() {
        String chunks = FixtureFiles.read("gemini-interactions-google-search.chunks.jsonl");
        RecordingListener listener = new RecordingListener();
        GeminiStreamParser parser = new GeminiStreamParser(listener);

        ProviderException e = catchThrowableOfType(ProviderException.class, () -> {
            for (String line : chunks.lines().filter(l -> !l.isBlank()).toList()) {
                parser.accept(line);
            }
            parser.finish();
        });

        // no candidates, no finishReason: nothing is taken for text, and the end is not taken for a complete answer
        assertThat(listener.text).isEmpty();
        assertThat(e.code()).isEqualTo("provider_stream_truncated");
    }

    @Test
    void interactionsGroundingLinksAsGroundingChunksBecomeSourcesOncePerLinkWithTheRedirectUrlKept() throws Exception {
        // The only recorded Google-Search-grounded stream is an Interactions one: its url_citation links,
        // as streamGenerateContent carries them (groundingMetadata.groundingChunks[].web).
        Map<String, String> citations = new LinkedHashMap<>();
        for (String line : FixtureFiles.read("gemini-interactions-google-search.chunks.jsonl").lines().toList()) {
            for (JsonNode annotation : Json.parse(line).path("delta").path("annotations")) {
                citations.putIfAbsent(annotation.get("url").asText(), annotation.get("title").asText());
            }
        }
        assertThat(citations).hasSize(8);
        ObjectNode chunk = Json.object();
        ObjectNode candidate = chunk.putArray("candidates").addObject();
        candidate.putObject("content").put("role", "model").putArray("parts").addObject().put("text", "AI news.");
        candidate.put("finishReason", "STOP");
        ArrayNode grounding = candidate.putObject("groundingMetadata").putArray("groundingChunks");
        for (String line : FixtureFiles.read("gemini-interactions-google-search.chunks.jsonl").lines().toList()) {
            for (JsonNode annotation : Json.parse(line).path("delta").path("annotations")) {
                grounding.addObject().putObject("web").put("uri", annotation.get("url").asText()).put("title", annotation.get("title").asText());
            }
        }
        assertThat(grounding).hasSize(14);

        Parsed parsed = parseSse("data: " + Json.write(chunk) + "\r\n\r\n");

        List<String> expected = new ArrayList<>();
        citations.forEach((url, title) -> expected.add(url + " " + title));
        assertThat(parsed.listener().sources).containsExactlyElementsOf(expected);
        assertThat(parsed.listener().sources.getFirst()).startsWith("https://vertexaisearch.cloud.google.com/grounding-api-redirect/")
                .endsWith(" coaio.com");
    }

    // ================================================================ helpers

    record Parsed(RecordingListener listener, Usage usage, ProviderReplay replay, String finishReason, int events) {
    }

    /** Reads {@code sse} as the provider reads a body: every event, then the end of the body. */
    static Parsed parseSse(String sse) {
        RecordingListener listener = new RecordingListener();
        GeminiStreamParser parser = new GeminiStreamParser(listener);
        int events = 0;
        try {
            for (String data : FixtureFiles.sseData(sse)) {
                events++;
                parser.accept(data);
            }
            parser.finish();
        } catch (ProviderException e) {
            throw new AssertionError("stream failed: " + e.code() + " " + e.getMessage(), e);
        }
        return new Parsed(listener, parser.usage(), parser.replay(), parser.finishReason(), events);
    }

    /** A {@code .chunks.jsonl} recording: one payload a line. */
    static Parsed parseChunks(String chunks) {
        RecordingListener listener = new RecordingListener();
        GeminiStreamParser parser = new GeminiStreamParser(listener);
        int events = 0;
        try {
            for (String line : chunks.lines().filter(l -> !l.isBlank()).toList()) {
                events++;
                parser.accept(line);
            }
            parser.finish();
        } catch (ProviderException e) {
            throw new AssertionError("stream failed: " + e.code() + " " + e.getMessage(), e);
        }
        return new Parsed(listener, parser.usage(), parser.replay(), parser.finishReason(), events);
    }

    /** Every part of every event of a recorded stream, in order, as recorded. */
    static List<JsonNode> recordedParts(String sse) throws IOException {
        List<JsonNode> parts = new ArrayList<>();
        for (String line : sse.split("\r?\n")) {
            if (line.startsWith("data: ")) {
                Json.parse(line.substring(6)).at("/candidates/0/content/parts").forEach(part -> {
                    if (!(part.size() == 1 && part.path("text").asText("x").isEmpty())) {
                        parts.add(part);
                    }
                });
            }
        }
        return parts;
    }

    /** The model that answered (its modelVersion): a trace's {@code gen_ai.response.model}. */
    @Test
    void theAnsweringModelIsRead() throws Exception {
        GeminiStreamParser parser = new GeminiStreamParser(new RecordingListener());
        for (String data : FixtureFiles.sseData(FixtureFiles.read("gemini-2.5-flash-implicit-cache-streaming.turn1.sse"))) {
            parser.accept(data);
        }
        assertThat(parser.model()).isEqualTo("gemini-2.5-flash");
    }
}
