package dev.skillforge.server.skill.jdbc;

import dev.skillforge.server.skill.SkillFileInfo;
import dev.skillforge.server.skill.SkillFolder;
import dev.skillforge.server.skill.SkillPath;
import dev.skillforge.server.skill.SkillVersion;
import dev.skillforge.server.skill.VersionSource;
import dev.skillforge.server.store.Transactions;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The SQL of the skill tables ({@code skill_versions}, {@code skill_version_files}, {@code skill_blobs}: migration
 * V8), one statement per method, on a connection the caller holds. Every statement names the owner: no query reads
 * or changes rows of another owner.
 */
final class SkillRows {

    private static final String VERSION_COLUMNS = "owner, name, version, created_at, door, conversation_id, restored_from, deleted,"
            + " description";
    private static final String SELECT_HISTORY = "SELECT " + VERSION_COLUMNS
            + " FROM skill_versions WHERE owner = ? AND name = ? ORDER BY version DESC";
    private static final String SELECT_HEAD = SELECT_HISTORY + " LIMIT 1";
    private static final String SELECT_VERSION = "SELECT " + VERSION_COLUMNS
            + " FROM skill_versions WHERE owner = ? AND name = ? AND version = ?";
    private static final String SELECT_FILES = "SELECT version, path, size, sha256 FROM skill_version_files"
            + " WHERE owner = ? AND name = ? ORDER BY version DESC";
    private static final String SELECT_VERSION_FILES = "SELECT version, path, size, sha256 FROM skill_version_files"
            + " WHERE owner = ? AND name = ? AND version = ?";
    private static final String SELECT_CONTENTS = "SELECT f.path, b.data FROM skill_version_files f"
            + " JOIN skill_blobs b ON b.owner = f.owner AND b.sha256 = f.sha256"
            + " WHERE f.owner = ? AND f.name = ? AND f.version = ?";
    /** The newest version of each skill of an owner, when it is not a deleting one. */
    private static final String LIVE = " FROM skill_versions v WHERE v.owner = ? AND v.deleted = 0"
            + " AND v.version = (SELECT MAX(w.version) FROM skill_versions w WHERE w.owner = v.owner AND w.name = v.name)";
    private static final String SELECT_LIVE = "SELECT " + VERSION_COLUMNS + LIVE;
    private static final String SELECT_DELETED = "SELECT " + VERSION_COLUMNS + LIVE.replace("v.deleted = 0", "v.deleted = 1");
    private static final String SELECT_LIVE_SKILL_MDS = "SELECT v.name, b.data" + LIVE.replace(" WHERE ",
            " JOIN skill_version_files f ON f.owner = v.owner AND f.name = v.name AND f.version = v.version AND f.path = 'SKILL.md'"
                    + " JOIN skill_blobs b ON b.owner = f.owner AND b.sha256 = f.sha256 WHERE ");
    private static final String HAS_BLOB = "SELECT 1 FROM skill_blobs WHERE owner = ? AND sha256 = ?";
    private static final String INSERT_BLOB = "INSERT INTO skill_blobs (owner, sha256, size, data) VALUES (?, ?, ?, ?)"
            + " ON CONFLICT (owner, sha256) DO NOTHING";
    private static final String INSERT_VERSION = "INSERT INTO skill_versions (" + VERSION_COLUMNS
            + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String INSERT_FILE = "INSERT INTO skill_version_files (owner, name, version, path, sha256, size)"
            + " VALUES (?, ?, ?, ?, ?, ?)";
    private static final String DELETE_VERSION_FILES = "DELETE FROM skill_version_files WHERE owner = ? AND name = ? AND version = ?";
    private static final String DELETE_VERSION = "DELETE FROM skill_versions WHERE owner = ? AND name = ? AND version = ?";
    private static final String DELETE_UNUSED_BLOBS = "DELETE FROM skill_blobs WHERE owner = ? AND NOT EXISTS"
            + " (SELECT 1 FROM skill_version_files f WHERE f.owner = skill_blobs.owner AND f.sha256 = skill_blobs.sha256)";

    private SkillRows() {
    }

    /** The newest version of {@code owner}'s skill {@code name} (live or deleting), with its files. */
    static Optional<SkillVersion> head(Connection connection, String owner, String name) throws SQLException {
        List<SkillVersion> head = Transactions.rows(connection, SELECT_HEAD, SkillRows::version, owner, name);
        return head.isEmpty() ? Optional.empty() : Optional.of(withFiles(connection, head.getFirst()));
    }

    /** Every version of {@code owner}'s skill {@code name}, newest first, with their files. */
    static List<SkillVersion> history(Connection connection, String owner, String name) throws SQLException {
        List<SkillVersion> versions = Transactions.rows(connection, SELECT_HISTORY, SkillRows::version, owner, name);
        Map<Integer, List<SkillFileInfo>> files = new LinkedHashMap<>();
        for (FileRow row : Transactions.rows(connection, SELECT_FILES, SkillRows::fileRow, owner, name)) {
            files.computeIfAbsent(row.version(), v -> new ArrayList<>()).add(row.info());
        }
        return versions.stream().map(v -> withFiles(v, files.getOrDefault(v.version(), List.of()))).toList();
    }

