package dev.skillforge.server.skill;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 in lowercase hex: the address a skill's file is stored under. */
public final class Sha256 {

    private Sha256() {
    }

    public static String hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Whether {@code text} is a SHA-256 as {@link #hex} writes it: 64 lowercase hex digits. */
    public static boolean isHex(String text) {
        return text != null && text.matches("[0-9a-f]{64}");
    }
}
