package dev.skillforge.server.store;

import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.server.document.Documents;
import dev.skillforge.server.search.SearchQuery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The {@link ConversationStore} on a {@link Database}: one class and the same SQL for SQLite and
 * PostgreSQL; the few differences (transaction start, row locks, collation, error classes) live
 * in {@link Dialect}.
 *
 * <p><b>Writes.</b> {@link #apply} runs a batch in one transaction, in order, all or none.
 * Consecutive {@code AppendEntry} writes go to the database as one JDBC batch. Every write is
 * idempotent, so a retried batch changes nothing: a conversation that exists is not created again,
 * an entry whose {@code (conversation, seq)} exists is not written again (the first write wins,
 * whatever the second one holds: entries are never updated), a turn is an upsert.
 *
 * <p><b>Writes for a conversation that does not exist.</b> {@code AppendEntry} and {@code PutTurn}
 * for a missing conversation are skipped, and the rest of the batch is applied; each skip is
 * logged at WARN (one line per batch and conversation). This is the normal end of a conversation
 * deleted while its last writes were still queued, and it keeps a deleted conversation deleted.
 * {@code SetTitle} for a missing conversation does nothing.
 *
 * <p><b>Refused writes.</b> Text that cannot be stored verbatim (a NUL character, which PostgreSQL
 * cannot hold in text, or an unpaired surrogate, which neither database can encode) and writes
 * the database refuses (a {@code NOT NULL} column left null) fail the whole batch with a
 * {@link StoreRejectedException}, the same way on both databases. Any other failure is a plain
 * {@link StoreException}: worth retrying.
 *
 * <p><b>Leases</b> are read and changed in one transaction holding the lease row's lock
 * ({@code SELECT … FOR UPDATE} on PostgreSQL; on SQLite, {@code BEGIN IMMEDIATE} takes the only
 * write lock), so two instances asking at once get one answer each and exactly one holder.
 *
 * <p>Thread-safe. {@link #close()} closes the database.
 */
public final class JdbcConversationStore implements ConversationStore {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcConversationStore.class);

    /** Ids per {@code IN (…)} list: far below both databases' limits on bound parameters. */
    static final int IN_LIST_CHUNK = 500;

    private static final String CONVERSATION_COLUMNS =
            "id, title, system_prompt, provider, model, created_at, updated_at, forked_from, cache_key, owner, thread_id, forked_at_turn";
    /** The columns of {@link #CONVERSATION_COLUMNS}, a list row's thread's last activity in place of its own. */
    private static final String THREAD_ROW_COLUMNS =
            "id, title, system_prompt, provider, model, created_at, thread_updated_at, forked_from, cache_key, owner, thread_id, forked_at_turn";
    private static final String ENTRY_COLUMNS =
            "conversation_id, seq, turn, kind, content, replay_format, replay_data, created_at";
    private static final String TURN_COLUMNS =
            "conversation_id, turn, status, started_at, ended_at, summary_json";

    private static final String INSERT_CONVERSATION = "INSERT INTO conversations (" + CONVERSATION_COLUMNS
            + ", selected_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING";
    private static final String INSERT_ENTRY = "INSERT INTO entries (" + ENTRY_COLUMNS
            + ", lease_epoch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (conversation_id, seq) DO NOTHING";
    private static final String INSERT_FILE = "INSERT INTO attachment_files (conversation_id, sha256, size, data)"
            + " VALUES (?, ?, ?, ?) ON CONFLICT (conversation_id, sha256) DO NOTHING";
    private static final String ATTACHMENT_COLUMNS = "conversation_id, seq, position, sha256, name, media_type, size, prompt_text";
    private static final String INSERT_ATTACHMENT = "INSERT INTO entry_attachments (" + ATTACHMENT_COLUMNS
            + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (conversation_id, seq, position) DO NOTHING";
    private static final String MOVE_UPDATED_AT =
            "UPDATE conversations SET updated_at = ? WHERE id = ? AND updated_at < ?";
    private static final String UPSERT_TURN = "INSERT INTO turns (" + TURN_COLUMNS
            + ", lease_epoch) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (conversation_id, turn) DO UPDATE SET"
            + " status = excluded.status, started_at = excluded.started_at,"
            + " ended_at = excluded.ended_at, summary_json = excluded.summary_json, lease_epoch = excluded.lease_epoch";
    private static final String SELECT_BRANCH = "UPDATE conversations SET selected_at = ? WHERE id = ? AND selected_at < ?";
    private static final String SET_TITLE = "UPDATE conversations SET title = ?,"
            + " updated_at = CASE WHEN updated_at < ? THEN ? ELSE updated_at END WHERE id = ?";
    private static final List<String> DELETE_CONVERSATION = List.of(
            "DELETE FROM entry_attachments WHERE conversation_id = ?",
            "DELETE FROM attachment_files WHERE conversation_id = ?",
            "DELETE FROM entries WHERE conversation_id = ?",
            "DELETE FROM turns WHERE conversation_id = ?",
            "DELETE FROM leases WHERE conversation_id = ?",
            "DELETE FROM conversations WHERE id = ?");

    private static final String SELECT_CONVERSATION =
            "SELECT " + CONVERSATION_COLUMNS + " FROM conversations WHERE id = ?";
    private static final String SELECT_OWNED_CONVERSATION =
            "SELECT " + CONVERSATION_COLUMNS + " FROM conversations WHERE id = ? AND owner = ?";
    private static final String COUNT_CONVERSATIONS = "SELECT COUNT(DISTINCT thread_id) FROM conversations WHERE owner = ?";
    private static final String SELECT_ENTRIES =
            "SELECT " + ENTRY_COLUMNS + " FROM entries WHERE conversation_id = ? ORDER BY seq";
    /** With an image's bytes beside its reference: the model is sent them with every request. */
    private static final String SELECT_ATTACHMENTS = "SELECT a.seq, a.sha256, a.name, a.media_type, a.size, a.prompt_text,"
            + " CASE WHEN a.media_type LIKE 'image/%' THEN f.data END"
            + " FROM entry_attachments a LEFT JOIN attachment_files f ON f.conversation_id = a.conversation_id AND f.sha256 = a.sha256"
            + " WHERE a.conversation_id = ? ORDER BY a.seq, a.position";
    private static final String SELECT_FILE = "SELECT data FROM attachment_files WHERE conversation_id = ? AND sha256 = ?";
    private static final String SELECT_TURNS =
            "SELECT " + TURN_COLUMNS + " FROM turns WHERE conversation_id = ? ORDER BY turn";

    /** The creator's lease, epoch 1; if someone holds a row already, theirs stands. */
    private static final String INSERT_CREATOR_LEASE = "INSERT INTO leases"
            + " (conversation_id, owner, epoch, expires_at, requested_by) VALUES (?, ?, "
            + Write.CreateConversation.LEASE_EPOCH + ", ?, NULL)"
            + " ON CONFLICT (conversation_id) DO NOTHING";

    private final Database database;
    private final Dialect dialect;
    private final Transactions transactions;
    private final String listConversations;
    private final String selectThread;
    private final String conversationExists;
    private final JdbcLeases leases;
    private final String leaseStillCurrent;
    private final ConversationSearch search;
    /** A store on {@code database}, which it owns from now on: {@link #close()} closes it. */
    public JdbcConversationStore(Database database) {
        this.database = Objects.requireNonNull(database, "database");
        this.dialect = database.dialect();
        this.transactions = new Transactions(database);
        this.listConversations = onePerThread("owner = ?") + " LIMIT ? OFFSET ?";
        this.selectThread = "SELECT id, forked_from, forked_at_turn, created_at, selected_at,"
                + " (SELECT COUNT(*) FROM turns t WHERE t.conversation_id = c.id) FROM conversations c"
                + " WHERE owner = ? AND thread_id = ? ORDER BY created_at, " + dialect.inCodePointOrder("id");
        this.conversationExists = "SELECT 1 FROM conversations WHERE id = ?" + dialect.lockAgainstDelete();
        this.leaseStillCurrent = "SELECT 1 FROM leases WHERE conversation_id = ? AND epoch = ? AND owner IS NOT NULL"
                + dialect.lockShared();
        this.search = new ConversationSearch(transactions, dialect, this::onePerThread);
        this.leases = new JdbcLeases(transactions, dialect);
    }

    /**
     * One row per thread of the conversations {@code where} selects, as {@link #conversations} describes: the branch
     * selected last, with its thread's last activity; most recently active first.
     */
    private String onePerThread(String where) {
        String byId = dialect.inCodePointOrder("id");
        return "SELECT " + THREAD_ROW_COLUMNS + " FROM (SELECT " + CONVERSATION_COLUMNS
                + ", MAX(updated_at) OVER (PARTITION BY thread_id) AS thread_updated_at,"
                + " ROW_NUMBER() OVER (PARTITION BY thread_id ORDER BY selected_at DESC, " + byId + ") AS shown_order"
                + " FROM conversations c WHERE " + where + ") branches WHERE shown_order = 1 ORDER BY thread_updated_at DESC, " + byId;
    }

    /**
     * Opens the database the settings name (see {@link Database#open}) and a store on it.
     *
     * @throws StoreException if the database cannot be reached, created or migrated
     */
    public static JdbcConversationStore open(String jdbcUrlOrNull, String user, String password, Path dataDir) {
        return new JdbcConversationStore(Database.open(jdbcUrlOrNull, user, password, dataDir));
    }

    /** The database this store writes to. */
    public Database database() {
        return database;
    }

    // ---------------------------------------------------------------------------------- writes

    @Override
    public Set<Fenced> apply(List<Write> batch) {
        Objects.requireNonNull(batch, "batch");
        if (batch.isEmpty()) {
            return Set.of();
        }
        WriteValidation.requireStorable(batch);
        String what = batch.size() == 1 ? "apply 1 write" : "apply " + batch.size() + " writes";
        BatchApplier applier = transactions.write(what, connection -> {
            BatchApplier batchApplier = new BatchApplier(connection);
            batchApplier.apply(batch);
            return batchApplier;
        });
        applier.skipped.forEach((conversationId, count) -> LOG.warn(
                "Skipped {} write(s) for conversation {}: it does not exist (deleted, or never created)",
                count, conversationId));
        applier.fenced.forEach(fenced -> LOG.warn("Refused the writes of conversation {} made under lease epoch {}:"
                + " another instance has taken the conversation over", fenced.conversationId(), fenced.epoch()));
        return Set.copyOf(applier.fenced);
    }

    /**
     * Applies one batch on one connection inside the caller's transaction. Its statements stay prepared on the
     * connection from one batch to the next ({@link PreparedStatements}).
     */
    private final class BatchApplier {

        private final Connection connection;
        /** Whether each conversation seen so far exists, as of this transaction. */
        private final Map<String, Boolean> exists = new HashMap<>();
        /** Writes skipped because their conversation does not exist, per conversation. */
        private final Map<String, Integer> skipped = new LinkedHashMap<>();
        /** The lease epochs checked so far in this transaction: current (the row is locked until commit) or fenced. */
        private final Map<Fenced, Boolean> leaseCurrent = new HashMap<>();
        /** Conversations whose writes were refused, with the stale epoch they were made under. */
        private final Set<Fenced> fenced = new LinkedHashSet<>();

        BatchApplier(Connection connection) {
            this.connection = connection;
        }

        private PreparedStatement statement(String sql) throws SQLException {
            return PreparedStatements.prepared(connection, sql);
        }

        void apply(List<Write> batch) throws SQLException {
            // The lease rows first, in one order for every transaction (as renewals lock them): two
            // batches, or a batch and a renewal, never wait for each other crosswise.
            // (Not those of a conversation this batch creates: its lease row does not exist until the creation.)
            Set<String> created = new HashSet<>();
            batch.stream().filter(Write.CreateConversation.class::isInstance).forEach(w -> created.add(w.conversationId()));
            List<Write> fencedWrites = new ArrayList<>(batch.stream()
                    .filter(w -> w.epoch() != Write.UNFENCED && !created.contains(w.conversationId())).toList());
            fencedWrites.sort(Comparator.comparing(Write::conversationId).thenComparingLong(Write::epoch));
            for (Write write : fencedWrites) {
                leaseStillCurrent(write);
            }
            int start = 0;
            while (start < batch.size()) {
                int end = start;
                while (end < batch.size() && batch.get(end) instanceof Write.AppendEntry) {
                    end++;
                }
                if (end > start) {
                    appendEntries(batch.subList(start, end));
                    start = end;
                } else {
                    applyOne(batch.get(start));
                    start++;
                }
            }
        }

        private void applyOne(Write write) throws SQLException {
            if (!leaseStillCurrent(write)) {
                return;
            }
            switch (write) {
                case Write.CreateConversation create -> {
                    createConversation(create.conversation());
                    if (create.leaseOwner() != null) {
                        insertCreatorLease(create);
                    }
                }
                case Write.AppendEntry append -> appendEntries(List.of(append));
                case Write.PutTurn put -> putTurn(put.turn(), put.epoch());
                case Write.SetTitle setTitle -> setTitle(setTitle);
                case Write.SelectBranch select -> selectBranch(select);
                case Write.DeleteConversation delete -> deleteConversation(delete.conversationId());
            }
        }

        private void insertCreatorLease(Write.CreateConversation create) throws SQLException {
            PreparedStatement insert = statement(INSERT_CREATOR_LEASE);
            insert.setString(1, create.conversationId());
            insert.setString(2, create.leaseOwner());
            insert.setLong(3, create.leaseExpiresAtMillis());
            insert.executeUpdate();
        }

        private void createConversation(ConversationRecord conversation) throws SQLException {
            PreparedStatement insert = statement(INSERT_CONVERSATION);
            insert.setString(1, conversation.id());
            insert.setString(2, conversation.title());
            insert.setString(3, conversation.systemPrompt());
            insert.setString(4, conversation.provider());
            insert.setString(5, conversation.model());
            insert.setLong(6, conversation.createdAtMillis());
            insert.setLong(7, conversation.updatedAtMillis());
            insert.setString(8, conversation.forkedFrom());
            insert.setString(9, conversation.cacheKey().equals(conversation.id()) ? null : conversation.cacheKey());
            insert.setString(10, conversation.owner());
            insert.setString(11, conversation.branch().threadId());
            if (conversation.forkedFrom() == null) {
                insert.setNull(12, Types.INTEGER);
            } else {
                insert.setInt(12, conversation.branch().forkedAtTurn());
            }
            insert.setLong(13, conversation.createdAtMillis()); // a new branch is the one its thread shows
            insert.executeUpdate();
            exists.put(conversation.id(), true);
        }

        /** A run of appends as one JDBC batch, then one updated_at move per conversation. */
        private void appendEntries(List<Write> appends) throws SQLException {
            List<StoredEntry> entries = new ArrayList<>(appends.size());
            List<Long> epochs = new ArrayList<>(appends.size());
            List<Write.AppendEntry> withAttachments = new ArrayList<>();
            for (Write write : appends) {
                Write.AppendEntry append = (Write.AppendEntry) write;
                StoredEntry entry = append.entry();
                if (!leaseStillCurrent(write)) {
                    continue;
                }
                if (conversationExists(entry.conversationId())) {
                    entries.add(entry);
                    epochs.add(write.epoch());
                    if (!entry.attachments().isEmpty() || !append.files().isEmpty()) {
                        withAttachments.add(append);
                    }
                } else {
                    skipped.merge(entry.conversationId(), 1, Integer::sum);
                }
            }
            if (entries.isEmpty()) {
                return;
            }
            insertAttachments(withAttachments);
            Map<String, Long> newestInserted = new LinkedHashMap<>();
            PreparedStatement insert = statement(INSERT_ENTRY);
            for (int i = 0; i < entries.size(); i++) {
                StoredEntry entry = entries.get(i);
                insert.setString(1, entry.conversationId());
                insert.setInt(2, entry.seq());
                insert.setInt(3, entry.turn());
                insert.setString(4, entry.kind());
                insert.setString(5, entry.content());
                insert.setString(6, entry.replayFormat());
                insert.setString(7, entry.replayData());
                insert.setLong(8, entry.createdAtMillis());
                setEpoch(insert, 9, epochs.get(i));
                insert.addBatch();
            }
            int[] counts = insert.executeBatch();
            for (int i = 0; i < entries.size(); i++) {
                // 0 = the seq existed and the write was ignored; SUCCESS_NO_INFO counts as inserted.
                if (i >= counts.length || counts[i] != 0) {
                    StoredEntry entry = entries.get(i);
                    newestInserted.merge(entry.conversationId(), entry.createdAtMillis(), Math::max);
                }
            }
            if (newestInserted.isEmpty()) {
                return;
            }
            PreparedStatement move = statement(MOVE_UPDATED_AT);
            for (Map.Entry<String, Long> newest : newestInserted.entrySet()) {
                move.setLong(1, newest.getValue());
                move.setString(2, newest.getKey());
                move.setLong(3, newest.getValue());
                move.addBatch();
            }
            move.executeBatch();
        }

        /** The files (each once per conversation) and the references of entries that bring attachments. */
        private void insertAttachments(List<Write.AppendEntry> appends) throws SQLException {
            if (appends.isEmpty()) {
                return;
            }
            PreparedStatement file = statement(INSERT_FILE);
            PreparedStatement reference = statement(INSERT_ATTACHMENT);
            for (Write.AppendEntry append : appends) {
                StoredEntry entry = append.entry();
                for (AttachmentFile attached : append.files()) {
                    file.setString(1, entry.conversationId());
                    file.setString(2, attached.sha256());
                    file.setLong(3, attached.data().length);
                    file.setBytes(4, attached.data());
                    file.addBatch();
                }
                for (int position = 0; position < entry.attachments().size(); position++) {
                    Attachment attachment = entry.attachments().get(position);
                    reference.setString(1, entry.conversationId());
                    reference.setInt(2, entry.seq());
                    reference.setInt(3, position);
                    reference.setString(4, attachment.sha256());
                    reference.setString(5, attachment.name());
                    reference.setString(6, attachment.mediaType());
                    reference.setLong(7, attachment.size());
                    reference.setString(8, attachment.promptText());
                    reference.addBatch();
                }
            }
            file.executeBatch();
            reference.executeBatch();
        }

        private void putTurn(TurnRecord turn, long epoch) throws SQLException {
            if (!conversationExists(turn.conversationId())) {
                skipped.merge(turn.conversationId(), 1, Integer::sum);
                return;
            }
            PreparedStatement upsert = statement(UPSERT_TURN);
            upsert.setString(1, turn.conversationId());
            upsert.setInt(2, turn.turn());
            upsert.setString(3, turn.status());
            upsert.setLong(4, turn.startedAtMillis());
            if (turn.endedAtMillis() == null) {
                upsert.setNull(5, Types.BIGINT);
            } else {
                upsert.setLong(5, turn.endedAtMillis());
            }
            upsert.setString(6, turn.summaryJson());
            setEpoch(upsert, 7, epoch);
            upsert.executeUpdate();
        }

        private void setTitle(Write.SetTitle setTitle) throws SQLException {
            PreparedStatement update = statement(SET_TITLE);
            update.setString(1, setTitle.title());
            update.setLong(2, setTitle.updatedAtMillis());
            update.setLong(3, setTitle.updatedAtMillis());
            update.setString(4, setTitle.conversationId());
            update.executeUpdate();
        }

        private void selectBranch(Write.SelectBranch select) throws SQLException {
            PreparedStatement update = statement(SELECT_BRANCH);
            update.setLong(1, select.atMillis());
            update.setString(2, select.conversationId());
            update.setLong(3, select.atMillis());
            update.executeUpdate();
        }

        private void deleteConversation(String conversationId) throws SQLException {
            // Explicit deletes rather than trusting ON DELETE CASCADE alone: leases have no foreign
            // key, and the cascade depends on a per-connection pragma on SQLite.
            for (String sql : DELETE_CONVERSATION) {
                PreparedStatement delete = statement(sql);
                delete.setString(1, conversationId);
                delete.executeUpdate();
            }
            exists.put(conversationId, false);
        }

        /**
         * Whether a fenced write's lease epoch is still the conversation's held lease: one conditional
         * statement that also locks the lease row until the batch commits ({@code FOR SHARE} on
         * PostgreSQL; SQLite's {@code BEGIN IMMEDIATE} holds the only write lock), so no take-over
         * can come between this check and the write. A refused write is remembered in {@link #fenced}.
         */
        private boolean leaseStillCurrent(Write write) throws SQLException {
            if (write.epoch() == Write.UNFENCED) {
                return true;
            }
            Fenced key = new Fenced(write.conversationId(), write.epoch());
            Boolean known = leaseCurrent.get(key);
            if (known == null) {
                PreparedStatement select = statement(leaseStillCurrent);
                select.setString(1, key.conversationId());
                select.setLong(2, key.epoch());
                try (ResultSet rows = select.executeQuery()) {
                    known = rows.next();
                }
                leaseCurrent.put(key, known);
            }
            if (!known) {
                fenced.add(key);
            }
            return known;
        }

        private boolean conversationExists(String conversationId) throws SQLException {
            Boolean known = exists.get(conversationId);
            if (known != null) {
                return known;
            }
            boolean found;
            PreparedStatement select = statement(conversationExists);
            select.setString(1, conversationId);
            try (ResultSet rows = select.executeQuery()) {
                found = rows.next();
            }
            exists.put(conversationId, found);
            return found;
        }
    }

    // ----------------------------------------------------------------------------------- reads

    @Override
    public Optional<ConversationRecord> conversation(String id) {
        Objects.requireNonNull(id, "id");
        return transactions.read("read conversation " + id, connection -> {
            try (PreparedStatement select = connection.prepareStatement(SELECT_CONVERSATION)) {
                select.setString(1, id);
                try (ResultSet rows = select.executeQuery()) {
                    return rows.next() ? Optional.of(conversationRecord(rows)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public Optional<ConversationRecord> conversation(String owner, String id) {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(id, "id");
        return transactions.read("read conversation " + id, connection -> {
            try (PreparedStatement select = connection.prepareStatement(SELECT_OWNED_CONVERSATION)) {
                select.setString(1, id);
                select.setString(2, owner);
                try (ResultSet rows = select.executeQuery()) {
                    return rows.next() ? Optional.of(conversationRecord(rows)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public List<ConversationRecord> conversations(String owner, int limit, int offset) {
        Objects.requireNonNull(owner, "owner");
        if (limit < 0 || offset < 0) {
            throw new IllegalArgumentException("limit and offset must be at least 0, were " + limit + " and " + offset);
        }
        if (limit == 0) {
            return List.of();
        }
        return transactions.rows("list conversations", listConversations, JdbcConversationStore::conversationRecord, owner, limit, offset);
    }

    @Override
    public List<FoundConversation> search(String owner, SearchQuery query, int limit) {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(query, "query");
        return search.search(owner, query, limit, JdbcConversationStore::conversationRecord);
    }

    @Override
    public long count(String owner) {
        Objects.requireNonNull(owner, "owner");
        return transactions.read("count conversations", connection -> {
            try (PreparedStatement select = connection.prepareStatement(COUNT_CONVERSATIONS)) {
                select.setString(1, owner);
                try (ResultSet rows = select.executeQuery()) {
                    rows.next();
                    return rows.getLong(1);
                }
            }
        });
    }

    @Override
    public List<StoredEntry> entries(String conversationId) {
        Objects.requireNonNull(conversationId, "conversationId");
        String what = "read the entries of conversation " + conversationId;
        List<StoredEntry> entries = transactions.rows(what, SELECT_ENTRIES,
                row -> new StoredEntry(row.getString(1), row.getInt(2), row.getInt(3), row.getString(4), row.getString(5),
                        row.getString(6), row.getString(7), row.getLong(8)),
                conversationId);
        Map<Integer, List<Attachment>> attachments = new HashMap<>();
        transactions.rows(what, SELECT_ATTACHMENTS, row -> attachments.computeIfAbsent(row.getInt(1), seq -> new ArrayList<>())
                .add(attachment(row.getString(2), row.getString(3), row.getString(4), row.getLong(5), row.getString(6), row.getBytes(7))),
                conversationId);
        if (attachments.isEmpty()) {
            return entries;
        }
        return entries.stream().map(e -> attachments.containsKey(e.seq()) ? new StoredEntry(e.conversationId(), e.seq(), e.turn(),
                e.kind(), e.content(), e.replayFormat(), e.replayData(), e.createdAtMillis(), attachments.get(e.seq())) : e).toList();
    }

    /** A stored reference: an image (its bytes came with it) or a document. */
    private static Attachment attachment(String sha256, String name, String mediaType, long size, String promptText, byte[] image) {
        return image == null ? new Attachment(sha256, name, mediaType, size, promptText)
                : Attachment.image(sha256, name, mediaType, size, Documents.storedImage(image, name));
    }

    @Override
    public Optional<byte[]> attachmentFile(String conversationId, String sha256) {
        Objects.requireNonNull(conversationId, "conversationId");
        Objects.requireNonNull(sha256, "sha256");
        return transactions.rows("read an attached file of conversation " + conversationId, SELECT_FILE, row -> row.getBytes(1),
                conversationId, sha256).stream().findFirst();
    }

    @Override
    public List<TurnRecord> turns(String conversationId) {
        Objects.requireNonNull(conversationId, "conversationId");
        return transactions.rows("read the turns of conversation " + conversationId, SELECT_TURNS, row -> {
            long endedAt = row.getLong(5);
            Long ended = row.wasNull() ? null : endedAt;
            return new TurnRecord(row.getString(1), row.getInt(2), row.getString(3), row.getLong(4), ended, row.getString(6));
        }, conversationId);
    }

    @Override
    public List<BranchRecord> thread(String owner, String threadId) {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(threadId, "threadId");
        return transactions.rows("read the branches of thread " + threadId, selectThread, row -> new BranchRecord(row.getString(1),
                row.getString(2), row.getInt(3), row.getLong(4), row.getLong(5), row.getInt(6)), owner, threadId);
    }

    @Override
    public Map<String, String> userMessages(List<String> conversationIds, int turn) {
        Objects.requireNonNull(conversationIds, "conversationIds");
        Map<String, String> messages = new HashMap<>();
        for (int from = 0; from < conversationIds.size(); from += IN_LIST_CHUNK) {
            List<String> chunk = conversationIds.subList(from, Math.min(conversationIds.size(), from + IN_LIST_CHUNK));
            List<Object> parameters = new ArrayList<>(chunk);
            parameters.add(turn);
            transactions.rowsOnce("read the messages of turn " + turn, "SELECT conversation_id, content FROM entries WHERE conversation_id IN ("
                    + String.join(", ", Collections.nCopies(chunk.size(), "?")) + ") AND turn = ? AND kind = 'user'",
                    row -> Map.entry(row.getString(1), row.getString(2)), parameters.toArray())
                    .forEach(message -> messages.put(message.getKey(), message.getValue()));
        }
        return messages;
    }

    private static ConversationRecord conversationRecord(ResultSet rows) throws SQLException {
        String id = rows.getString(1);
        String forkedFrom = rows.getString(8);
        ConversationRecord.Branch branch = new ConversationRecord.Branch(rows.getString(11), forkedFrom, forkedFrom == null ? 0 : rows.getInt(12));
        return new ConversationRecord(id, rows.getString(2), rows.getString(3), rows.getString(4),
                rows.getString(5), rows.getLong(6), rows.getLong(7), branch, rows.getString(9), rows.getString(10));
    }

    // ---------------------------------------------------------------------------------- leases

    @Override
    public Lease acquireLease(String conversationId, String owner, long nowMillis, long ttlMillis) {
        return leases.acquire(conversationId, owner, nowMillis, ttlMillis);
    }

    @Override
    public Renewal renewLeases(String owner, Set<String> conversationIds, long nowMillis, long ttlMillis) {
        return leases.renew(owner, conversationIds, nowMillis, ttlMillis);
    }

    @Override
    public Set<String> leasesHeldBy(String owner) {
        return leases.heldBy(owner);
    }

    @Override
    public Set<String> leasesRequestedFrom(String owner) {
        return leases.requestedFrom(owner);
    }

    @Override
    public void releaseLease(String conversationId, String owner) {
        leases.release(conversationId, owner);
    }

    // ----------------------------------------------------------------------------- plumbing

    /** The epoch column of a row: NULL for a write made under no lease. */
    private static void setEpoch(PreparedStatement statement, int index, long epoch) throws SQLException {
        if (epoch == Write.UNFENCED) {
            statement.setNull(index, Types.BIGINT);
        } else {
            statement.setLong(index, epoch);
        }
    }

    @Override
    public void close() {
        database.close();
    }

    @Override
    public String toString() {
        return "JdbcConversationStore[" + database.description() + "]";
    }
}
