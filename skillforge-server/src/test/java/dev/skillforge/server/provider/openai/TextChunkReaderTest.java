package dev.skillforge.server.provider.openai;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The tree-free read of the common chunk, and every chunk it leaves to the tree parser. */
class TextChunkReaderTest {

    @Test
    void theCommonChunksAreReadWithoutATree() {
        assertThat(TextChunkReader.read("{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"system_fingerprint\":null,"
                + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"h\\u00e9 \\\"x\\\"\\n\"},\"logprobs\":null,\"finish_reason\":null}]}"))
                .isEqualTo(new TextChunkReader.TextChunk("hé \"x\"\n", null));
        assertThat(TextChunkReader.read("{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}"))
                .isEqualTo(new TextChunkReader.TextChunk(null, "stop"));
        assertThat(TextChunkReader.read("{\"choices\":[{\"delta\":{\"content\":null,\"tool_calls\":[{\"x\":[1,{}]}]}}],\"extra\":{\"a\":[1]}}"))
                .isEqualTo(new TextChunkReader.TextChunk(null, null));
    }

    @Test
    void everythingElseIsLeftToTheTreeParser() {
        String[] others = {
                "{\"choices\":[],\"usage\":{\"prompt_tokens\":3}}",
                "{\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"usage\":null}",
                "{\"choices\":[{\"delta\":{\"content\":\"a\"},\"usage\":{\"cached_tokens\":1}}]}",
                "{\"error\":{\"message\":\"overloaded\"}}",
                "{\"error\":null,\"choices\":[{\"delta\":{\"content\":\"a\"}}]}",
                "{\"choices\":[{\"delta\":{\"reasoning_content\":\"r\"}}]}",
                "{\"choices\":[{\"delta\":{\"reasoning\":\"r\",\"content\":\"a\"}}]}",
                "{\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"timings\":{\"cache_n\":1}}",
                "{\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"web_search\":[]}",
                "{\"choices\":[{\"delta\":{\"content\":\"a\"}},{\"delta\":{\"content\":\"b\"}}]}",
                "{\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"choices\":[{\"delta\":{\"content\":\"b\"}}]}",
                "{\"choices\":[{\"delta\":{\"content\":\"a\",\"content\":\"b\"}}]}",
                "{\"choices\":[{\"delta\":{\"content\":\"a\"},\"delta\":{\"content\":\"b\"}}]}",
                "{\"choices\":[{\"finish_reason\":\"stop\",\"finish_reason\":null}]}",
                "{\"choices\":[{\"delta\":{\"content\":5}}]}",
                "{\"choices\":[{\"delta\":\"a\"}]}",
                "{\"choices\":[{\"finish_reason\":1}]}",
                "{\"choices\":{\"delta\":{\"content\":\"a\"}}}",
                "{\"choices\":[\"a\"]}",
                "{\"id\":\"no choices\"}",
                "{\"choices\":[{\"delta\":{\"content\":\"a\"}}]} trailing",
                "{\"choices\":[{\"delta\":{\"content\":\"a\"}}]",
                "[1]",
                "not json",
        };
        for (String data : others) {
            assertThat(TextChunkReader.read(data)).as(data).isNull();
        }
    }
}
