package dev.skillforge.server.conversation;

import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.people.Caller;

/** The files attached in a person's conversations: as uploaded, and the text the model reads of them. */
public final class Attachments {

    private final ConversationHost host;

    public Attachments(ConversationHost host) {
        this.host = host;
    }

    /**
     * A file attached in a conversation, by its SHA-256, with the name and type it was first attached under.
     *
     * @throws ConversationException NOT_FOUND when the conversation does not reference such a file
     */
    public AttachmentDownload attachment(Caller caller, String id, String sha256) {
        Attachment attachment = referenced(caller, id, sha256);
        return new AttachmentDownload(attachment.name(), attachment.mediaType(), host.storedFile(id, sha256));
    }

    /** What the model reads of an attached file: its extracted text in its fixed wrapping, as stored. */
    public String attachmentText(Caller caller, String id, String sha256) {
        return referenced(caller, id, sha256).promptText();
    }

    private Attachment referenced(Caller caller, String id, String sha256) {
        return host.snapshot(caller, id).entries().stream().flatMap(entry -> entry.attachments().stream())
                .filter(a -> a.sha256().equals(sha256)).findFirst()
                .orElseThrow(() -> new ConversationException(ConversationException.Kind.NOT_FOUND,
                        "Conversation " + id + " has no attachment " + StorableText.abbreviate(sha256, 64)));
    }

    /** An attached file to send back. */
    public record AttachmentDownload(String name, String mediaType, byte[] data) {
    }
}
