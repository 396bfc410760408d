package dev.skillforge.testkit;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves forward a fixed step each time it is read: a deadline passes after a known number of looks, without waiting. */
public final class TickingClock implements InstantSource {

    private final AtomicLong millis = new AtomicLong();
    private final long stepMillis;

    public TickingClock(Duration step) {
        this.stepMillis = step.toMillis();
    }

    @Override
    public long millis() {
        return millis.getAndAdd(stepMillis);
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }
}
