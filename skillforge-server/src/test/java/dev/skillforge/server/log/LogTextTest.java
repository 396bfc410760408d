package dev.skillforge.server.log;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LogTextTest {

    @Test
    void textWithoutControlsIsTheSameString() {
        String text = "café 😀 \\n stays a backslash and an n";

        assertThat(LogText.escape(text)).isSameAs(text);
        assertThat(LogText.escape(null)).isNull();
    }

    @Test
    void everyC0C1AndUnicodeLineBreakIsEscaped() {
        for (char c = 0; c < 0x20; c++) {
            assertThat(LogText.needsEscape(c)).as("U+%04X", (int) c).isTrue();
        }
        for (char c = 0x7f; c <= 0x9f; c++) {
            assertThat(LogText.needsEscape(c)).as("U+%04X", (int) c).isTrue();
        }
        assertThat(LogText.escape("x\u0085y\u2028z\u2029")).isEqualTo("x\\u0085y\\u2028z\\u2029");
        assertThat(LogText.escape("\u202Eevil\u2069")).isEqualTo("\\u202eevil\\u2069");
        assertThat(LogText.needsEscape(' ')).isFalse();
        assertThat(LogText.needsEscape('\u00a0')).isFalse();
    }
}
