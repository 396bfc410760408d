package dev.skillforge.server.document;

import java.util.Objects;

/** A web page read for the model: its title (may be empty) and its readable text as Markdown. */
public record HtmlPage(String title, String markdown) {
    public HtmlPage {
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(markdown, "markdown");
    }
}
