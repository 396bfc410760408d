package dev.skillforge.server.exec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The tokenizer: quoting as in sh, everything a shell would interpret refused, never interpreted. */
class CommandLineTest {

    @Test
    void plainWordsSplitOnSpacesAndTabs() throws CommandRefused {
        assertThat(CommandLine.split("ls  -la\tnotes")).containsExactly("ls", "-la", "notes");
        assertThat(CommandLine.split("  cat file.txt  ")).containsExactly("cat", "file.txt");
    }

    @Test
    void singleQuotesKeepEverythingLiterally() throws CommandRefused {
        assertThat(CommandLine.split("echo 'a | b; c && $(d) `e` * ~ > f'"))
                .containsExactly("echo", "a | b; c && $(d) `e` * ~ > f");
        assertThat(CommandLine.split("echo 'it'\\''s'")).containsExactly("echo", "it's");
        assertThat(CommandLine.split("echo ''")).containsExactly("echo", "");
    }

    @Test
    void doubleQuotesKeepTextAndUnescapeOnlyQuoteAndBackslash() throws CommandRefused {
        assertThat(CommandLine.split("grep \"two words\" notes")).containsExactly("grep", "two words", "notes");
        assertThat(CommandLine.split("echo \"say \\\"hi\\\" \\\\ \\n\"")).containsExactly("echo", "say \"hi\" \\ \\n");
        assertThat(CommandLine.split("echo \"a;b|c*\"")).containsExactly("echo", "a;b|c*");
    }

    @Test
    void backslashMakesOneCharacterLiteral() throws CommandRefused {
        assertThat(CommandLine.split("echo a\\;b \\|")).containsExactly("echo", "a;b", "|");
        assertThat(CommandLine.split("echo a\\ b")).containsExactly("echo", "a b");
    }

    @Test
    void quotedPartsJoinTheirWord() throws CommandRefused {
        assertThat(CommandLine.split("echo ab'cd'\"ef\"gh")).containsExactly("echo", "abcdefgh");
    }

    @Test
    void hashInsideAWordAndEqualsAfterTheFirstWordAreText() throws CommandRefused {
        assertThat(CommandLine.split("echo a#b --x=1")).containsExactly("echo", "a#b", "--x=1");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "ls | sh", "ls; rm -rf x", "ls && rm x", "ls || rm x", "sleep 1 &", "echo x > f", "cat < f", "echo x >> f",
            "echo $(id)", "echo `id`", "echo $HOME", "echo ${HOME}", "ls *", "ls ?.txt", "ls [ab]", "echo {a,b}", "cat ~/x",
            "(ls)", ":(){ :|:& };:", "echo a#b # comment", "# only a comment", "FOO=1 ls", "echo \"$HOME\"", "echo \"`id`\"",
            "ls\nrm -rf x", "ls\r", "echo \u0000", "echo \u001b[31m", "echo 'open", "echo \"open", "echo \\", "", "   ", "echo \u007f",
            "2>&1 ls", "ls 2>/dev/null", "cat <<EOF", "echo $((1+1))", "ls !(x)"
    })
    void shellSyntaxIsRefusedNotInterpreted(String line) {
        assertThatThrownBy(() -> CommandLine.split(line)).isInstanceOf(CommandRefused.class).hasMessageNotContaining("Exception");
    }

    @Test
    void refusalsSayWhatAndWhere() {
        assertThatThrownBy(() -> CommandLine.split("ls | sh")).hasMessageContaining("'|' (a pipe) at column 4");
        assertThatThrownBy(() -> CommandLine.split("echo $(id)")).hasMessageContaining("'$(' (command substitution)");
        assertThatThrownBy(() -> CommandLine.split("ls\nrm")).hasMessageContaining("one command per <shell> tag");
        assertThatThrownBy(() -> CommandLine.split("X=1 ls")).hasMessageContaining("setting variables");
        assertThatThrownBy(() -> CommandLine.split("echo \"$HOME\"")).hasMessageContaining("use single quotes");
    }

    @Test
    void wordsAreExactlyWhatTheProgramGets() throws CommandRefused {
        List<String> words = CommandLine.split("printf '%s\\n' \"a b\" c");
        assertThat(words).containsExactly("printf", "%s\\n", "a b", "c");
    }
}
