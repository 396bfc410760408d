package dev.skillforge.server.store;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/** How each database's errors are told apart: refused data, a disk that is full or failing, anything else. */
class DialectTest {

    @Test
    void sqliteTellsAFullOrFailingDiskFromRefusedDataAndFromABusyDatabase() {
        // The driver reports SQLite's result code as the error code; an extended code keeps the primary one in its low byte.
        SQLException full = new SQLException("[SQLITE_FULL] database or disk is full", null, 13);
        SQLException writeFailed = new SQLException("[SQLITE_IOERR_WRITE] disk I/O error", null, 778);
        SQLException notNull = new SQLException("[SQLITE_CONSTRAINT_NOTNULL]", null, 1299);
        SQLException busy = new SQLException("[SQLITE_BUSY] database is locked", null, 5);

        assertThat(Dialect.SQLITE.isStorageFailure(full)).isTrue();
        assertThat(Dialect.SQLITE.isStorageFailure(writeFailed)).isTrue();
        assertThat(Dialect.SQLITE.isStorageFailure(notNull)).isFalse();
        assertThat(Dialect.SQLITE.isRejection(notNull)).isTrue();
        assertThat(Dialect.SQLITE.isStorageFailure(busy)).isFalse();
        assertThat(Dialect.SQLITE.isRejection(full)).isFalse();
    }

    @Test
    void postgresqlTellsAFullOrFailingDiskByItsSqlState() {
        assertThat(Dialect.POSTGRESQL.isStorageFailure(new SQLException("could not extend file", "53100"))).isTrue();
        assertThat(Dialect.POSTGRESQL.isStorageFailure(new SQLException("could not write block", "58030"))).isTrue();
        assertThat(Dialect.POSTGRESQL.isStorageFailure(new SQLException("too many clients already", "53300")))
                .as("a full server is not a full disk").isFalse();
        assertThat(Dialect.POSTGRESQL.isStorageFailure(new SQLException("connection failure", "08006"))).isFalse();
        assertThat(Dialect.POSTGRESQL.isStorageFailure(new SQLException("null value", "23502"))).isFalse();
    }
}
