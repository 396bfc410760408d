package dev.skillforge.server.document;

import java.util.Locale;
import java.util.Optional;

/**
 * The image formats SkillForge accepts, each known by its magic number: the bytes decide what a file is, never the
 * type or name a client gave it. SVG is not among them: it is a program as much as a picture.
 */
public enum ImageFormat {
    PNG("image/png", "PNG"),
    JPEG("image/jpeg", "JPEG"),
    WEBP("image/webp", "WebP"),
    GIF("image/gif", "GIF");

    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

    private final String mediaType;
    private final String label;

    ImageFormat(String mediaType, String label) {
        this.mediaType = mediaType;
        this.label = label;
    }

    public String mediaType() {
        return mediaType;
    }

    /** How people name it: PNG, JPEG, WebP, GIF. */
    public String label() {
        return label;
    }

    /** The format whose magic number {@code data} starts with, if any. */
    public static Optional<ImageFormat> sniff(byte[] data) {
        if (startsWith(data, 0, PNG_SIGNATURE)) {
            return Optional.of(PNG);
        }
        if (data.length >= 3 && (data[0] & 0xFF) == 0xFF && (data[1] & 0xFF) == 0xD8 && (data[2] & 0xFF) == 0xFF) {
            return Optional.of(JPEG);
        }
        if (startsWith(data, 0, ascii("GIF87a")) || startsWith(data, 0, ascii("GIF89a"))) {
            return Optional.of(GIF);
        }
        if (startsWith(data, 0, ascii("RIFF")) && startsWith(data, 8, ascii("WEBP"))) {
            return Optional.of(WEBP);
        }
        return Optional.empty();
    }

    /** The format of a media type ({@code image/jpg} and {@code image/pjpeg} as JPEG), if it is one of these. */
    public static Optional<ImageFormat> ofMediaType(String baseType) {
        String type = baseType.toLowerCase(Locale.ROOT);
        if (type.equals("image/jpg") || type.equals("image/pjpeg")) {
            return Optional.of(JPEG);
        }
        for (ImageFormat format : values()) {
            if (format.mediaType.equals(type)) {
                return Optional.of(format);
            }
        }
        return Optional.empty();
    }

    /** The format a file extension names, if it is one of these. */
    public static Optional<ImageFormat> ofExtension(String extension) {
        return Optional.ofNullable(switch (extension) {
            case "png" -> PNG;
            case "jpg", "jpeg", "jpe", "jfif" -> JPEG;
            case "webp" -> WEBP;
            case "gif" -> GIF;
            default -> null;
        });
    }

    private static byte[] ascii(String text) {
        return text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static boolean startsWith(byte[] data, int at, byte[] prefix) {
        if (data.length < at + prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (data[at + i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }
}
