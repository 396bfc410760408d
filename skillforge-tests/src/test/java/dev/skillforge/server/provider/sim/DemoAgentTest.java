package dev.skillforge.server.provider.sim;

import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SseClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The offline demo behaves like a plausible skill agent through the real server and the real skill commands. */
class DemoAgentTest {

    @Test
    void learningSomethingListsSkillsFirstThenSavesOne(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new DemoAgent(Duration.ZERO))) {
            List<SseClient.Event> events = turn(server, "Learn how to make cold brew coffee");

            assertThat(commands(events)).containsExactly("skill list", "skill set cold-brew-coffee");
            assertThat(events.stream().filter(e -> e.type().equals("raw-content")).findFirst().orElseThrow().text("rawContent"))
                    .startsWith(DemoAgent.SIMULATION_NOTICE + "\n");
            assertThat(events.getLast().text("stopReason")).isEqualTo("complete");
            assertThat(server.skills.get("cold-brew-coffee")).get().asString().startsWith("---\nname: cold-brew-coffee\n");
            assertThat(lastRawContent(events)).startsWith("Saved skill cold-brew-coffee (created");
        }
    }

    @Test
    void askingWhatSkillsExistAnswersFromTheToolOutput(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new DemoAgent(Duration.ZERO))) {
            turn(server, "Learn how to make cold brew coffee");

            List<SseClient.Event> events = turn(server, "What skills do I have?");

            assertThat(commands(events)).containsExactly("skill list");
            assertThat(lastRawContent(events)).contains("- cold-brew-coffee:");
        }
    }

    @Test
    void showingASkillWhoseNameHoldsAVerbReadsIt(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new DemoAgent(Duration.ZERO))) {
            turn(server, "Learn how to make cold brew coffee");

            List<SseClient.Event> events = turn(server, "Show the skill cold-brew-coffee");

            assertThat(commands(events)).containsExactly("skill get cold-brew-coffee");
            assertThat(lastRawContent(events)).startsWith("Here it is:").contains("name: cold-brew-coffee");
        }
    }

    @Test
    void theDemoSaysWhatItDoesAndNeverTellsAChatUserToTypeACommand(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new DemoAgent(Duration.ZERO))) {
            List<SseClient.Event> none = turn(server, "What skills do I have?");
            assertThat(lastRawContent(none)).startsWith("You have no skills yet.").doesNotContain("skill set");

            turn(server, "Learn how to make cold brew coffee");
            List<SseClient.Event> again = turn(server, "Learn how to make cold brew coffee");
            String opening = again.stream().filter(e -> e.type().equals("raw-content")).findFirst().orElseThrow().text("rawContent");
            assertThat(opening).doesNotContain("twice"); // it then updates the skill it found: no promise to the contrary
            assertThat(commands(again)).containsExactly("skill list", "skill set cold-brew-coffee");

            List<SseClient.Event> search = turn(server, "Search my skills for coffee");
            assertThat(lastRawContent(search)).startsWith("Found 1 skill matching").contains("- cold-brew-coffee:")
                    .doesNotEndWith(":");
        }
    }

    @Test
    void anythingElseGetsHelpWithoutACommand(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new DemoAgent(Duration.ZERO))) {
            List<SseClient.Event> events = turn(server, "Hello there");

            assertThat(commands(events)).isEmpty();
            assertThat(lastRawContent(events)).contains("What skills do I have?");
        }
    }

    @Test
    void skillNamesAreMadeFromTheMeaningfulWords() {
        assertThat(DemoAgent.slug("Learn how to make cold brew coffee")).isEqualTo("cold-brew-coffee");
        assertThat(DemoAgent.slug("Please remember: Git rebase --onto tricks!")).isEqualTo("git-rebase-onto-tricks");
        assertThat(DemoAgent.slug("learn this")).isEqualTo("new-skill");
        assertThat(DemoAgent.slug("x".repeat(100))).hasSize(64);
    }

    @Test
    void aSkillFromAnAttachedDocumentIsNamedByTheRequestOrTheFileNeverByTheWrapping() {
        String notes = dev.skillforge.core.transcript.Attachment.wrap("Espresso Notes.pdf", "application/pdf", "Grind fine.\nPull 25 s.");
        assertThat(DemoAgent.slug(DemoAgent.withoutDocuments(notes + "Turn this document into a skill"))).isEqualTo("espresso-notes");
        assertThat(DemoAgent.slug(DemoAgent.withoutDocuments(notes + "Learn latte art from this"))).isEqualTo("latte-art");
        assertThat(DemoAgent.slug(DemoAgent.withoutDocuments("Learn sourdough baking"))).isEqualTo("sourdough-baking");
    }

    private static List<SseClient.Event> turn(ServerHarness server, String message) throws Exception {
        return SseClient.postForEvents(server.url("/api/agent"), SseClient.userMessage(message));
    }

    private static List<String> commands(List<SseClient.Event> events) {
        return events.stream().filter(e -> e.type().equals("tool-call")).map(e -> e.text("command").lines().findFirst().orElse("")).toList();
    }

    private static String lastRawContent(List<SseClient.Event> events) {
        return events.stream().filter(e -> e.type().equals("raw-content")).reduce((a, b) -> b).orElseThrow().text("rawContent");
    }
}
