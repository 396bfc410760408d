package dev.skillforge.server.people;

import java.util.Objects;
import java.util.Optional;

/**
 * What a person chose for themselves (the page's settings; the one person's on a server without people).
 *
 * @param defaultProvider the configured provider their new conversations start on, or empty for the server's default
 * @param theme           the page's colour scheme
 * @param instructions    added to the system prompt of each conversation they start from now on; empty for none
 */
public record Preferences(Optional<String> defaultProvider, Theme theme, String instructions) {

    /** The longest instructions, in characters: a paragraph or two of how the person wants answers, not a document. */
    public static final int MAX_INSTRUCTIONS = 4000;

    /** A person who chose nothing. */
    public static final Preferences NONE = new Preferences(Optional.empty(), Theme.AUTO, "");

    /** The page's colour scheme: the system's, or one chosen. */
    public enum Theme {
        AUTO, LIGHT, DARK;

        /** As the API and the store name it: {@code auto}, {@code light}, {@code dark}. */
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** @throws IllegalArgumentException naming the themes there are */
        public static Theme fromWire(String name) {
            for (Theme theme : values()) {
                if (theme.wireName().equals(name)) {
                    return theme;
                }
            }
            throw new IllegalArgumentException("'theme' must be auto, light or dark, not '" + name + "'");
        }
    }

    /** @throws IllegalArgumentException saying what is wrong: instructions too long or holding control characters */
    public Preferences {
        Objects.requireNonNull(defaultProvider, "defaultProvider");
        Objects.requireNonNull(theme, "theme");
        Objects.requireNonNull(instructions, "instructions");
        if (instructions.length() > MAX_INSTRUCTIONS) {
            throw new IllegalArgumentException("'instructions' are " + instructions.length() + " characters; the limit is "
                    + MAX_INSTRUCTIONS);
        }
        for (int i = 0; i < instructions.length(); i++) {
            char c = instructions.charAt(i);
            if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') {
                throw new IllegalArgumentException("'instructions' hold a control character (U+%04X) at %d: only text, tabs and line breaks"
                        .formatted((int) c, i));
            }
        }
    }
}
