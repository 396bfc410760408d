package dev.skillforge.server.provider.sim;

import dev.skillforge.server.document.DocumentException;
import dev.skillforge.server.document.ImageFormat;
import dev.skillforge.server.document.ImageHeader;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;

/**
 * An image a simulated provider was sent, read as the real APIs read one: the base64 must decode, the bytes must be the
 * declared type (Anthropic refuses "Image does not match the provided media type"), and the size comes from the header.
 * For the prompt cache and the token count it stands as a short marker that names its bytes, so two requests with
 * different images never share that part of their prefix.
 *
 * @param mediaType the declared (and checked) type
 * @param digest    the first 16 hex digits of the bytes' SHA-256
 */
public record SimImage(String mediaType, int width, int height, String digest) {

    /** @throws IllegalArgumentException with the message a provider's 400 would carry */
    static SimImage read(String declaredType, String base64, String where) {
        if (declaredType == null || base64 == null) {
            throw new IllegalArgumentException(where + ": an image needs its media type and its base64 data");
        }
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": the image data is not valid base64");
        }
        ImageFormat declared = ImageFormat.ofMediaType(declaredType)
                .orElseThrow(() -> new IllegalArgumentException(where + ": image media type " + declaredType + " is not supported"));
        ImageFormat actual = ImageFormat.sniff(bytes)
                .orElseThrow(() -> new IllegalArgumentException(where + ": could not process image: its bytes are not an image"));
        if (actual != declared) {
            throw new IllegalArgumentException(where + ": Image does not match the provided media type " + declaredType);
        }
        try {
            ImageHeader header = ImageHeader.read(actual, bytes, "the image");
            return new SimImage(declaredType, header.width(), header.height(), digest(bytes));
        } catch (DocumentException e) {
            throw new IllegalArgumentException(where + ": could not process image: " + e.getMessage());
        }
    }

    /** What the simulation tokenises in its place. */
    String marker() {
        return "<|image " + digest + " " + width + "x" + height + "|>";
    }

    private static String digest(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
