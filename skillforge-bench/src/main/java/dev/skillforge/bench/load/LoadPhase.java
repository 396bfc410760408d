package dev.skillforge.bench.load;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * One measured step of the load benchmark: {@code concurrency} conversations at once, {@code turns}
 * turns each, against one port; meanwhile the CPU time and the resident memory of the process that
 * serves them (when it is watched) are read from the operating system.
 */
final class LoadPhase {

    /** How long the watched process is left idle before a step, to measure what it spends doing nothing. */
    private static final Duration IDLE = Duration.ofSeconds(3);

    /**
     * What a step measured. {@code serverCpu}, {@code idleCpu} (over {@link #IDLE} just before the step) and
     * {@code peakRssBytes} are 0 when no process was watched.
     */
    record Result(int concurrency, int turnsEach, List<LoadConversation.Turn> turns, List<String> errors,
                  Duration wall, Duration serverCpu, Duration idleCpu, long peakRssBytes, Map<String, Double> cpuMillisByThreads) {

        double cpuMillisPerTurn() {
            return turns.isEmpty() ? Double.NaN : serverCpu.toNanos() / 1e6 / turns.size();
        }

        /** CPU per turn less what the process spends idle (timers, leases, the compiler's leftovers) over the same time. */
        double marginalCpuMillisPerTurn() {
            double idleMillis = idleCpu.toNanos() / 1e6 * wall.toNanos() / IDLE.toNanos();
            return turns.isEmpty() ? Double.NaN : Math.max(0, serverCpu.toNanos() / 1e6 - idleMillis) / turns.size();
        }

        /**
         * CPU per turn less what the JIT compiler's threads spent in the step: the compiler's work fades as a server
         * runs on (it is still recompiling after a change of load), the turns' own cost does not.
         */
        double cpuMillisPerTurnWithoutCompiler() {
            double compiler = cpuMillisByThreads.entrySet().stream().filter(e -> e.getKey().contains("CompilerThre"))
                    .mapToDouble(Map.Entry::getValue).sum();
            return turns.isEmpty() ? Double.NaN : Math.max(0, serverCpu.toNanos() / 1e6 - compiler) / turns.size();
        }

        double[] firstTextMillis() {
            return turns.stream().mapToDouble(turn -> turn.firstTextNanos() / 1e6).toArray();
        }

        double[] turnMillis() {
            return turns.stream().mapToDouble(turn -> turn.totalNanos() / 1e6).toArray();
        }
    }

    private LoadPhase() {
    }

    static Result run(int concurrency, int turnsEach, IntFunction<LoadConversation> conversation, ProcessHandle watched)
            throws InterruptedException {
        return run(concurrency, turnsEach, Duration.ZERO, conversation, watched);
    }

    /**
     * As {@link #run(int, int, IntFunction, ProcessHandle)}, the conversations' first turns spread evenly over {@code spread}
     * (the {@code i}-th starts {@code spread × i / concurrency} after the step's start): with none, all start in the same
     * millisecond, and as every turn takes about as long, they stay in step, arriving in bursts; spread over a turn's
     * length they arrive evenly, as independent users would.
     */
    static Result run(int concurrency, int turnsEach, Duration spread, IntFunction<LoadConversation> conversation,
                      ProcessHandle watched) throws InterruptedException {
        List<LoadConversation.Turn> turns = Collections.synchronizedList(new ArrayList<>());
        List<String> errors = Collections.synchronizedList(new ArrayList<>());
        Duration idleCpu = Duration.ZERO;
        if (watched != null) {
            Duration before = cpu(watched);
            Thread.sleep(IDLE);
            idleCpu = cpu(watched).minus(before);
        }
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch connected = new CountDownLatch(concurrency);
        List<Thread> clients = new ArrayList<>();
        for (int i = 0; i < concurrency; i++) {
            LoadConversation client = conversation.apply(i);
            long delayNanos = spread.toNanos() * i / concurrency;
            clients.add(Thread.ofVirtual().start(() -> {
                try (client) {
                    try {
                        client.connect();
                    } catch (Exception e) {
                        errors.add("connect: " + e); // its first turn tries again
                    } finally {
                        connected.countDown();
                    }
                    go.await();
                    if (delayNanos > 0) {
                        Thread.sleep(Duration.ofNanos(delayNanos));
                    }
                    for (int t = 0; t < turnsEach; t++) {
                        try {
                            turns.add(client.turn());
                        } catch (Exception e) {
                            errors.add(e.toString());
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        AtomicLong peakRss = new AtomicLong();
        Thread sampler = watched == null ? null : Thread.ofVirtual().start(() -> sampleRss(watched, peakRss));
        connected.await();
        ThreadCpu.Snapshot threadsBefore = watched == null ? null : ThreadCpu.take(watched);
        Duration cpuBefore = cpu(watched);
        long start = System.nanoTime();
        go.countDown();
        for (Thread client : clients) {
            client.join();
        }
        Duration wall = Duration.ofNanos(System.nanoTime() - start);
        Duration cpuUsed = cpu(watched).minus(cpuBefore);
        Map<String, Double> byThreads = watched == null ? Map.of() : ThreadCpu.between(threadsBefore, ThreadCpu.take(watched));
        if (sampler != null) {
            sampler.interrupt();
            sampler.join();
        }
        return new Result(concurrency, turnsEach, List.copyOf(turns), List.copyOf(errors), wall, cpuUsed, idleCpu, peakRss.get(), byThreads);
    }

    /** The process's user and system CPU time so far (Linux reads it from /proc, in 10 ms ticks). */
    static Duration cpu(ProcessHandle process) {
        return process == null ? Duration.ZERO : process.info().totalCpuDuration().orElse(Duration.ZERO);
    }

    private static void sampleRss(ProcessHandle process, AtomicLong peak) {
        while (!Thread.currentThread().isInterrupted()) {
            peak.accumulateAndGet(rssBytes(process), Math::max);
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The process's resident set now ({@code VmRSS} of /proc/PID/status), 0 when it cannot be read. */
    static long rssBytes(ProcessHandle process) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (Exception e) {
            return 0;
        }
        return 0;
    }
}
