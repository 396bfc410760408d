package dev.skillforge.server.conversation;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/**
 * Who this server is, as lease owner: the same id across restarts on one data folder (kept in
 * {@value #ID_FILE}), so a server restarted after a crash recognises the leases its previous life
 * held: it marks the turns that life was running as interrupted and takes its conversations back at
 * once, instead of waiting for its own leases to expire. The id is used only while this process
 * holds an exclusive lock on {@value #LOCK_FILE} (the OS drops it when the process dies, however it
 * dies); a second server started on the same folder meanwhile gets a fresh random id.
 */
public final class InstanceIdentity implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(InstanceIdentity.class);

    static final String ID_FILE = "instance-id";
    static final String LOCK_FILE = "instance.lock";

    private final String id;
    private final FileChannel lockChannel;

    private InstanceIdentity(String id, FileChannel lockChannel) {
        this.id = id;
        this.lockChannel = lockChannel;
    }

    /** A random identity, for servers without a data folder of their own (tests). */
    public static InstanceIdentity random() {
        return new InstanceIdentity(UUID.randomUUID().toString(), null);
    }

    /** The identity kept in {@code dataDir}, created on first use. */
    public static InstanceIdentity of(Path dataDir) throws IOException {
        Files.createDirectories(dataDir);
        FileChannel channel = FileChannel.open(dataDir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // this JVM runs another server on the folder
        }
        if (lock == null) {
            channel.close();
            log.warn("Another server runs on the data folder {}: this one takes a temporary instance id", dataDir);
            return random();
        }
        Path file = dataDir.resolve(ID_FILE);
        String id = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8).strip() : "";
        if (!isUuid(id)) {
            id = UUID.randomUUID().toString();
            Path temp = dataDir.resolve(ID_FILE + ".tmp");
            Files.writeString(temp, id + "\n", StandardCharsets.UTF_8);
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        return new InstanceIdentity(id, channel);
    }

    public String id() {
        return id;
    }

    private static boolean isUuid(String text) {
        try {
            return UUID.fromString(text).toString().equals(text);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Gives the folder up (the lock goes with the channel). */
    @Override
    public void close() {
        if (lockChannel != null) {
            try {
                lockChannel.close();
            } catch (IOException e) {
                throw new UncheckedIOException("could not give up the data folder's lock", e);
            }
        }
    }
}
