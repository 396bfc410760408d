package dev.skillforge.server.skill.jdbc;

import dev.skillforge.server.skill.SkillAccess;
import dev.skillforge.server.skill.SkillException;
import dev.skillforge.server.skill.SkillFolder;
import dev.skillforge.server.skill.SkillLimits;
import dev.skillforge.server.skill.SkillName;
import dev.skillforge.server.skill.SkillPath;
import dev.skillforge.server.skill.SkillStore;
import dev.skillforge.server.skill.SkillSummary;
import dev.skillforge.server.skill.SkillVersion;
import dev.skillforge.server.skill.VersionSource;
import dev.skillforge.server.skill.Written;
import dev.skillforge.server.store.Database;
import dev.skillforge.server.store.Transactions;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The {@link SkillStore} in the conversations' database (SQLite or PostgreSQL), so that every
 * instance of a fleet sees the same skills. A write is one transaction that reads the skill's
 * newest version and adds the next: when another instance added that number first, the database
 * refuses the second insert and the whole write runs again on the newer version, so concurrent
 * writes to one skill end as consecutive versions and none is lost.
 *
 * <p>Thread-safe. It does not own the database: the conversation store closes it.
 */
public final class JdbcSkillStore implements SkillStore {

    /**
     * Writes of one owner's skills queue behind each other; these retries are for the rare collision across owners
     * (two owners' writes adding the same content, one pruning a blob the other just referred to).
     */
    private static final int ATTEMPTS = 5;

    private final Transactions transactions;
    private final SkillLimits limits;
    private final InstantSource clock;