    static Optional<SkillVersion> version(Connection connection, String owner, String name, int version) throws SQLException {
        List<SkillVersion> found = Transactions.rows(connection, SELECT_VERSION, SkillRows::version, owner, name, version);
        return found.isEmpty() ? Optional.empty() : Optional.of(withFiles(connection, found.getFirst()));
    }

    /** The files of a version that holds files, with their bytes. */
    static SkillFolder contents(Connection connection, SkillVersion version) throws SQLException {
        Map<SkillPath, byte[]> files = new TreeMap<>();
        for (Map.Entry<SkillPath, byte[]> file : Transactions.rows(connection, SELECT_CONTENTS,
                row -> Map.entry(new SkillPath(row.getString(1)), row.getBytes(2)), version.owner(), version.name(), version.version())) {
            files.put(file.getKey(), file.getValue());
        }
        return SkillFolder.asStored(version.name(), files);
    }

    /** The live skills of {@code owner} (without their files), in no particular order. */
    static List<SkillVersion> live(Connection connection, String owner) throws SQLException {
        return Transactions.rows(connection, SELECT_LIVE, SkillRows::version, owner);
    }

    /** The skills of {@code owner} whose newest version deleted them (without files), in no particular order. */
    static List<SkillVersion> deleted(Connection connection, String owner) throws SQLException {
        return Transactions.rows(connection, SELECT_DELETED, SkillRows::version, owner);
    }

    /** The SKILL.md of each live skill of {@code owner}, by name. */
    static Map<String, String> liveSkillMds(Connection connection, String owner) throws SQLException {
        Map<String, String> texts = new TreeMap<>();
        for (Map.Entry<String, String> text : Transactions.rows(connection, SELECT_LIVE_SKILL_MDS,
                row -> Map.entry(row.getString(1), new String(row.getBytes(2), StandardCharsets.UTF_8)), owner)) {
            texts.put(text.getKey(), text.getValue());
        }
        return texts;
    }

    /** Adds {@code version}; its files' contents ({@code folder}, null for a deleting version) are stored if the owner lacks them. */
    static void insert(Connection connection, SkillVersion version, SkillFolder folder) throws SQLException {
        if (folder != null) {
            for (Map.Entry<SkillPath, byte[]> file : folder.files().entrySet()) {
                SkillFileInfo info = version.files().stream().filter(f -> f.path().equals(file.getKey())).findFirst().orElseThrow();
                if (Transactions.rows(connection, HAS_BLOB, row -> true, version.owner(), info.sha256()).isEmpty()) {
                    Transactions.update(connection, INSERT_BLOB, version.owner(), info.sha256(), info.size(), file.getValue());
                }
            }
        }
        VersionSource source = version.source();
        try (var insert = connection.prepareStatement(INSERT_VERSION)) {
            insert.setString(1, version.owner());
            insert.setString(2, version.name());
            insert.setInt(3, version.version());
            insert.setLong(4, version.createdAt());
            insert.setString(5, source.door().wireName());
            insert.setString(6, source.conversationId());
            if (source.restoredFrom() == null) {
                insert.setNull(7, Types.INTEGER);
            } else {
                insert.setInt(7, source.restoredFrom());
            }
            insert.setInt(8, version.deleted() ? 1 : 0);
            insert.setString(9, version.description());
            insert.executeUpdate();
        }
        for (SkillFileInfo file : version.files()) {
            Transactions.update(connection, INSERT_FILE, version.owner(), version.name(), version.version(), file.path().value(),
                    file.sha256(), file.size());
        }
    }

    /** Removes one version and its file rows (pruning). */
    static void remove(Connection connection, SkillVersion version) throws SQLException {
        Transactions.update(connection, DELETE_VERSION_FILES, version.owner(), version.name(), version.version());
        Transactions.update(connection, DELETE_VERSION, version.owner(), version.name(), version.version());
    }

    /** Removes the contents no version of {@code owner} refers to any more. */
    static void removeUnusedContents(Connection connection, String owner) throws SQLException {
        Transactions.update(connection, DELETE_UNUSED_BLOBS, owner);
    }

    private record FileRow(int version, SkillFileInfo info) {
    }

    private static FileRow fileRow(ResultSet row) throws SQLException {
        return new FileRow(row.getInt(1), new SkillFileInfo(new SkillPath(row.getString(2)), row.getLong(3), row.getString(4)));
    }

    private static SkillVersion withFiles(Connection connection, SkillVersion version) throws SQLException {
        return withFiles(version, Transactions.rows(connection, SELECT_VERSION_FILES, row -> fileRow(row).info(),
                version.owner(), version.name(), version.version()));
    }

    private static SkillVersion withFiles(SkillVersion version, List<SkillFileInfo> files) {
        List<SkillFileInfo> sorted = files.stream().sorted((a, b) -> a.path().compareTo(b.path())).toList();
        return new SkillVersion(version.owner(), version.name(), version.version(), version.createdAt(), version.source(),
                version.deleted(), version.description(), sorted);
    }

    private static SkillVersion version(ResultSet row) throws SQLException {
        int restoredFrom = row.getInt(7);
        Integer restored = row.wasNull() ? null : restoredFrom;
        VersionSource source = new VersionSource(VersionSource.Door.ofWireName(row.getString(5)), row.getString(6), restored);
        return new SkillVersion(row.getString(1), row.getString(2), row.getInt(3), row.getLong(4), source, row.getInt(8) != 0,
                row.getString(9), List.of());
    }
}
