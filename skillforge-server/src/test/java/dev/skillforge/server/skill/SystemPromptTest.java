package dev.skillforge.server.skill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.CommandResult;
import dev.skillforge.core.agent.CommandRunner;
import dev.skillforge.core.shell.ShellCommand;
import dev.skillforge.core.shell.ShellTagScanner;
import java.nio.file.Path;
import java.time.Year;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SystemPromptTest {

    @Test
    void theExamplesInThePromptAreValidCommands(@TempDir Path folder) {
        // Read the prompt the way the loop reads model output: if the model copies the examples, they must work.
        List<String> tagged = new ShellTagScanner().feed(SystemPrompt.TEXT);
        List<String> examples = tagged.stream().filter(c -> c.startsWith("skill set ") || c.startsWith("skill file ")).toList();
        assertThat(examples).hasSize(2);

        try (SqliteSkills skills = new SqliteSkills(folder)) {
            CommandRunner commands = new SkillCommands(skills.store).in(SkillAccess.LOCAL, "c-1");
            CommandResult set = commands.run(ShellCommand.of(0, 0, examples.get(0)), new Cancellation());
            CommandResult file = commands.run(ShellCommand.of(0, 1, examples.get(1)), new Cancellation());

            assertThat(set.output()).startsWith("Saved skill csv-cleanup (created, ");
            assertThat(file.output()).startsWith("Saved scripts/dedupe_headers.py of skill csv-cleanup (updated, ");
            assertThat(new String(skills.store.folder(SkillAccess.LOCAL, "csv-cleanup", 2).orElseThrow()
                    .file(SkillPath.of("scripts/dedupe_headers.py")).orElseThrow())).contains("print(\"\\n\".join(");
        }
    }

    @Test
    void thePromptTeachesTheProtocolAndEveryCommand() {
        assertThat(SystemPrompt.TEXT)
                .contains("You are SkillForge", "<shell>", "</shell>", "[Shell Output]", "one command per tag", "Before creating a skill, run skill list")
                .contains(SkillCommands.COMMANDS)
                .contains("name:", "description:", "1024", "64 characters")
                .contains("Never invent command results");
    }

    @Test
    void thePromptHoldsNothingThatChangesFromDayToDay() {
        assertThat(SystemPrompt.TEXT)
                .doesNotContainPattern("\\d{4}-\\d{2}-\\d{2}")
                .doesNotContainPattern("\\d{1,2}:\\d{2}")
                .doesNotContain(String.valueOf(Year.now().getValue()))
                .doesNotContainIgnoringCase("today");
    }
}
