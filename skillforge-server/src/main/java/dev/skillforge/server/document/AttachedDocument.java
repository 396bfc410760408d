package dev.skillforge.server.document;

import dev.skillforge.core.transcript.Attachment;

import java.util.Objects;

/** An accepted upload: its transcript reference (text extracted and wrapped) and its bytes, to be stored. */
public record AttachedDocument(Attachment attachment, byte[] data) {
    public AttachedDocument {
        Objects.requireNonNull(attachment, "attachment");
        Objects.requireNonNull(data, "data");
    }
}
