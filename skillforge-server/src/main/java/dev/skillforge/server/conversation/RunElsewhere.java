package dev.skillforge.server.conversation;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A turn another instance runs, as one client here reads it ({@link OtherInstances#follow}): its events in the wire
 * form, from the client's last id on, ending with the turn. Read by one thread; {@link #close()} when done.
 */
public interface RunElsewhere extends AutoCloseable {

    /** One event: its id (the SSE {@code id:}) and its JSON. */
    record Frame(long id, String json) {
    }

    /**
     * The next events, waiting up to {@code wait}: an empty list means nothing new yet.
     *
     * @return empty when the turn ended, or the instance running it went silent
     */
    Optional<List<Frame>> next(Duration wait);

    @Override
    void close();
}
