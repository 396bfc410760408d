package dev.skillforge.server.fleet;

import dev.skillforge.server.conversation.RunElsewhere;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A turn followed on another instance ({@link Fleet#follow}), as one client reads it: its events as they arrive,
 * each with its id and in the wire form, from the client's last id on, ending with the turn. The events come from
 * the instance's one copy of that turn ({@link MirroredRun}), shared by every client here that follows it. Read by
 * one thread; {@link #close()} when done.
 */
public final class RemoteRun implements RunElsewhere {

    private final MirroredRun run;
    private final Runnable leave;
    private long last;
    private boolean closed;

    RemoteRun(MirroredRun run, long afterId, Runnable leave) {
        this.run = run;
        this.last = afterId;
        this.leave = leave;
    }

    /**
     * The next events, waiting up to {@code wait}: an empty list means nothing new yet.
     *
     * @return empty when the turn ended, or the other instance went silent for {@link MirroredRun#SILENCE}
     */
    @Override
    public Optional<List<Frame>> next(Duration wait) {
        try {
            List<Frame> frames = run.framesAfter(last, wait);
            if (frames == null) {
                return Optional.empty();
            }
            if (!frames.isEmpty()) {
                last = frames.getLast().id();
            }
            return Optional.of(frames);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            leave.run();
        }
    }
}
