package dev.skillforge.server.mcp;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The MCP SDK's HTTP transport (2.1.0) sweeps idle sessions on a single-thread Reactor scheduler of its own,
 * made with {@code Schedulers.newSingle(name)}: a non-daemon thread, and closing the transport stops the
 * sweeping but never disposes the scheduler. Each server would leave a thread that keeps the JVM from
 * exiting once everything else has stopped (a benchmark that never ends, a test JVM that grows a thread
 * per server). Reactor's single-thread schedulers are made daemon here instead, once per JVM; SkillForge
 * uses Reactor only through the SDK.
 */
final class ReactorThreads {

    private static final AtomicBoolean INSTALLED = new AtomicBoolean();

    private ReactorThreads() {
    }

    static void daemonSingles() {
        if (!INSTALLED.compareAndSet(false, true)) {
            return;
        }
        Schedulers.setFactory(new Schedulers.Factory() {
            @Override
            public Scheduler newSingle(ThreadFactory threadFactory) {
                return Schedulers.Factory.super.newSingle(runnable -> {
                    Thread thread = threadFactory.newThread(runnable);
                    thread.setDaemon(true);
                    return thread;
                });
            }
        });
    }
}
