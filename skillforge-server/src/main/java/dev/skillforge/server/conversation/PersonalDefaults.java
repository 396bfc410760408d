package dev.skillforge.server.conversation;

import java.util.Objects;
import java.util.Optional;

/**
 * What a person chose for the conversations they start: the provider a conversation that names none starts on, and
 * instructions added to its system prompt. Read once, when a conversation starts: a started conversation keeps its
 * provider and system prompt for good (its provider's prompt cache depends on both).
 */
public interface PersonalDefaults {

    /** Nobody chose anything: the server's default provider and system prompt. */
    PersonalDefaults NONE = personId -> Start.NONE;

    /** What {@code personId}'s next conversation starts with; never fails (nothing chosen, or unreadable, is {@link Start#NONE}). */
    Start start(String personId);

    /**
     * @param provider     the configured provider to start on when the request names none; empty for the server's default
     * @param instructions the person's instructions for the model, or empty for none
     */
    record Start(Optional<String> provider, String instructions) {

        public static final Start NONE = new Start(Optional.empty(), "");

        public Start {
            Objects.requireNonNull(provider, "provider");
            Objects.requireNonNull(instructions, "instructions");
        }

        /**
         * {@code systemPrompt} with the instructions after it, under a heading that says whose they are: the server's
         * prompt first and unchanged, so conversations of every person share its cached prefix.
         */
        public String systemPrompt(String systemPrompt) {
            if (instructions.isBlank()) {
                return systemPrompt;
            }
            return systemPrompt + "\n\n# The person's own instructions\n\nThe person you work for asked for this in all their"
                    + " conversations; follow it where it does not conflict with the rules above:\n\n" + instructions.strip() + "\n";
        }
    }
}
