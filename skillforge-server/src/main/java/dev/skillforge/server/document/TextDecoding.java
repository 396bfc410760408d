package dev.skillforge.server.document;

import org.mozilla.universalchardet.UniversalDetector;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;

/**
 * Bytes of a text file to text: a byte-order mark decides; else UTF-8 if the bytes are valid UTF-8 (most
 * files are); else the encoding juniversalchardet detects; else windows-1252, which decodes anything.
 */
final class TextDecoding {

    private TextDecoding() {
    }

    static String decode(String name, byte[] data) {
        String text = decodeWithoutChecks(data);
        if (text.indexOf('\0') >= 0) {
            throw DocumentException.unsupported("'" + name + "' holds NUL bytes: it looks like a binary file, not text");
        }
        return text.startsWith("\uFEFF") ? text.substring(1) : text;
    }

    private static String decodeWithoutChecks(byte[] data) {
        Charset bom = byteOrderMark(data);
        if (bom != null) {
            return new String(data, bom);
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(data)).toString();
        } catch (CharacterCodingException notUtf8) {
            return new String(data, detected(data));
        }
    }

    private static Charset byteOrderMark(byte[] d) {
        if (d.length >= 3 && (d[0] & 0xFF) == 0xEF && (d[1] & 0xFF) == 0xBB && (d[2] & 0xFF) == 0xBF) {
            return StandardCharsets.UTF_8;
        }
        if (d.length >= 2 && (d[0] & 0xFF) == 0xFE && (d[1] & 0xFF) == 0xFF) {
            return StandardCharsets.UTF_16; // reads and drops the mark
        }
        if (d.length >= 2 && (d[0] & 0xFF) == 0xFF && (d[1] & 0xFF) == 0xFE) {
            return StandardCharsets.UTF_16; // little-endian mark: UTF_16 follows it
        }
        return null;
    }

    private static Charset detected(byte[] data) {
        UniversalDetector detector = new UniversalDetector();
        detector.handleData(data, 0, data.length);
        detector.dataEnd();
        String name = detector.getDetectedCharset();
        if (name != null) {
            try {
                return Charset.forName(name);
            } catch (IllegalCharsetNameException | UnsupportedCharsetException ignored) {
                // fall through to the one that decodes anything
            }
        }
        return Charset.forName("windows-1252");
    }
}
