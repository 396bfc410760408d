package dev.skillforge.server.exec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The allow-list: names resolved at start on a fixed PATH, refused when they cannot be made safe. */
class CommandPolicyTest {

    @Test
    void namesResolveToAbsolutePathsOnTheSafePath() throws CommandRefused {
        CommandPolicy policy = CommandPolicy.resolve(List.of("ls", "cat"), Map.of());
        assertThat(policy.programs()).containsOnlyKeys("ls", "cat");
        assertThat(policy.programs().get("ls").path()).isAbsolute();
        assertThat(policy.programs().get("ls").path().getParent().toString()).isIn("/usr/local/bin", "/usr/bin", "/bin");
        assertThat(policy.check(List.of("ls", "-la")).name()).isEqualTo("ls");
        assertThat(policy.describe()).isEqualTo("ls, cat, and the skill commands (skill help lists them)");
    }

    @Test
    void anythingElseIsNotAllowedAndTheMessageSaysWhatIs() {
        CommandPolicy policy = CommandPolicy.resolve(List.of("ls", "cat"), Map.of());
        assertThatThrownBy(() -> policy.check(List.of("rm", "-rf", "x")))
                .hasMessage("not allowed: 'rm'; allowed: ls, cat, and the skill commands (skill help lists them)");
        assertThatThrownBy(() -> policy.check(List.of("/bin/ls")))
                .hasMessageStartingWith("not allowed: '/bin/ls' (write a program's name, not a path)");
        assertThatThrownBy(() -> CommandPolicy.none().check(List.of("ls")))
                .hasMessage("not allowed: 'ls'; allowed: no programs, and the skill commands (skill help lists them)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"sh", "bash", "env", "xargs", "sudo", "timeout", "nice", "busybox", "kill", "pkill", "skill"})
    void programsThatRunOrStopOthersCannotBeAllowed(String name) {
        assertThatThrownBy(() -> CommandPolicy.resolve(List.of(name), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("FORGE_ALLOW_COMMANDS: '" + name + "'")
                .hasMessageContaining("cannot be allowed");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/bin/ls", "../ls", "l s", "ls;rm", "", "-ls"})
    void namesMustBeBareNames(String name) {
        assertThatThrownBy(() -> CommandPolicy.resolve(List.of(name), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not a program name");
    }

    @Test
    void aNameNotOnTheSafePathStopsTheStart() {
        assertThatThrownBy(() -> CommandPolicy.resolve(List.of("no-such-program-here"), Map.of()))
                .hasMessage("FORGE_ALLOW_COMMANDS: 'no-such-program-here' was not found in /usr/local/bin:/usr/bin:/bin");
    }

    @Test
    void argumentPatternsPinWhatAProgramMayBeGiven() throws CommandRefused {
        CommandPolicy policy = CommandPolicy.resolve(List.of("ls", "head"),
                Map.of("FORGE_ALLOW_ARGS_HEAD", "-n|[0-9]{1,3}|[a-z0-9][a-z0-9._-]*"));
        assertThat(policy.check(List.of("head", "-n", "5", "notes.txt")).name()).isEqualTo("head");
        assertThatThrownBy(() -> policy.check(List.of("head", "-c", "5", "notes.txt")))
                .hasMessageStartingWith("not allowed: the argument '-c' of head");
        assertThat(policy.check(List.of("ls", "-c")).name()).isEqualTo("ls"); // no pattern: any argument (still confined)
    }

    @Test
    void badOrStrayPatternsStopTheStart() {
        assertThatThrownBy(() -> CommandPolicy.resolve(List.of("ls"), Map.of("FORGE_ALLOW_ARGS_LS", "(")))
                .hasMessageStartingWith("FORGE_ALLOW_ARGS_LS is not a valid regular expression");
        assertThatThrownBy(() -> CommandPolicy.resolve(List.of("ls"), Map.of("FORGE_ALLOW_ARGS_CAT", ".*")))
                .hasMessageStartingWith("FORGE_ALLOW_ARGS_CAT names no program in FORGE_ALLOW_COMMANDS");
    }
}
