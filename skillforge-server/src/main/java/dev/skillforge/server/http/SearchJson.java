package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.conversation.Conversations;
import dev.skillforge.server.search.Highlight;
import dev.skillforge.server.search.Snippet;

import java.util.List;

/**
 * Where a search result matched, as {@code GET /api/conversations/search} shows it beside a conversation's summary:
 * {@code titleMatches}, and {@code snippets}, each {@code {seq, kind, name?, sha256?, text, matches}}; a match is
 * {@code [start, end]}, offsets into the text it marks.
 */
final class SearchJson {

    private SearchJson() {
    }

    /** {@code summary} with where {@code found} matched. */
    static ObjectNode where(ObjectNode summary, Conversations.SearchResult found) {
        highlights(summary.putArray("titleMatches"), found.titleMatches());
        ArrayNode snippets = summary.putArray("snippets");
        for (Snippet snippet : found.snippets()) {
            ObjectNode node = snippets.addObject().put("seq", snippet.seq()).put("kind", snippet.kind());
            if (snippet.name() != null) {
                node.put("name", snippet.name()).put("sha256", snippet.sha256());
            }
            node.put("text", snippet.text());
            highlights(node.putArray("matches"), snippet.matches());
        }
        return summary;
    }

    private static void highlights(ArrayNode list, List<Highlight> highlights) {
        highlights.forEach(highlight -> list.addArray().add(highlight.start()).add(highlight.end()));
    }
}
