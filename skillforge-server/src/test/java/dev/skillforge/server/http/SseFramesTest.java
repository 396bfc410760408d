package dev.skillforge.server.http;

import dev.skillforge.core.agent.AgentEvent;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The bytes a follower sends for its frames, as a client reads them off the stream. */
class SseFramesTest {

    private final SseFrames frames = new SseFrames();
    private final ByteArrayOutputStream sent = new ByteArrayOutputStream();

    @Test
    void framesReadyTogetherGoOutAsOneWriteInUtf8WithEmojiAsTheirOwnFourBytes() throws Exception {
        frames.add(7, new AgentEvent.Text(0, "h\u00e9llo \uD83D\uDE00"));
        frames.add(8, new AgentEvent.IterationEnd(0, false));
        frames.sendTo(sent);

        assertThat(sent.toString(StandardCharsets.UTF_8)).isEqualTo(
                "id: 7\ndata: {\"type\":\"text\",\"iteration\":0,\"content\":\"h\u00e9llo \uD83D\uDE00\"}\n\n"
                        + "id: 8\ndata: {\"type\":\"iteration-end\",\"iteration\":0,\"hasMoreCommands\":false}\n\n");
        assertThat(sent.toByteArray()).containsSubsequence(new byte[]{(byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80});
    }

    @Test
    void aFrameOfJsonAnotherInstanceWroteIsFramedTheSameWay() throws Exception {
        frames.add(3, "{\"type\":\"text\",\"iteration\":0,\"content\":\"\u00e9\"}");
        frames.add(4, new AgentEvent.Text(0, "\u00e9"));
        frames.sendTo(sent);

        String[] sentFrames = sent.toString(StandardCharsets.UTF_8).split("\n\n");
        assertThat(sentFrames).hasSize(2);
        assertThat(sentFrames[0].replace("id: 3", "id: 4")).isEqualTo(sentFrames[1]);
    }

    @Test
    void frameIdsAreWrittenInDecimalWhateverTheirLength() throws Exception {
        for (long id : new long[]{0, 9, 10, 1234567890123L, Long.MAX_VALUE}) {
            frames.add(id, new AgentEvent.IterationEnd(0, true));
        }
        frames.sendTo(sent);

        assertThat(sent.toString(StandardCharsets.UTF_8).lines().filter(line -> line.startsWith("id: ")))
                .containsExactly("id: 0", "id: 9", "id: 10", "id: 1234567890123", "id: " + Long.MAX_VALUE);
    }

    @Test
    void aLoneSurrogateFromTheModelBecomesAQuestionMarkAsInAnyJavaString() throws Exception {
        AgentEvent broken = new AgentEvent.Text(1, "cut \uD83D here");
        frames.add(1, broken);
        frames.sendTo(sent);

        assertThat(sent.toByteArray()).isEqualTo(("id: 1\ndata: " + EventJson.write(broken) + "\n\n").getBytes(StandardCharsets.UTF_8));
        assertThat(sent.toString(StandardCharsets.UTF_8)).contains("cut ? here");
    }

    @Test
    void aLargeEventGrowsTheBuffersAndTheNextSendStartsOverWithNothingLeftFromTheLast() throws Exception {
        String large = "\u00e9\u4e2d".repeat(100_000); // 2- and 3-byte characters, far past the first buffers
        frames.add(1, new AgentEvent.ToolOutput(0, large));
        frames.sendTo(sent);
        assertThat(sent.toString(StandardCharsets.UTF_8))
                .isEqualTo("id: 1\ndata: {\"type\":\"tool-output\",\"iteration\":0,\"toolOutput\":\"" + large + "\"}\n\n");

        sent.reset();
        frames.add(2, new AgentEvent.Text(0, "next"));
        frames.sendTo(sent);
        assertThat(sent.toString(StandardCharsets.UTF_8)).isEqualTo("id: 2\ndata: {\"type\":\"text\",\"iteration\":0,\"content\":\"next\"}\n\n");
    }
}
