package dev.skillforge.server.skill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.CommandResult;
import dev.skillforge.core.shell.ShellCommand;
import dev.skillforge.core.shell.ShellTagScanner;
import java.nio.file.Path;
import java.time.Year;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SystemPromptTest {

    @Test
    void theSkillSetExampleInThePromptIsAValidCommand(@TempDir Path root) throws Exception {
        // Read the prompt the way the loop reads model output: if the model copies the example, it must work.
        List<String> tagged = new ShellTagScanner().feed(SystemPrompt.TEXT);
        List<String> sets = tagged.stream().filter(c -> c.startsWith("skill set ")).toList();
        assertThat(sets).hasSize(1);

        CommandResult result = new SkillCommands(new SkillStore(root)).run(ShellCommand.of(0, 0, sets.getFirst()), new Cancellation());

        assertThat(result.exitCode()).isZero();
        assertThat(result.output()).startsWith("Saved skill csv-cleanup (created, ");
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
