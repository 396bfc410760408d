package dev.skillforge.server.fleet;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** One instance's copy of a turn another instance runs, read by several clients; time is injected, nothing waits. */
class MirroredRunTest {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private MirroredRun run(long from, long stream) {
        return new MirroredRun(from, stream, nanos::get);
    }

    private static void frames(MirroredRun run, long stream, long... ids) {
        for (long id : ids) {
            run.accept(stream, "frame " + id + " 1/1 {\"n\":" + id + "}");
        }
    }

    private static List<Long> ids(List<RemoteRun.Frame> frames) {
        return frames == null ? null : frames.stream().map(RemoteRun.Frame::id).toList();
    }

    private static List<Long> after(MirroredRun run, long afterId) throws InterruptedException {
        return ids(run.framesAfter(afterId, Duration.ZERO));
    }

    @Test
    void eachClientReadsOnFromItsOwnLastIdAndTheRunEndsWithTheTurn() throws Exception {
        MirroredRun run = run(0, 1);
        run.accept(1, RelayMessages.HELLO);
        assertThat(run.awaitAnswer(Duration.ZERO)).isTrue();
        frames(run, 1, 1, 2, 3);

        assertThat(after(run, 0)).containsExactly(1L, 2L, 3L);
        assertThat(after(run, 2)).containsExactly(3L);
        assertThat(after(run, 3)).as("nothing new yet").isEmpty();

        run.accept(1, RelayMessages.END);
        assertThat(after(run, 3)).as("ended, nothing left").isNull();
        assertThat(after(run, 1)).as("a client behind still reads the rest").containsExactly(2L, 3L);
    }

    @Test
    void askingAgainFromAnEarlierIdDropsWhatCameAndTheOldStreamSoNothingArrivesTwiceOrOutOfOrder() throws Exception {
        MirroredRun run = run(5, 1);
        run.accept(1, RelayMessages.HELLO);
        frames(run, 1, 6, 7);
        assertThat(run.covers(4)).isFalse();

        run.restart(2, 2);
        run.giveUp(1); // what happens late to the first request says nothing of the second
        run.asked(1);
        nanos.addAndGet(MirroredRun.SILENCE.toNanos() + 1);
        frames(run, 1, 8); // the old relay, still on its way
        assertThat(after(run, 7)).as("not ended, and silence not counted before the second request is sent").isEmpty();
        run.accept(2, RelayMessages.HELLO);
        frames(run, 2, 3, 4, 5, 6, 7, 8);

        assertThat(after(run, 2)).containsExactly(3L, 4L, 5L, 6L, 7L, 8L);
        assertThat(after(run, 7)).as("the client that had seen 7 gets 8, once").containsExactly(8L);
        assertThat(run.covers(2)).isTrue();
    }

    @Test
    void nothingToFollowIsAnAnswerOnlyBeforeTheTurnWasAnswered() throws Exception {
        MirroredRun seenAll = run(9, 1);
        seenAll.accept(1, RelayMessages.NONE);
        assertThat(seenAll.awaitAnswer(Duration.ZERO)).isFalse();

        MirroredRun caughtUp = run(0, 1);
        caughtUp.accept(1, RelayMessages.HELLO);
        frames(caughtUp, 1, 1);
        caughtUp.listeningLost();
        caughtUp.resume(2);
        caughtUp.accept(2, RelayMessages.NONE); // it had every event, and missed only the end
        assertThat(caughtUp.awaitAnswer(Duration.ZERO)).isTrue();
        assertThat(after(caughtUp, 0)).containsExactly(1L);
        assertThat(after(caughtUp, 1)).isNull();
    }

    @Test
    void silenceEndsTheRunButNotWhileThisInstanceCannotListenAndItGoesOnAfterTheLastEventItGot() throws Exception {
        MirroredRun run = run(0, 1);
        run.asked(run.stream());
        run.accept(1, RelayMessages.HELLO);
        frames(run, 1, 1, 2);

        run.listeningLost();
        nanos.addAndGet(Duration.ofMinutes(1).toNanos());
        assertThat(after(run, 2)).as("this instance's own session is down: the other one may be fine").isEmpty();
        assertThat(run.resume(2)).as("asks again after the last event received").isEqualTo(2);
        run.asked(run.stream());
        frames(run, 1, 3); // lost with the old session, and dropped if it arrives late
        frames(run, 2, 3);
        assertThat(after(run, 2)).containsExactly(3L);

        nanos.addAndGet(MirroredRun.SILENCE.toNanos());
        assertThat(after(run, 3)).as("exactly the silence: still waiting").isEmpty();
        nanos.addAndGet(1);
        assertThat(after(run, 3)).as("the other instance is gone").isNull();
    }

    @Test
    void noAnswerInTimeEndsTheRunForEveryClientUnlessThisInstanceCannotListen() throws Exception {
        MirroredRun unanswered = run(0, 1);
        unanswered.asked(1);
        assertThat(unanswered.awaitAnswer(Duration.ZERO)).isFalse();
        assertThat(unanswered.ended()).isTrue();

        MirroredRun deaf = run(0, 1);
        deaf.listeningLost();
        deaf.asked(1);
        assertThat(deaf.awaitAnswer(Duration.ZERO)).isFalse();
        assertThat(deaf.ended()).as("asked again once this instance listens").isFalse();
    }

    @Test
    void silenceCountsFromTheRequestNotWhileItWaitsToBeSent() throws Exception {
        MirroredRun run = run(0, 1);
        nanos.addAndGet(Duration.ofMinutes(1).toNanos()); // the request waits for a pooled session
        assertThat(after(run, 0)).isEmpty();

        run.asked(run.stream());
        nanos.addAndGet(MirroredRun.SILENCE.toNanos());
        assertThat(after(run, 0)).isEmpty();
        nanos.addAndGet(1);
        assertThat(after(run, 0)).isNull();
    }

    @Test
    void whenTheRequestCannotBeSentTheClientsWaitingForTheAnswerAreToldAtOnce() throws Exception {
        MirroredRun run = run(0, 1);
        Thread.ofVirtual().start(() -> run.giveUp(1));
        assertThat(run.awaitAnswer(Duration.ofMinutes(1))).isFalse();
        assertThat(run.ended()).isTrue();
    }
}