    public JdbcSkillStore(Database database, SkillLimits limits, InstantSource clock) {
        this.transactions = new Transactions(database);
        this.limits = Objects.requireNonNull(limits, "limits");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    public SkillLimits limits() {
        return limits;
    }

    // ------------------------------------------------------------------------------- reads

    @Override
    public List<SkillSummary> list(String owner) {
        return transactions.read("list the skills of " + owner, connection -> {
            List<SkillSummary> own = summaries(SkillRows.live(connection, owner));
            Set<String> shadowed = own.stream().map(SkillSummary::name).collect(Collectors.toSet());
            List<SkillSummary> all = new ArrayList<>(own);
            summaries(SkillRows.live(connection, SkillAccess.TEAM)).stream().filter(s -> !shadowed.contains(s.name())).forEach(all::add);
            return List.copyOf(all);
        });
    }

    @Override
    public List<SkillSummary> deleted(String owner) {
        return transactions.read("list the deleted skills of " + owner, connection -> summaries(SkillRows.deleted(connection, owner)));
    }

    @Override
    public List<SkillSummary> search(String owner, Collection<String> words) {
        List<String> needles = words.stream().filter(w -> !w.isBlank()).map(w -> w.toLowerCase(Locale.ROOT)).toList();
        List<SkillSummary> listed = list(owner);
        Map<String, String> own = transactions.read("search the skills of " + owner, c -> SkillRows.liveSkillMds(c, owner));
        Map<String, String> team = transactions.read("search the team's skills", c -> SkillRows.liveSkillMds(c, SkillAccess.TEAM));
        return listed.stream().filter(skill -> {
            String text = (skill.team() ? team : own).getOrDefault(skill.name(), "");
            String haystack = (skill.name() + "\n" + skill.description() + "\n" + text).toLowerCase(Locale.ROOT);
            return needles.stream().allMatch(haystack::contains);
        }).toList();
    }

    @Override
    public Optional<SkillVersion> current(String owner, String name) {
        if (!SkillName.isValid(name)) {
            return Optional.empty();
        }
        return transactions.read("read skill " + name, connection -> live(connection, owner, name));
    }

    @Override
    public List<SkillVersion> history(String owner, String name) {
        if (!SkillName.isValid(name)) {
            return List.of();
        }
        return transactions.read("read the history of skill " + name,
                connection -> SkillRows.history(connection, library(connection, owner, name), name));
    }

    @Override
    public Optional<SkillFolder> folder(String owner, String name, int version) {
        if (!SkillName.isValid(name)) {
            return Optional.empty();
        }
        return transactions.read("read version " + version + " of skill " + name, connection -> {
            Optional<SkillVersion> found = SkillRows.version(connection, library(connection, owner, name), name, version);
            return found.isEmpty() || found.get().deleted() ? Optional.empty() : Optional.of(SkillRows.contents(connection, found.get()));
        });
    }

    // ------------------------------------------------------------------------------ writes

    @Override
    public Written write(SkillAccess who, SkillFolder folder, VersionSource source) {
        return inSequence(who.owner(), "write skill " + folder.name(), connection -> add(connection, who.owner(), folder, source));
    }

    @Override
    public List<Written> writeAll(SkillAccess who, List<SkillFolder> folders, VersionSource source) {
        return inSequence(who.owner(), "write " + folders.size() + " skills", connection -> {
            List<Written> written = new ArrayList<>();
            for (SkillFolder folder : folders) {
                written.add(add(connection, who.owner(), folder, source));
            }
            return List.copyOf(written);
        });
    }

    @Override
    public Written putFile(SkillAccess who, String name, SkillPath path, byte[] bytes, VersionSource source) {
        SkillName.of(name);
        byte[] copy = bytes.clone();
        return inSequence(who.owner(), "write " + path + " of skill " + name, connection -> {
            Optional<SkillFolder> base = liveFolder(connection, who.owner(), name);
            SkillFolder next;
            if (base.isPresent()) {
                next = base.get().with(path, copy, limits);
            } else if (path.isSkillMd()) {
                next = SkillFolder.of(name, Map.of(path, copy), limits);
            } else {
                throw missing(name);
            }
            return add(connection, who.owner(), next, source);
        });
    }

    @Override
    public Written removeFile(SkillAccess who, String name, SkillPath path, VersionSource source) {
        SkillName.of(name);
        return inSequence(who.owner(), "remove " + path + " of skill " + name, connection -> {
            SkillFolder base = liveFolder(connection, who.owner(), name).orElseThrow(() -> missing(name));
            if (base.file(path).isEmpty()) {
                throw new SkillException(SkillException.Kind.NOT_FOUND, "skill " + name + " has no file " + path + ".");
            }
            return add(connection, who.owner(), base.without(path), source);
        });
    }

    @Override
    public Optional<SkillVersion> delete(SkillAccess who, String name, VersionSource source) {
        SkillName.of(name);
        return inSequence(who.owner(), "delete skill " + name, connection -> tombstone(connection, who.owner(), name, source));
    }

    @Override
    public Written restore(SkillAccess who, String name, int version, VersionSource source) {
        SkillName.of(name);
        return inSequence(who.owner(), "restore version " + version + " of skill " + name, connection -> {
            SkillVersion old = SkillRows.version(connection, library(connection, who.owner(), name), name, version)
                    .orElseThrow(() -> new SkillException(SkillException.Kind.NOT_FOUND, "skill " + name + " has no version " + version
                            + ": skill history " + name + " lists its versions."));
            if (old.deleted()) {
                throw new SkillException("version " + version + " of skill " + name + " is the one that deleted it, and holds no files:"
                        + " restore a version before it.");
            }
            return add(connection, who.owner(), SkillRows.contents(connection, old), source.restoring(version));
        });
    }

    @Override
    public Written publish(SkillAccess who, String name, VersionSource source) {
        requireTeamAdmin(who);
        SkillName.of(name);
        return inSequence(SkillAccess.TEAM, "publish skill " + name, connection -> {
            SkillVersion own = liveOf(connection, who.owner(), name).orElseThrow(() -> missing(name));
            return add(connection, SkillAccess.TEAM, SkillRows.contents(connection, own), source);
        });
    }

    @Override
    public Optional<SkillVersion> unpublish(SkillAccess who, String name, VersionSource source) {
        requireTeamAdmin(who);
        SkillName.of(name);
        return inSequence(SkillAccess.TEAM, "unpublish skill " + name, connection -> tombstone(connection, SkillAccess.TEAM, name, source));
    }

    // ---------------------------------------------------------------------------- plumbing

    /** Runs {@code work}, which writes {@code owner}'s skills, after every other write of them on any instance. */
    private <T> T inSequence(String owner, String what, Transactions.SqlWork<T> work) {
        return transactions.writeInSequence(what, "skills of " + owner, ATTEMPTS, work);
    }

    /** Adds the next version of {@code owner}'s skill holding {@code folder}, unless its live version holds the same files. */
    private Written add(Connection connection, String owner, SkillFolder folder, VersionSource source) throws SQLException {
        String name = folder.name().value();
        Optional<SkillVersion> head = SkillRows.head(connection, owner, name);
        boolean live = head.isPresent() && !head.get().deleted();
        if (live && head.get().files().equals(folder.manifest())) {
            return new Written(head.get(), Written.Outcome.UNCHANGED);
        }
        SkillVersion next = new SkillVersion(owner, name, head.map(SkillVersion::version).orElse(0) + 1, clock.millis(), source,
                false, folder.document().description(), folder.manifest());
        SkillRows.insert(connection, next, folder);
        prune(connection, owner, name);
        return new Written(next, live ? Written.Outcome.UPDATED : Written.Outcome.CREATED);
    }

    private Optional<SkillVersion> tombstone(Connection connection, String owner, String name, VersionSource source) throws SQLException {
        Optional<SkillVersion> head = SkillRows.head(connection, owner, name);
        if (head.isEmpty() || head.get().deleted()) {
            return Optional.empty();
        }
        SkillVersion deleting = new SkillVersion(owner, name, head.get().version() + 1, clock.millis(), source, true,
                head.get().description(), List.of());
        SkillRows.insert(connection, deleting, null);
        prune(connection, owner, name);
        return Optional.of(deleting);
    }

    /** Drops the versions past the newest {@link SkillLimits#versionsKept()} that no person made by hand. */
    private void prune(Connection connection, String owner, String name) throws SQLException {
        if (!limits.prunes()) {
            return;
        }
        List<SkillVersion> versions = SkillRows.history(connection, owner, name);
        boolean removed = false;
        for (SkillVersion version : versions.subList(Math.min(limits.versionsKept(), versions.size()), versions.size())) {
            if (!version.source().byHand()) {
                SkillRows.remove(connection, version);
                removed = true;
            }
        }
        if (removed) {
            SkillRows.removeUnusedContents(connection, owner);
        }
    }

    /** The live version {@code owner} reads under {@code name}: theirs, else the team's. */
    private static Optional<SkillVersion> live(Connection connection, String owner, String name) throws SQLException {
        Optional<SkillVersion> own = liveOf(connection, owner, name);
        return own.isPresent() ? own : liveOf(connection, SkillAccess.TEAM, name);
    }

    private static Optional<SkillVersion> liveOf(Connection connection, String owner, String name) throws SQLException {
        return SkillRows.head(connection, owner, name).filter(head -> !head.deleted());
    }

    private static Optional<SkillFolder> liveFolder(Connection connection, String owner, String name) throws SQLException {
        Optional<SkillVersion> live = live(connection, owner, name);
        return live.isEmpty() ? Optional.empty() : Optional.of(SkillRows.contents(connection, live.get()));
    }

    /**
     * Whose skill {@code name} a person reads: their own while it is live; else the team's while that is live; else
     * their own (deleted) if they have one; else the team's (deleted, or none).
     */
    private static String library(Connection connection, String owner, String name) throws SQLException {
        Optional<SkillVersion> own = SkillRows.head(connection, owner, name);
        if (own.isPresent() && !own.get().deleted()) {
            return owner;
        }
        if (liveOf(connection, SkillAccess.TEAM, name).isPresent()) {
            return SkillAccess.TEAM;
        }
        return own.isPresent() ? owner : SkillAccess.TEAM;
    }

    private static List<SkillSummary> summaries(List<SkillVersion> live) {
        return live.stream().sorted(Comparator.comparing(SkillVersion::name))
                .map(v -> new SkillSummary(v.name(), v.description(), v.version(), v.createdAt(), v.team())).toList();
    }

    private static void requireTeamAdmin(SkillAccess who) {
        if (!who.teamAdmin()) {
            throw new SkillException(SkillException.Kind.FORBIDDEN, "only an admin of the team library may change it.");
        }
    }

    private static SkillException missing(String name) {
        return new SkillException(SkillException.Kind.NOT_FOUND, "there is no skill named " + name
                + ": create it with its SKILL.md first (skill set " + name + ").");
    }
}
