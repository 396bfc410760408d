package dev.skillforge.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.CommandResult;
import dev.skillforge.core.shell.ShellCommand;
import dev.skillforge.server.TemporaryFolders;
import dev.skillforge.server.exec.CommandPolicy;
import dev.skillforge.server.exec.CommandStats;
import dev.skillforge.server.exec.ProcessRunner;
import dev.skillforge.server.exec.Sandbox;
import dev.skillforge.server.exec.SandboxSettings;
import dev.skillforge.server.exec.Workspace;
import dev.skillforge.server.exec.WorkspaceQuota;
import dev.skillforge.server.exec.Workspaces;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.SandboxFolders;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the sandbox costs per command: {@code true} run through the {@link ProcessRunner} (checks,
 * start, output reader, kill check) in bubblewrap and without a sandbox, alternately, so both see
 * the same machine noise. The difference of the medians is the sandbox's overhead.
 */
final class SandboxOverheadBench {

    private static final int WARM_UP = 20;

    private SandboxOverheadBench() {
    }

    static void run(Path out, int runs) throws Exception {
        Path work = Files.createTempDirectory("skillforge-bench");
        try {
            Workspaces workspaces = SandboxFolders.workspaces(work, WorkspaceQuota.DEFAULT);
            Workspace workspace = workspaces.open("bench", "true");
            CommandPolicy policy = CommandPolicy.resolve(List.of("true"), Map.of());
            ProcessRunner.Limits limits = new ProcessRunner.Limits(java.time.Duration.ofSeconds(10), 1024 * 1024, 1);
            ProcessRunner bare = new ProcessRunner(policy,
                    Sandbox.forPrograms(SandboxSettings.DEFAULT.with(SandboxSettings.Kind.NONE, false), policy, workspaces), limits,
                    new CommandStats());
            ProcessRunner sandboxed = new ProcessRunner(policy, Sandbox.forPrograms(SandboxSettings.DEFAULT, policy, workspaces),
                    limits, new CommandStats());
            for (int i = 0; i < WARM_UP; i++) {
                millis(bare, workspace);
                millis(sandboxed, workspace);
            }
            double[] bareTimes = new double[runs];
            double[] sandboxedTimes = new double[runs];
            for (int i = 0; i < runs; i++) {
                bareTimes[i] = millis(bare, workspace);
                sandboxedTimes[i] = millis(sandboxed, workspace);
            }
            report(out, runs, bareTimes, sandboxedTimes);
        } finally {
            TemporaryFolders.delete(work);
        }
    }

    private static double millis(ProcessRunner runner, Workspace workspace) {
        long start = System.nanoTime();
        CommandResult result = runner.run(ShellCommand.of(0, 0, "true"), workspace, new Cancellation());
        double took = (System.nanoTime() - start) / 1e6;
        if (result.exitCode() != 0) {
            throw new IllegalStateException("true failed: " + result.output());
        }
        return took;
    }

    private static void report(Path out, int runs, double[] bare, double[] sandboxed) throws Exception {
        double overhead = HotTurnLatencyBench.percentile(sandboxed, 50) - HotTurnLatencyBench.percentile(bare, 50);
        System.out.println();
        System.out.printf(Locale.ROOT, "'true' through the process runner (%d runs each, interleaved, after %d warm-up runs; %d cores, load %.1f)%n",
                runs, WARM_UP, Runtime.getRuntime().availableProcessors(), java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                        .getSystemLoadAverage());
        System.out.println("| sandbox        | median ms | p90 ms | p99 ms | max ms |");
        System.out.println("|----------------|----------:|-------:|-------:|-------:|");
        row("none", bare);
        row("bwrap", sandboxed);
        System.out.printf(Locale.ROOT, "median overhead of the sandbox: %+.3f ms per command%n", overhead);

        ObjectNode json = Json.object().put("benchmark", "sandbox").put("runs", runs).put("warmUpRuns", WARM_UP)
                .put("medianOverheadMs", overhead);
        json.set("none", HotTurnLatencyBench.stats(bare));
        json.set("bwrap", HotTurnLatencyBench.stats(sandboxed));
        Files.createDirectories(out);
        Path file = out.resolve("sandbox-overhead.json");
        Files.writeString(file, Json.write(json) + "\n");
        System.out.println("written: " + file.toAbsolutePath());
    }

    private static void row(String label, double[] times) {
        System.out.printf(Locale.ROOT, "| %-14s | %9.3f | %6.3f | %6.3f | %6.3f |%n", label, HotTurnLatencyBench.percentile(times, 50),
                HotTurnLatencyBench.percentile(times, 90), HotTurnLatencyBench.percentile(times, 99), HotTurnLatencyBench.percentile(times, 100));
    }
}
