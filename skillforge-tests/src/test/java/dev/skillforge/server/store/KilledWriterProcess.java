package dev.skillforge.server.store;

import dev.skillforge.server.store.Write.AppendEntry;
import dev.skillforge.server.store.Write.CreateConversation;
import dev.skillforge.server.store.Write.PutTurn;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The process {@link SqliteKillDurabilityTest} kills: writes turns through a {@link StoreWriter}
 * to the SQLite file in {@code args[0]} without end, and prints {@code flushed N} each time the
 * first N conversations are confirmed applied.
 */
public final class KilledWriterProcess {

    private KilledWriterProcess() {
    }

    public static void main(String[] args) {
        JdbcConversationStore store = JdbcConversationStore.open(null, null, null, Path.of(args[0]));
        StoreWriter writer = new StoreWriter(store);
        for (int n = 0; ; n++) {
            writer.submitAll(turnWrites("c-" + n));
            if (n % 10 == 9) {
                if (!writer.flush(Duration.ofSeconds(30))) {
                    throw new IllegalStateException("flush timed out");
                }
                System.out.println("flushed " + (n + 1));
                System.out.flush();
            }
        }
    }

    /** One finished turn: its conversation, three entries and the turn record. */
    static List<Write> turnWrites(String id) {
        return List.of(
                new CreateConversation(ConversationStoreContract.conversation(id, 100)),
                new AppendEntry(ConversationStoreContract.entry(id, 0, "question of " + id)),
                new AppendEntry(ConversationStoreContract.entry(id, 1, "<shell>skill list</shell>")),
                new AppendEntry(ConversationStoreContract.entry(id, 2, "$ skill list\n(none)")),
                new PutTurn(new TurnRecord(id, 0, "complete", 1, 2L, "{}")));
    }
}
