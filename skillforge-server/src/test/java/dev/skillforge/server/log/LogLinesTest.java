package dev.skillforge.server.log;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.Encoder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server's own logging configuration ({@code logback.xml}), its console encoder captured: whatever
 * a message, an argument or an exception holds, a log line stays one line and carries no control
 * character.
 */
class LogLinesTest {

    /** Every character that must not reach the log raw, each in a word of its own. */
    private static final String HOSTILE = "a\nFAKE b\r\nFAKE c\rd\u0085FAKE e\u2028FAKE f\u2029FAKE g\u000bh\u000ci\u0000j"
            + "\u001b[31mk\u007fl\u009bm\u202En\u2066o\tp";
    private static final String ESCAPED = "a\\nFAKE b\\r\\nFAKE c\\rd\\u0085FAKE e\\u2028FAKE f\\u2029FAKE g\\u000bh\\u000ci\\u0000j"
            + "\\u001b[31mk\\u007fl\\u009bm\\u202en\\u2066o\\tp";

    private final LoggerContext context = new LoggerContext();
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    @BeforeEach
    void configureAsTheServerDoes() throws Exception {
        URL config = LogLinesTest.class.getResource("/logback.xml");
        assertThat(config).as("the server's logback.xml on the class path").isNotNull();
        context.setMDCAdapter(new LogbackMDCAdapter()); // a context of our own: slf4j's binding gives one only to its own
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(config);
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        @SuppressWarnings("unchecked")
        Encoder<ILoggingEvent> encoder = ((OutputStreamAppender<ILoggingEvent>) root.getAppender("STDERR")).getEncoder();
        root.detachAppender("STDERR"); // its encoder now writes here instead of to the console
        OutputStreamAppender<ILoggingEvent> capture = new OutputStreamAppender<>();
        capture.setContext(context);
        capture.setEncoder(encoder);
        capture.setOutputStream(captured);
        capture.start();
        root.addAppender(capture);
    }

    @AfterEach
    void stop() {
        context.stop();
    }

    @Test
    void aMessageAndItsArgumentsStayOneLineWithEveryControlAndLineBreakEscaped() {
        context.getLogger("dev.skillforge.server.exec.ProcessRunner").warn("Refused command {}: " + HOSTILE, HOSTILE);

        List<String> lines = lines();
        assertThat(lines).hasSize(1);
        assertThat(lines.getFirst()).contains(" WARN ").endsWith("ProcessRunner - Refused command " + ESCAPED + ": " + ESCAPED);
        assertNoRawControls();
    }

    @Test
    void anExceptionsMessagesAreEscapedWhileItsStackTraceKeepsOneFramePerLine() {
        IllegalStateException cause = new IllegalStateException("cause\u2028FAKE cause line");
        IllegalArgumentException failure = new IllegalArgumentException(HOSTILE, cause);
        failure.addSuppressed(new RuntimeException("suppressed\nFAKE suppressed line"));

        context.getLogger("dev.skillforge.server.run.AgentRun").error("run {} failed", "conv-1", failure);

        List<String> lines = lines();
        assertThat(lines.getFirst()).contains(" ERROR ").endsWith("AgentRun - run conv-1 failed");
        assertThat(lines.get(1)).isEqualTo("java.lang.IllegalArgumentException: " + ESCAPED);
        assertThat(lines).anySatisfy(line -> assertThat(line).contains("Suppressed: java.lang.RuntimeException: suppressed\\nFAKE suppressed line"));
        assertThat(lines).anySatisfy(line -> assertThat(line).isEqualTo("Caused by: java.lang.IllegalStateException: cause\\u2028FAKE cause line"));
        assertThat(lines.subList(2, lines.size())).allSatisfy(line ->
                assertThat(line).matches("\t+(at |\\.\\.\\. |Suppressed: ).*|Caused by: .*"));
        assertNoRawControls();
    }

    @Test
    void aMessageOfMegabytesIsCutToItsStartAndSaysHowMuchWasLeftOut() {
        String name = "n".repeat(8_000_000);

        context.getLogger("dev.skillforge.server.mcp.SkillForgeMcp").info("MCP client {} {} connected", name, "1.0");
        context.getLogger("dev.skillforge.server.mcp.ProtocolErrors").error("MCP failed", new IllegalStateException(name));

        List<String> lines = lines();
        assertThat(lines.getFirst()).endsWith("SkillForgeMcp - MCP client " + "n".repeat(LogText.MAX_CHARS - "MCP client ".length())
                + "… (" + (8_000_000 + " 1.0 connected".length() - (LogText.MAX_CHARS - "MCP client ".length())) + " more characters)");
        assertThat(lines.get(2)).startsWith("java.lang.IllegalStateException: nnn").endsWith(" more characters)")
                .hasSizeLessThan(LogText.MAX_CHARS + 100);
    }

    private List<String> lines() {
        String text = captured.toString(StandardCharsets.UTF_8);
        assertThat(text).endsWith("\n");
        return Arrays.asList(text.substring(0, text.length() - 1).split("\n", -1));
    }

    /** Only the line feeds between lines and the tabs that indent stack frames are raw; no line is forged. */
    private void assertNoRawControls() {
        for (String line : lines()) {
            assertThat(line.replaceFirst("^\t+", "").chars().filter(c -> LogText.needsEscape((char) c)))
                    .as("raw control characters in %s", line).isEmpty();
            assertThat(line).doesNotStartWith("FAKE");
        }
    }
}
