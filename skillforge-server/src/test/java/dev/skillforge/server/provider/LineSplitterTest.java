package dev.skillforge.server.provider;

import dev.skillforge.core.agent.ProviderException;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LineSplitterTest {

    @Test
    void lfCrAndCrlfEndLinesAndTheLastLineNeedsNoEnding() throws Exception {
        assertThat(lines(100, "a\nb\r\nc\rd\n\ne")).containsExactly("a", "b", "c", "d", "", "e");
    }

    @Test
    void aCrlfSplitBetweenTwoBuffersIsOneLineEnding() throws Exception {
        assertThat(lines(100, "one\r", "\ntwo\r", "", "\n", "\nthree")).containsExactly("one", "two", "", "three");
    }

    @Test
    void aCharacterSplitBetweenTwoBuffersIsDecodedWhole() throws Exception {
        byte[] text = "café 😀\n".getBytes(StandardCharsets.UTF_8);
        List<ByteBuffer> buffers = new ArrayList<>();
        for (byte b : text) {
            buffers.add(ByteBuffer.wrap(new byte[]{b}));
        }

        assertThat(lines(new LineSplitter(100), buffers)).containsExactly("café 😀");
    }

    @Test
    void aLineOfExactlyTheCapIsReadAndOneByteMoreIsRefused() throws Exception {
        assertThat(lines(8, "12345678\n")).containsExactly("12345678");
        assertThatThrownBy(() -> lines(8, "1234", "56789\n"))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.code()).isEqualTo("provider_line_too_long"))
                .hasMessage("The provider sent a line longer than 8 bytes, the most this server reads as one line of a stream:"
                        + " the stream was closed");
    }

    private static List<String> lines(int maxLineBytes, String... pieces) throws ProviderException {
        List<ByteBuffer> buffers = new ArrayList<>();
        for (String piece : pieces) {
            buffers.add(ByteBuffer.wrap(piece.getBytes(StandardCharsets.UTF_8)));
        }
        return lines(new LineSplitter(maxLineBytes), buffers);
    }

    private static List<String> lines(LineSplitter splitter, List<ByteBuffer> buffers) throws ProviderException {
        List<String> lines = new ArrayList<>();
        for (ByteBuffer buffer : buffers) {
            String line;
            while ((line = splitter.take(buffer)) != null) {
                lines.add(line);
            }
        }
        String rest = splitter.rest();
        if (rest != null) {
            lines.add(rest);
        }
        return lines;
    }
}
