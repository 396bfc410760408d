package dev.skillforge.server.document;

import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;

import java.util.Set;

/**
 * The readable text of an HTML page as Markdown: headings, paragraphs, lists, links, quotes and code
 * blocks; scripts, styles, navigation, forms and other chrome left out. Deterministic: the same page
 * gives the same text (it enters the transcript once and is replayed as it is).
 */
public final class HtmlMarkdown {

    private static final Set<String> SKIPPED = Set.of("script", "style", "noscript", "template", "nav", "footer", "header",
            "aside", "form", "button", "select", "svg", "canvas", "iframe", "object", "embed", "head", "input", "textarea", "dialog");
    private static final Set<String> BLOCKS = Set.of("p", "div", "section", "article", "main", "table", "tr", "figure", "figcaption",
            "dl", "dt", "dd", "address", "details", "summary", "hr", "body", "html");

    private final StringBuilder out = new StringBuilder();
    private final int maxChars;

    private HtmlMarkdown(int maxChars) {
        this.maxChars = maxChars;
    }

    /**
     * The page's main text ({@code <main>} or {@code <article>} when there is one, else the body).
     *
     * @throws DocumentException TOO_LARGE when the text would be longer than {@code maxChars}
     */
    public static String of(Document page, String what, int maxChars) {
        Element root = page.selectFirst("main");
        if (root == null) {
            root = page.selectFirst("article");
        }
        if (root == null) {
            root = page.body();
        }
        HtmlMarkdown markdown = new HtmlMarkdown(maxChars);
        if (root != null) {
            markdown.children(root, what);
        }
        return markdown.out.toString().replaceAll("[ \\t]+\\n", "\n").replaceAll("\\n{3,}", "\n\n").strip();
    }

    private void children(Element element, String what) {
        for (Node child : element.childNodes()) {
            if (out.length() > maxChars) {
                throw DocumentException.tooLarge(what + ": its text is longer than " + maxChars + " characters");
            }
            if (child instanceof TextNode text) {
                inline(text.text().replaceAll("\\s+", " "));
            } else if (child instanceof Element e) {
                element(e, what);
            }
        }
    }

    private void element(Element e, String what) {
        String tag = e.normalName();
        if (SKIPPED.contains(tag) || e.hasAttr("hidden") || "true".equals(e.attr("aria-hidden"))) {
            return;
        }
        switch (tag) {
            case "h1", "h2", "h3", "h4", "h5", "h6" -> {
                block();
                out.append("#".repeat(tag.charAt(1) - '0')).append(' ').append(e.text().strip());
                block();
            }
            case "br" -> out.append('\n');
            case "pre" -> {
                block();
                String code = e.wholeText();
                String fence = code.contains("```") ? "~~~~" : "```";
                out.append(fence).append('\n').append(code.endsWith("\n") ? code : code + "\n").append(fence);
                block();
            }
            case "code" -> out.append('`').append(e.text()).append('`');
            case "a" -> {
                String href = e.absUrl("href");
                String text = e.text().strip();
                if (href.isEmpty() || text.isEmpty() || !(href.startsWith("http://") || href.startsWith("https://"))) {
                    children(e, what);
                } else {
                    out.append('[').append(text.replace("]", "\\]")).append("](").append(href.replace(")", "%29")).append(')');
                }
            }
            case "strong", "b" -> wrapped(e, "**", what);
            case "em", "i" -> wrapped(e, "*", what);
            case "li" -> {
                newLine();
                out.append(e.parent() != null && e.parent().normalName().equals("ol") ? (e.elementSiblingIndex() + 1) + ". " : "- ");
                children(e, what);
            }
            case "ul", "ol" -> {
                block();
                children(e, what);
                block();
            }
            case "blockquote" -> {
                block();
                int start = out.length();
                children(e, what);
                String quoted = out.substring(start).strip().replace("\n", "\n> ");
                out.setLength(start);
                out.append("> ").append(quoted);
                block();
            }
            case "td", "th" -> {
                children(e, what);
                out.append(" | ");
            }
            case "img" -> {
                String alt = e.attr("alt").strip();
                if (!alt.isEmpty()) {
                    out.append("[image: ").append(alt).append(']');
                }
            }
            default -> {
                boolean block = BLOCKS.contains(tag);
                if (block) {
                    block();
                }
                children(e, what);
                if (block) {
                    block();
                }
            }
        }
    }

    private void wrapped(Element e, String mark, String what) {
        String text = e.text().strip();
        if (text.isEmpty()) {
            return;
        }
        out.append(mark);
        children(e, what);
        out.append(mark);
    }

    private void inline(String text) {
        if (text.isBlank()) {
            if (!out.isEmpty() && out.charAt(out.length() - 1) != ' ' && out.charAt(out.length() - 1) != '\n') {
                out.append(' ');
            }
            return;
        }
        if (!out.isEmpty() && out.charAt(out.length() - 1) == '\n') {
            text = text.stripLeading();
        }
        out.append(text);
    }

    private void newLine() {
        if (!out.isEmpty() && out.charAt(out.length() - 1) != '\n') {
            out.append('\n');
        }
    }

    private void block() {
        newLine();
        int length = out.length();
        if (length > 0 && !(length >= 2 && out.charAt(length - 2) == '\n')) {
            out.append('\n');
        }
    }
}
