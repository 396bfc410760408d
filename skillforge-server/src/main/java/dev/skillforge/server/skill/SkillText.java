package dev.skillforge.server.skill;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** Which files of a skill are text: valid UTF-8 without a NUL byte. Others (images, archives) are shown as their size. */
public final class SkillText {

    private SkillText() {
    }

    /** The text of {@code bytes} when they are strict UTF-8, else empty. */
    public static Optional<String> utf8(byte[] bytes) {
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    /** The text of a file that is text (UTF-8, no NUL), else empty. */
    public static Optional<String> decode(byte[] bytes) {
        for (byte b : bytes) {
            if (b == 0) {
                return Optional.empty();
            }
        }
        return utf8(bytes);
    }
}
