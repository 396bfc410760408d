package dev.skillforge.server.document;

import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;
import org.jsoup.select.NodeFilter;
import org.jsoup.select.NodeTraversor;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Set;

/**
 * The readable text of an HTML page as Markdown: headings, paragraphs, lists, links, quotes and code
 * blocks; scripts, styles, navigation, forms and other chrome left out. Deterministic: the same page
 * gives the same text (it enters the transcript once and is replayed as it is). One walk over the page, without
 * recursion, each node visited once: the time is linear in the page whatever its nesting, the text is bounded as
 * it is written ({@link MarkdownOut}), and the deadline is looked at as it goes.
 */
final class HtmlMarkdown implements NodeFilter {

    private static final Set<String> SKIPPED = Set.of("script", "style", "noscript", "template", "nav", "footer", "header",
            "aside", "form", "button", "select", "svg", "canvas", "iframe", "object", "embed", "head", "input", "textarea", "dialog");
    private static final Set<String> BLOCKS = Set.of("p", "div", "section", "article", "main", "table", "tr", "figure", "figcaption",
            "dl", "dt", "dd", "address", "details", "summary", "hr", "body", "html");
    /** How often (in nodes) the deadline is looked at. */
    private static final int CHECK_EVERY_NODES = 256;

    private final MarkdownOut out;
    private final String what;
    private final Deadline deadline;
    private final Node root;
    /** Each open bold or italic element: where it started, to be undone if no text came after its opening mark. */
    private final Deque<Emphasis> emphasis = new ArrayDeque<>();
    /** The element index of the next child, per depth (as {@link Element#elementSiblingIndex}, without its search). */
    private int[] nextChild = new int[64];
    private long nodes;

    private HtmlMarkdown(Node root, String what, int maxChars, Deadline deadline) {
        this.root = root;
        this.what = what;
        this.deadline = deadline;
        this.out = new MarkdownOut(maxChars, what);
    }

    /**
     * The page's main text ({@code <main>} or {@code <article>} when there is one, else the body).
     *
     * @param what the page, as messages name it
     * @throws DocumentException TOO_LARGE when the text would be longer than {@code maxChars}; the deadline's
     */
    static String of(Document page, String what, int maxChars, Deadline deadline) {
        Element root = page.selectFirst("main");
        if (root == null) {
            root = page.selectFirst("article");
        }
        if (root == null) {
            root = page.body();
        }
        if (root == null) {
            return "";
        }
        HtmlMarkdown markdown = new HtmlMarkdown(root, what, maxChars, deadline);
        NodeTraversor.filter(markdown, root);
        return markdown.out.text();
    }

    @Override
    public FilterResult head(Node node, int depth) {
        if (++nodes % CHECK_EVERY_NODES == 0) {
            deadline.check(what);
        }
        if (node == root) {
            nextChild[1] = 0;
            return FilterResult.CONTINUE;
        }
        if (node instanceof TextNode text) {
            out.inline(text.text().replaceAll("\\s+", " "));
            return FilterResult.CONTINUE;
        }
        if (!(node instanceof Element e)) {
            return FilterResult.SKIP_ENTIRELY;
        }
        if (depth + 1 >= nextChild.length) {
            nextChild = Arrays.copyOf(nextChild, nextChild.length * 2);
        }
        int index = nextChild[depth]++;
        nextChild[depth + 1] = 0;
        String tag = e.normalName();
        if (SKIPPED.contains(tag) || e.hasAttr("hidden") || "true".equals(e.attr("aria-hidden"))) {
            return FilterResult.SKIP_ENTIRELY;
        }
        switch (tag) {
            case "h1", "h2", "h3", "h4", "h5", "h6" -> {
                out.blankLine();
                out.write("#".repeat(tag.charAt(1) - '0') + " " + e.text().strip());
                out.blankLine();
                return FilterResult.SKIP_ENTIRELY;
            }
            case "br" -> out.lineBreak();
            case "pre" -> {
                out.blankLine();
                String code = e.wholeText();
                String fence = code.contains("```") ? "~~~~" : "```";
                out.write(fence + "\n" + (code.endsWith("\n") ? code : code + "\n") + fence);
                out.blankLine();
                return FilterResult.SKIP_ENTIRELY;
            }
            case "code" -> {
                out.write("`" + e.text() + "`");
                return FilterResult.SKIP_ENTIRELY;
            }
            case "a" -> {
                String href = e.absUrl("href");
                String text = e.text().strip();
                if (!href.isEmpty() && !text.isEmpty() && (href.startsWith("http://") || href.startsWith("https://"))) {
                    out.write("[" + text.replace("]", "\\]") + "](" + href.replace(")", "%29") + ")");
                    return FilterResult.SKIP_ENTIRELY;
                }
            }
            case "strong", "b", "em", "i" -> {
                MarkdownOut.Mark before = out.mark();
                out.write(emphasisMark(tag));
                emphasis.push(new Emphasis(before, out.mark()));
            }
            case "li" -> {
                out.newLine();
                Element parent = e.parent();
                out.write(parent != null && parent.normalName().equals("ol") ? (index + 1) + ". " : "- ");
            }
            case "ul", "ol" -> out.blankLine();
            case "blockquote" -> {
                out.blankLine();
                out.openQuote();
            }
            case "img" -> {
                String alt = e.attr("alt").strip();
                if (!alt.isEmpty()) {
                    out.write("[image: " + alt + "]");
                }
            }
            default -> {
                if (BLOCKS.contains(tag)) {
                    out.blankLine();
                }
            }
        }
        return FilterResult.CONTINUE;
    }

    @Override
    public FilterResult tail(Node node, int depth) {
        if (node == root || !(node instanceof Element e)) {
            return FilterResult.CONTINUE;
        }
        String tag = e.normalName();
        switch (tag) {
            case "strong", "b", "em", "i" -> {
                Emphasis open = emphasis.pop();
                if (out.wroteTextSince(open.opened())) {
                    out.write(emphasisMark(tag));
                } else {
                    out.undo(open.before());
                }
            }
            case "ul", "ol" -> out.blankLine();
            case "blockquote" -> {
                out.closeQuote();
                out.blankLine();
            }
            case "td", "th" -> out.write(" | ");
            default -> {
                if (BLOCKS.contains(tag)) {
                    out.blankLine();
                }
            }
        }
        return FilterResult.CONTINUE;
    }

    private record Emphasis(MarkdownOut.Mark before, MarkdownOut.Mark opened) {
    }

    private static String emphasisMark(String tag) {
        return tag.equals("strong") || tag.equals("b") ? "**" : "*";
    }
}
