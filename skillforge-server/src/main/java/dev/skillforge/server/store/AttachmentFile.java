package dev.skillforge.server.store;

import java.util.Objects;

/** An attached file's bytes, stored once per conversation under their SHA-256 (lowercase hex). */
public record AttachmentFile(String sha256, byte[] data) {
    public AttachmentFile {
        Objects.requireNonNull(sha256, "sha256");
        Objects.requireNonNull(data, "data");
    }
}
