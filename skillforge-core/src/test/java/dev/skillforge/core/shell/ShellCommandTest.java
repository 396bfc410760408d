package dev.skillforge.core.shell;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ShellCommandTest {

    @Test
    void firstCommandOfFirstIterationIsCmd00() {
        ShellCommand command = ShellCommand.of(0, 0, "skill list");
        assertThat(command.id()).isEqualTo("cmd-0-0");
        assertThat(command.iteration()).isZero();
        assertThat(command.index()).isZero();
        assertThat(command.command()).isEqualTo("skill list");
    }

    @Test
    void idIsIterationThenIndex() {
        assertThat(ShellCommand.of(2, 1, "ls").id()).isEqualTo("cmd-2-1");
        assertThat(ShellCommand.of(1, 2, "ls").id()).isEqualTo("cmd-1-2");
    }

    @Test
    void idForMatchesTheIdOfTheCommand() {
        assertThat(ShellCommand.idFor(9, 12)).isEqualTo("cmd-9-12");
        assertThat(ShellCommand.of(9, 12, "x").id()).isEqualTo(ShellCommand.idFor(9, 12));
    }

    @Test
    void multiDigitNumbersAreNotPadded() {
        assertThat(ShellCommand.idFor(10, 100)).isEqualTo("cmd-10-100");
    }

    @Test
    void idsAreUniqueAcrossIterationsAndIndices() {
        Set<String> ids = new HashSet<>();
        for (int iteration = 0; iteration < 12; iteration++) {
            for (int index = 0; index < 12; index++) {
                ids.add(ShellCommand.of(iteration, index, "ls").id());
            }
        }
        // 1-11 and 11-1 would collide without a separator: "cmd-1-11" vs "cmd-11-1"
        assertThat(ids).hasSize(144).contains("cmd-1-11", "cmd-11-1");
    }

    @Test
    void duplicateCommandsGetDistinctIds() {
        List<ShellCommand> commands = IntStream.range(0, 3).mapToObj(i -> ShellCommand.of(0, i, "ls")).toList();
        assertThat(commands).extracting(ShellCommand::id).containsExactly("cmd-0-0", "cmd-0-1", "cmd-0-2");
        assertThat(commands.get(0)).isNotEqualTo(commands.get(1));
    }

    @Test
    void sameCommandInTwoIterationsGetsDistinctIds() {
        assertThat(ShellCommand.of(0, 0, "ls").id()).isNotEqualTo(ShellCommand.of(1, 0, "ls").id());
    }

    @Test
    void negativeIterationIsRejected() {
        assertThatThrownBy(() -> ShellCommand.of(-1, 0, "ls"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(">= 0");
    }

    @Test
    void negativeIndexIsRejected() {
        assertThatThrownBy(() -> ShellCommand.of(0, -1, "ls"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void idThatDoesNotMatchIterationAndIndexIsRejected() {
        assertThatThrownBy(() -> new ShellCommand("cmd-0-1", 1, 0, "ls"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("id cmd-0-1 does not match iteration 1 and index 0");
    }

    @Test
    void idInAnotherFormatIsRejected() {
        assertThatThrownBy(() -> new ShellCommand("cmd-00-0", 0, 0, "ls")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ShellCommand("0-0", 0, 0, "ls")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void matchingIdIsAccepted() {
        assertThat(new ShellCommand("cmd-3-4", 3, 4, "ls")).isEqualTo(ShellCommand.of(3, 4, "ls"));
    }

    @Test
    void nullCommandIsRejected() {
        assertThatThrownBy(() -> ShellCommand.of(0, 0, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("command");
    }

    @Test
    void firstLineOfMultiLineCommandIsItsFirstLine() {
        ShellCommand command = ShellCommand.of(0, 0, "skill set x\n---\nname: x\n---\nbody");
        assertThat(command.firstLine()).isEqualTo("skill set x");
        assertThat(command.command()).isEqualTo("skill set x\n---\nname: x\n---\nbody");
    }

    @Test
    void firstLineOfSingleLineCommandIsTheCommand() {
        assertThat(ShellCommand.of(0, 0, "skill list").firstLine()).isEqualTo("skill list");
    }

    @Test
    void firstLineDropsCarriageReturnOfCrLf() {
        assertThat(ShellCommand.of(0, 0, "skill set x\r\nname: x").firstLine()).isEqualTo("skill set x");
    }
}
