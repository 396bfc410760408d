package dev.skillforge.server.document;

import java.util.Objects;

/** A file as a client sent it: its name, its declared media type (may be empty) and its bytes. */
public record Upload(String name, String mediaType, byte[] data) {
    public Upload {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(data, "data");
        mediaType = mediaType == null ? "" : mediaType;
    }
}
