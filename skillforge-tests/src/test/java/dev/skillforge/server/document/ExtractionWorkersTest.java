package dev.skillforge.server.document;

import dev.skillforge.core.agent.Cancellation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The workers that read attachments: a caller that leaves stops its work, a busy server says so, memory runs out cleanly. */
class ExtractionWorkersTest {

    @Test
    void aCallerThatGoesAwayStopsItsWorkAtItsNextCheckAndFreesTheWorker() throws Exception {
        ExtractionWorkers workers = new ExtractionWorkers(1, 4, Duration.ofSeconds(30), Duration.ofMinutes(5), InstantSource.system());
        Cancellation client = new Cancellation();
        CountDownLatch working = new CountDownLatch(1);
        CompletableFuture<DocumentException> workEnded = new CompletableFuture<>();
        CompletableFuture<String> endless = CompletableFuture.supplyAsync(() -> workers.run(client, deadline -> {
            working.countDown();
            try {
                while (true) {
                    deadline.check("'endless.pdf'"); // as PDFBox's operators and jsoup's elements do
                }
            } catch (DocumentException e) {
                workEnded.complete(e);
                throw e;
            }
        }));
        assertThat(working.await(10, TimeUnit.SECONDS)).isTrue();

        client.cancel("the client closed the connection");

        assertThatThrownBy(() -> endless.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOfSatisfying(DocumentException.class, e -> {
                    assertThat(e.kind()).isEqualTo(DocumentException.Kind.STOPPED);
                    assertThat(e.getMessage()).isEqualTo("The attachments were not read: the client closed the connection");
                });
        assertThat(workEnded.get(5, TimeUnit.SECONDS).getMessage()).as("the work itself stopped")
                .isEqualTo("'endless.pdf' was not read: the client closed the connection");
        String next = workers.run(new Cancellation(), deadline -> "next");
        assertThat(next).as("the worker is free again").isEqualTo("next");
    }

    @Test
    void whenEveryWorkerIsBusyACallerWaitsItsTurnAWhileThenIsToldToComeBack() throws Exception {
        ExtractionWorkers workers = new ExtractionWorkers(1, 4, Duration.ofMillis(200), Duration.ofMinutes(5), InstantSource.system());
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch working = new CountDownLatch(1);
        CompletableFuture<String> held = CompletableFuture.supplyAsync(() -> workers.run(new Cancellation(), deadline -> {
            working.countDown();
            await(release);
            return "done";
        }));
        assertThat(working.await(10, TimeUnit.SECONDS)).isTrue();

        assertThatThrownBy(() -> workers.run(new Cancellation(), deadline -> "never")).isInstanceOfSatisfying(DocumentException.class, e -> {
            assertThat(e.kind()).isEqualTo(DocumentException.Kind.BUSY);
            assertThat(e.code()).isEqualTo("documents_busy");
            assertThat(e.getMessage()).contains("send the message again in a moment");
        });
        release.countDown();
        assertThat(held.get(10, TimeUnit.SECONDS)).isEqualTo("done");
    }

    @Test
    void workThatRunsOutOfMemoryIsARefusalAndTheWorkerGoesOn() {
        ExtractionWorkers workers = new ExtractionWorkers(1, 4, Duration.ofSeconds(30), Duration.ofMinutes(5), InstantSource.system());

        assertThatThrownBy(() -> workers.run(new Cancellation(), deadline -> {
            throw new OutOfMemoryError("Java heap space");
        })).isInstanceOfSatisfying(DocumentException.class, e -> {
            assertThat(e.kind()).isEqualTo(DocumentException.Kind.TOO_LARGE);
            assertThat(e.getMessage()).isEqualTo("The attachment needs more memory to read than this server has to spare");
        });
        String next = workers.run(new Cancellation(), deadline -> "next");
        assertThat(next).isEqualTo("next");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
