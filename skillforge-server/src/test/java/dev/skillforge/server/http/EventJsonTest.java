package dev.skillforge.server.http;

import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.core.agent.StopReason;
import dev.skillforge.core.agent.Usage;
import org.junit.jupiter.api.Test;

import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The wire form of every event type, byte for byte, as a client reads it (docs/api.md). */
class EventJsonTest {

    @Test
    void everyEventTypeIsWrittenWithItsFieldsInOrder() throws Exception {
        Map<AgentEvent, String> expected = new LinkedHashMap<>();
        expected.put(new AgentEvent.Text(0, "h\u00e9llo \"q\" \\ \n\t\u0001 \uD83D\uDE00 </script>"),
                "{\"type\":\"text\",\"iteration\":0,\"content\":\"h\u00e9llo \\\"q\\\" \\\\ \\n\\t\\u0001 \uD83D\uDE00 </script>\"}");
        expected.put(new AgentEvent.Reasoning(1, "think"), "{\"type\":\"reasoning\",\"iteration\":1,\"content\":\"think\"}");
        expected.put(new AgentEvent.ToolCall(0, "cmd-0-0", "skill list"),
                "{\"type\":\"tool-call\",\"iteration\":0,\"commandId\":\"cmd-0-0\",\"command\":\"skill list\"}");
        expected.put(new AgentEvent.ToolStart(0, "cmd-0-0", "skill list"),
                "{\"type\":\"tool-start\",\"iteration\":0,\"commandId\":\"cmd-0-0\",\"command\":\"skill list\"}");
        expected.put(new AgentEvent.ToolResult(0, "cmd-0-0", "skill list", "none\n", 126),
                "{\"type\":\"tool-result\",\"iteration\":0,\"commandId\":\"cmd-0-0\",\"command\":\"skill list\",\"result\":\"none\\n\",\"exitCode\":126}");
        expected.put(new AgentEvent.RawContent(2, "raw"), "{\"type\":\"raw-content\",\"iteration\":2,\"rawContent\":\"raw\"}");
        expected.put(new AgentEvent.ToolOutput(2, "$ ls\nx"), "{\"type\":\"tool-output\",\"iteration\":2,\"toolOutput\":\"$ ls\\nx\"}");
        expected.put(new AgentEvent.Source(0, "https://a.example/", null),
                "{\"type\":\"source\",\"iteration\":0,\"url\":\"https://a.example/\",\"title\":null}");
        expected.put(new AgentEvent.UsageReport(0, new Usage(1200L, null, 1024L, 5_000_000_000L)),
                "{\"type\":\"usage\",\"iteration\":0,\"inputTokens\":1200,\"cacheReadTokens\":1024,\"cacheWriteTokens\":5000000000}");
        expected.put(new AgentEvent.ContextCut(3, 7, "[earlier]"),
                "{\"type\":\"context-cut\",\"iteration\":3,\"keptFrom\":7,\"note\":\"[earlier]\"}");
        expected.put(new AgentEvent.IterationEnd(0, true), "{\"type\":\"iteration-end\",\"iteration\":0,\"hasMoreCommands\":true}");
        expected.put(new AgentEvent.Done(1, StopReason.COMPLETE, 2, 1, new Usage(10L, 4L, null, null)),
                "{\"type\":\"done\",\"iteration\":1,\"stopReason\":\"complete\",\"iterations\":2,\"commands\":1,\"inputTokens\":10,\"outputTokens\":4}");
        expected.put(new AgentEvent.Error(0, "The provider failed", "provider_failure"),
                "{\"type\":\"error\",\"iteration\":0,\"message\":\"The provider failed\",\"code\":\"provider_failure\"}");

        for (Map.Entry<AgentEvent, String> event : expected.entrySet()) {
            StringWriter text = new StringWriter();
            text.write('x'); // written after what the writer holds, which stays open
            EventJson.write(event.getKey(), text);
            text.write('y');
            assertThat(text.toString()).isEqualTo("x" + event.getValue() + "y");
            assertThat(EventJson.write(event.getKey())).isEqualTo(event.getValue());
        }
    }
}
