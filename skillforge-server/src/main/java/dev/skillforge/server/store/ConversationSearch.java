package dev.skillforge.server.store;

import dev.skillforge.server.search.SearchQuery;
import dev.skillforge.server.search.SearchSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Search in the database's full-text indexes (V11__search.sql): the conversations of one person that have every
 * term somewhere (the title, an entry's text, a document's name or text), one row per thread (of its branches that
 * match, the one selected last), most recently active first; then, for
 * those only, the first few texts in which each term is, for the snippets. Each term is one index look-up per kind
 * of text, so the cost follows the matches, not the number of conversations; texts are read up to the 100,000
 * characters the indexes hold.
 */
final class ConversationSearch {

    /** Texts read per term, conversation and kind (entries, documents): the snippets choose among them. */
    static final int HITS_PER_TERM = 3;
    /** The indexed part of a text, in characters (code points on both databases). */
    private static final int INDEXED_CHARS = 100_000;
    /** A document's wrapping line comes before its indexed text: its name (escaped) and type. */
    private static final int WRAPPING_CHARS = 2_400;

    private final Transactions transactions;
    private final Dialect dialect;
    private final UnaryOperator<String> onePerThread;

    /**
     * @param onePerThread the list's query of one row per thread, of the conversations (aliased {@code c}) that a
     *                     condition selects
     */
    ConversationSearch(Transactions transactions, Dialect dialect, UnaryOperator<String> onePerThread) {
        this.transactions = transactions;
        this.dialect = dialect;
        this.onePerThread = onePerThread;
    }

    /** @param records reads a row of the conversation columns of {@code onePerThread}'s query */
    List<FoundConversation> search(String owner, SearchQuery query, int limit, Transactions.RowReader<ConversationRecord> records) {
        if (limit <= 0) {
            return List.of();
        }
        return transactions.read("search conversations", connection -> {
            List<ConversationRecord> found = conversations(connection, owner, query, limit, records);
            if (found.isEmpty()) {
                return List.of();
            }
            Map<String, Map<String, SearchSource>> sources = new LinkedHashMap<>();
            found.forEach(record -> sources.put(record.id(), new LinkedHashMap<>()));
            List<String> ids = List.copyOf(sources.keySet());
            for (SearchQuery.Term term : query.terms()) {
                for (Hit hit : hits(connection, ids, dialect.matchOf(term))) {
                    sources.get(hit.conversationId()).putIfAbsent(hit.source().seq() + "/" + hit.source().position(), hit.source());
                }
            }
            return found.stream().map(record -> new FoundConversation(record, List.copyOf(sources.get(record.id()).values()))).toList();
        });
    }

    private List<ConversationRecord> conversations(Connection connection, String owner, SearchQuery query, int limit,
                                                   Transactions.RowReader<ConversationRecord> records) throws SQLException {
        StringBuilder where = new StringBuilder("c.owner = ?");
        List<Object> parameters = new ArrayList<>();
        parameters.add(owner);
        for (SearchQuery.Term term : query.terms()) {
            where.append(" AND (").append(dialect.titleMatches("c"))
                    .append(" OR c.id IN (SELECT e.conversation_id FROM entries e WHERE ").append(dialect.entryMatches("e")).append(')')
                    .append(" OR c.id IN (SELECT a.conversation_id FROM entry_attachments a WHERE ")
                    .append(dialect.attachmentMatches("a")).append("))");
            String match = dialect.matchOf(term);
            parameters.addAll(Collections.nCopies(3, match));
        }
        parameters.add(limit);
        return Transactions.rowsOnce(connection, onePerThread.apply(where.toString()) + " LIMIT ?", records, parameters.toArray());
    }

    private record Hit(String conversationId, SearchSource source) {
    }

    /** The first {@link #HITS_PER_TERM} entries and documents of each conversation of {@code ids} that {@code match} finds. */
    private List<Hit> hits(Connection connection, List<String> ids, String match) throws SQLException {
        String in = String.join(", ", Collections.nCopies(ids.size(), "?"));
        String entries = "SELECT e.conversation_id, e.seq, e.kind, substr(e.content, 1, " + INDEXED_CHARS + ") FROM entries e JOIN ("
                + "SELECT conversation_id, seq FROM (SELECT m.conversation_id, m.seq,"
                + " ROW_NUMBER() OVER (PARTITION BY m.conversation_id ORDER BY m.seq) AS n"
                + " FROM entries m WHERE m.conversation_id IN (" + in + ") AND " + dialect.entryMatches("m") + ") ranked"
                + " WHERE n <= " + HITS_PER_TERM + ") hits ON e.conversation_id = hits.conversation_id AND e.seq = hits.seq";
        String documents = "SELECT a.conversation_id, a.seq, a.position, a.name, a.sha256, substr(a.prompt_text, 1, "
                + (WRAPPING_CHARS + INDEXED_CHARS) + ") FROM entry_attachments a JOIN ("
                + "SELECT conversation_id, seq, position FROM (SELECT m.conversation_id, m.seq, m.position,"
                + " ROW_NUMBER() OVER (PARTITION BY m.conversation_id ORDER BY m.seq, m.position) AS n"
                + " FROM entry_attachments m WHERE m.conversation_id IN (" + in + ") AND " + dialect.attachmentMatches("m") + ") ranked"
                + " WHERE n <= " + HITS_PER_TERM + ") hits"
                + " ON a.conversation_id = hits.conversation_id AND a.seq = hits.seq AND a.position = hits.position";
        List<Object> parameters = new ArrayList<>(ids);
        parameters.add(match);
        List<Hit> hits = new ArrayList<>(Transactions.rowsOnce(connection, entries,
                row -> new Hit(row.getString(1), SearchSource.entry(row.getInt(2), row.getString(3), row.getString(4))),
                parameters.toArray()));
        hits.addAll(Transactions.rowsOnce(connection, documents,
                row -> new Hit(row.getString(1), SearchSource.attachment(row.getInt(2), row.getInt(3), row.getString(4), row.getString(5),
                        row.getString(6))),
                parameters.toArray()));
        return hits;
    }
}
