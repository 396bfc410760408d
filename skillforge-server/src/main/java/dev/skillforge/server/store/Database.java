package dev.skillforge.server.store;

import dev.skillforge.server.error.ConfigurationException;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.postgresql.Driver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A connection pool on the conversation database, with its schema migrated to the newest version.
 *
 * <p>Two kinds: the embedded SQLite file {@code skillforge.db} under the data folder (the default,
 * created on first start, no set-up), or a PostgreSQL server named by a JDBC URL. {@link #open}
 * connects, applies the Flyway migrations from {@code db/migration} and fails with a
 * {@link StoreException} if either cannot be done; the message names the file, or the host and
 * database, and never holds a password.
 *
 * <p>Thread-safe. {@link #close()} closes the pool; a {@link JdbcConversationStore} built on this
 * database closes it when it is closed itself.
 */
public final class Database implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Database.class);

    /** The embedded database's file name inside the data folder. */
    public static final String SQLITE_FILE_NAME = "skillforge.db";

    static final Duration SQLITE_BUSY_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(5);
    /** A transaction idle this long is its instance frozen: PostgreSQL ends its session (and releases its locks). */
    private static final Duration FROZEN_TRANSACTION = Duration.ofSeconds(5);

    private final HikariDataSource pool;
    private final Dialect dialect;
    private final String description;
    private final Lock writeLock;

    private Database(HikariDataSource pool, Dialect dialect, String description) {
        this.pool = pool;
        this.dialect = dialect;
        this.description = description;
        // SQLite has one writer at a time. Queuing this process's writers on a fair lock is faster
        // and fairer than SQLite's sleeping busy handler; other processes on the same file are
        // still kept out by BEGIN IMMEDIATE and the busy timeout. PostgreSQL needs no such lock.
        this.writeLock = dialect == Dialect.SQLITE ? new ReentrantLock(true) : new NoLock();
    }

    /**
     * Opens the database the settings name and migrates its schema.
     *
     * @param jdbcUrlOrNull {@code jdbc:postgresql://host:port/database…}, or {@code null} (or blank)
     *                      for the embedded file {@code dataDir/skillforge.db}; {@code jdbc:sqlite:PATH}
     *                      names another SQLite file
     * @param user          the PostgreSQL user, or {@code null} (ignored for SQLite)
     * @param password      the PostgreSQL password, or {@code null} (ignored for SQLite; never logged)
     * @param dataDir       the data folder ({@code FORGE_DATA_DIR}), created if missing; only used
     *                      for the embedded file
     * @throws StoreException           if the database cannot be reached, created or migrated
     * @throws ConfigurationException if the URL names a database other than SQLite or PostgreSQL
     */
    public static Database open(String jdbcUrlOrNull, String user, String password, Path dataDir) {
        if (jdbcUrlOrNull == null || jdbcUrlOrNull.isBlank()) {
            Objects.requireNonNull(dataDir, "dataDir");
            return openSqlite(dataDir.resolve(SQLITE_FILE_NAME));
        }
        String url = jdbcUrlOrNull.strip();
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.startsWith("jdbc:postgresql:")) {
            return openPostgres(url, user, password);
        }
        if (lower.startsWith("jdbc:sqlite:")) {
            String path = url.substring("jdbc:sqlite:".length());
            if (path.isBlank() || path.contains(":memory:") || path.startsWith("file:") || path.contains("?")) {
                throw new ConfigurationException("The database URL must name a SQLite file as jdbc:sqlite:PATH");
            }
            return openSqlite(Path.of(path));
        }
        // Only the scheme is echoed: the rest of a URL may carry a password.
        int schemeEnd = url.indexOf(':', "jdbc:".length());
        String scheme = schemeEnd > 0 ? url.substring(0, schemeEnd) : "(no jdbc: scheme)";
        throw new ConfigurationException("Unsupported database URL " + scheme
                + ":…; use jdbc:postgresql://host:port/database, or no URL for the embedded database");
    }

    private static Database openSqlite(Path file) {
        Path absolute = file.toAbsolutePath().normalize();
        String description = "SQLite database " + absolute;
        try {
            Files.createDirectories(absolute.getParent());
        } catch (IOException e) {
            throw new StoreException("Cannot create the folder of the " + description + ": " + e, e);
        }
        HikariConfig config = baseConfig("skillforge-sqlite", "org.sqlite.JDBC", "jdbc:sqlite:" + absolute);
        config.addDataSourceProperty("journal_mode", "WAL");
        // synchronous=NORMAL in WAL mode: a commit is durable across a crash of this process
        // (kill -9), because the commit has reached the WAL file in the OS before it returns and
        // SQLite replays the WAL at the next open. Only an OS crash or power loss can lose the last
        // commits (never corrupting the file); FULL would pay an fsync per commit for that.
        config.addDataSourceProperty("synchronous", "NORMAL");
        config.addDataSourceProperty("foreign_keys", "true");
        config.addDataSourceProperty("busy_timeout", Long.toString(SQLITE_BUSY_TIMEOUT.toMillis()));
        // Readers never block in WAL mode; writers take turns on the write lock anyway.
        config.setMaximumPoolSize(4);
        return start(config, Dialect.SQLITE, description);
    }

    private static Database openPostgres(String url, String user, String password) {
        String description = "PostgreSQL database " + describePostgres(url);
        HikariConfig config = baseConfig("skillforge-postgresql", "org.postgresql.Driver", url);
        if (user != null && !user.isBlank()) {
            config.setUsername(user);
        }
        if (password != null && !password.isEmpty()) {
            config.setPassword(password);
        }
        config.addDataSourceProperty("ApplicationName", "skillforge");
        // Keeps row values (users' text) out of error messages, and so out of logs.
        config.addDataSourceProperty("logServerErrorDetail", "false");
        config.addDataSourceProperty("connectTimeout", Long.toString(CONNECTION_TIMEOUT.toSeconds()));
        // An instance frozen in the middle of a transaction (paused, cut off) would hold its row locks,
        // and a take-over of its conversations would wait for it: the database ends such a session instead.
        config.addDataSourceProperty("options", "-c idle_in_transaction_session_timeout=" + FROZEN_TRANSACTION.toMillis());
        config.setMaximumPoolSize(8);
        return start(config, Dialect.POSTGRESQL, description);
    }

    private static HikariConfig baseConfig(String poolName, String driverClass, String url) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(poolName);
        config.setDriverClassName(driverClass); // named, so a shaded jar needs no driver discovery
        config.setJdbcUrl(url);
        config.setAutoCommit(true);
        config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
        config.setInitializationFailTimeout(1); // fail at start, with the reason, if unreachable
        return config;
    }

    private static Database start(HikariConfig config, Dialect dialect, String description) {
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new StoreException("Cannot connect to the " + description + ": " + reason(e), e);
        }
        try {
            MigrateResult result = Flyway.configure()
                    .dataSource(pool)
                    .locations("classpath:db/migration", dialect.migrations())
                    .failOnMissingLocations(true)
                    .load()
                    .migrate();
            LOG.info("Opened the {} (schema version {}, {} migrations applied now)", description,
                    result.targetSchemaVersion == null ? "unchanged" : result.targetSchemaVersion,
                    result.migrationsExecuted);
        } catch (RuntimeException e) {
            pool.close();
            throw new StoreException("Cannot migrate the schema of the " + description + ": " + e.getMessage(), e);
        }
        return new Database(pool, dialect, description);
    }

    /**
     * "'name' at host:port", from the driver's own parse of the URL; never the URL itself, whose
     * parameters may carry a password.
     */
    static String describePostgres(String url) {
        Properties parsed = Driver.parseURL(url, null);
        if (parsed == null) {
            return "(unparseable jdbc:postgresql URL)";
        }
        String hosts = parsed.getProperty("PGHOST", "localhost");
        String ports = parsed.getProperty("PGPORT", "5432");
        String[] hostList = hosts.split(",");
        String[] portList = ports.split(",");
        StringBuilder at = new StringBuilder();
        for (int i = 0; i < hostList.length; i++) {
            if (i > 0) {
                at.append(',');
            }
            at.append(hostList[i]).append(':').append(portList[Math.min(i, portList.length - 1)]);
        }
        return "'" + parsed.getProperty("PGDBNAME", "") + "' at " + at;
    }

    /** The driver's message if there is one (it says what failed), else the innermost cause's. */
    private static String reason(Throwable e) {
        Throwable deepest = e;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException && t.getMessage() != null) {
                return t.getMessage();
            }
            deepest = t;
        }
        return deepest.getMessage() == null ? deepest.getClass().getSimpleName() : deepest.getMessage();
    }

    /** Which database this is. */
    public Dialect dialect() {
        return dialect;
    }

    /** "SQLite database /path/skillforge.db" or "PostgreSQL database 'name' at host:port": for logs and errors. */
    public String description() {
        return description;
    }

    /** A pooled connection in auto-commit mode; closing it gives it back. */
    Connection connection() throws SQLException {
        return pool.getConnection();
    }

    /** A connection outside the pool, for a session that stays open (listening for notifications); the caller closes it. */
    Connection dedicatedConnection() throws SQLException {
        Properties properties = new Properties();
        properties.putAll(pool.getDataSourceProperties());
        if (pool.getUsername() != null) {
            properties.setProperty("user", pool.getUsername());
        }
        if (pool.getPassword() != null) {
            properties.setProperty("password", pool.getPassword());
        }
        return DriverManager.getConnection(pool.getJdbcUrl(), properties);
    }

    /** Drops a connection whose state is unknown (a failed rollback) instead of giving it back. */
    void evict(Connection connection) {
        pool.evictConnection(connection);
    }

    /** Held around every write transaction: one writer at a time for SQLite, no-op for PostgreSQL. */
    Lock writeLock() {
        return writeLock;
    }

    @Override
    public void close() {
        pool.close();
    }

    @Override
    public String toString() {
        return description;
    }

    /** A lock that never waits: PostgreSQL's own row locks order the writers. */
    private static final class NoLock implements Lock {
        @Override
        public void lock() {
        }

        @Override
        public void lockInterruptibly() {
        }

        @Override
        public boolean tryLock() {
            return true;
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) {
            return true;
        }

        @Override
        public void unlock() {
        }

        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException();
        }
    }
}
