package dev.skillforge.core.transcript;

import java.util.List;
import java.util.Objects;

/**
 * One entry of a conversation transcript. Entries are immutable and, once appended, never change:
 * the provider prompt caches depend on the transcript only ever growing (docs/design.md, rule 1).
 */
public sealed interface Entry {

    /**
     * The entry's text as written: for a user entry, the message without its attachments; else exactly
     * what is sent (for tool entries: without any provider prefix).
     */
    String content();

    /** What the model reads of this entry (before any provider prefix): {@link #content()} unless a subtype says otherwise. */
    default String modelText() {
        return content();
    }

    /** A message the person wrote, with the documents and images attached to it (in the order given). */
    record User(String content, List<Attachment> attachments) implements Entry {
        public User {
            Objects.requireNonNull(content, "content");
            attachments = List.copyOf(attachments);
        }

        public User(String content) {
            this(content, List.of());
        }

        /** The attached images, in order: each provider sends them before the text. */
        public List<Attachment> images() {
            return attachments.stream().filter(Attachment::isImage).toList();
        }

        /** Each document's wrapped text, in order, then the message: the same bytes on every request (an image adds none). */
        @Override
        public String modelText() {
            if (attachments.isEmpty()) {
                return content;
            }
            StringBuilder text = new StringBuilder();
            attachments.forEach(attachment -> text.append(attachment.promptText()));
            return text.append(content).toString();
        }
    }

    /**
     * The model's output for one iteration, verbatim ({@code <shell>} tags included), plus what the
     * provider needs replayed beside it (docs/design.md, rule 6), or {@code null} when there is nothing to replay.
     */
    record Assistant(String content, ProviderReplay replay) implements Entry {
        public Assistant {
            Objects.requireNonNull(content, "content");
        }

        public Assistant(String content) {
            this(content, null);
        }
    }

    /** The formatted results of the commands of the assistant entry just before it. */
    record Tool(String content) implements Entry {
        public Tool {
            Objects.requireNonNull(content, "content");
        }
    }

    /**
     * A context cut: the conversation outgrew the model's context window, so from here on the model
     * sees this note (as a user message) followed by the entries from index {@code keepFrom} on. The
     * entries before {@code keepFrom} stay in the transcript (the person still sees them); only the
     * model's view of the conversation loses them, in one step, so that its prompt then grows
     * unchanged again for many calls ({@link dev.skillforge.core.context.ContextWindow}).
     *
     * @param content  the note the model reads in place of what was left out
     * @param keepFrom the index in the transcript of the first entry the model still sees
     */
    record ContextCut(String content, int keepFrom) implements Entry {
        public ContextCut {
            Objects.requireNonNull(content, "content");
            if (keepFrom < 0) {
                throw new IllegalArgumentException("keepFrom must not be negative, was " + keepFrom);
            }
        }
    }
}
