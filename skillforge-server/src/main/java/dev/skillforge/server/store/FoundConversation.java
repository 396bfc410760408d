package dev.skillforge.server.store;

import dev.skillforge.server.search.SearchSource;

import java.util.List;

/**
 * A conversation a search found, with some of its texts that hold a term (at most {@link ConversationSearch#HITS_PER_TERM}
 * entries and as many documents per term), for the snippets to be cut from.
 */
public record FoundConversation(ConversationRecord record, List<SearchSource> sources) {

    public FoundConversation {
        sources = List.copyOf(sources);
    }
}
