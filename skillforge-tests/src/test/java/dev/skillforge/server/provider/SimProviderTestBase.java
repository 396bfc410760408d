package dev.skillforge.server.provider;

import dev.skillforge.testkit.RecordingListener;
import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ModelStreamListener;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimResponder;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * What the tests of a provider client over loopback HTTP share: the simulated provider, started on
 * {@link #script} before each test and closed after it (with any call still running in the
 * background); a stop button and a listener for the calls; the client settings that keep the tests
 * fast; the standard call; and the ways to catch how a call failed.
 */
public abstract class SimProviderTestBase {

    protected static final String SYSTEM = "You forge skills.";
    protected static final String CACHE_KEY = "conv-42";
    /** Small delays so retry tests stay fast; Retry-After is capped at 100 ms by it. */
    protected static final RetryPolicy FAST_RETRY = new RetryPolicy(2, Duration.ofMillis(10), Duration.ofMillis(100));
    protected static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** {@link #TIMEOUT} for the answer to come and between its data. */
    protected static final StreamingHttp.Timeouts TIMEOUTS = timeouts(TIMEOUT);

    protected final SimScript script = new SimScript();
    protected final Cancellation cancellation = new Cancellation();
    protected final RecordingListener listener;
    protected SimProviderServer sim;
    private ExecutorService background;

    protected SimProviderTestBase() {
        this(new RecordingListener());
    }

    /** With {@code listener} as the tests' {@link #listener}. */
    protected SimProviderTestBase(RecordingListener listener) {
        this.listener = listener;
    }

    @BeforeEach
    void startSim() {
        sim = SimProviderServer.startOnLoopback(script, SimProviderServer.Options.DEFAULT.recordingRequests());
    }

    @AfterEach
    void stopSim() {
        if (background != null) {
            background.shutdownNow();
        }
        sim.close();
    }

    /** Replaces the simulation with one that answers as {@code responder} says instead of the script. */
    protected void restartSim(SimResponder responder) {
        restartSim(responder, SimProviderServer.Options.DEFAULT);
    }

    /** Replaces the simulation with one that answers as {@code responder} says, its models as {@code options} say. */
    protected void restartSim(SimResponder responder, SimProviderServer.Options options) {
        sim.close();
        sim = SimProviderServer.startOnLoopback(responder, options.recordingRequests());
    }

    /** {@link #TIMEOUT} for the answer to come, {@code idle} at most between its data. */
    protected static StreamingHttp.Timeouts timeouts(Duration idle) {
        return new StreamingHttp.Timeouts(TIMEOUT, idle);
    }

    protected static ModelCall call(Entry... entries) {
        return new ModelCall(SYSTEM, List.of(entries), CACHE_KEY);
    }

    /** Starts {@code provider} on {@code call} on another thread, streaming to {@code into}. */
    protected Future<ModelReply> inBackground(ModelProvider provider, ModelCall call, ModelStreamListener into) {
        if (background == null) {
            background = Executors.newSingleThreadExecutor();
        }
        return background.submit(() -> provider.stream(call, into, cancellation));
    }

    /**
     * Starts {@code provider} on a call whose stream stalls (keep-alive comments only) after "before",
     * streaming to {@code signalling}, and waits until it has.
     */
    protected Future<ModelReply> stallingCall(ModelProvider provider, RecordingListener signalling) throws InterruptedException {
        CountDownLatch stalled = signalling.arrivalOf("before");
        script.then(SimReply.of("before", "never").withFault(new SimReply.Stall(1)));
        Future<ModelReply> running = inBackground(provider, call(new Entry.User("hi")), signalling);
        assertThat(stalled.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("the stream reached the stall").isTrue();
        return running;
    }

    protected static ProviderException failure(Call call) {
        ProviderException e = catchThrowableOfType(ProviderException.class, call::run);
        assertThat(e).as("a ProviderException").isNotNull();
        return e;
    }

    /** The ProviderException a background call ended with, which must come within {@code within}. */
    protected static ProviderException backgroundFailure(Future<ModelReply> running, Duration within) throws Exception {
        try {
            ModelReply reply = running.get(within.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError("expected a ProviderException, got " + reply);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(ProviderException.class);
            return (ProviderException) e.getCause();
        }
    }

    @FunctionalInterface
    protected interface Call {
        Object run() throws Exception;
    }
}
