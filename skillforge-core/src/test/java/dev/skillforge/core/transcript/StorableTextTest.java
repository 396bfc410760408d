package dev.skillforge.core.transcript;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StorableTextTest {

    private static final String TEA = "\uD83C\uDF75"; // one character outside the BMP: a surrogate pair

    @Test
    void aPrefixNeverEndsInsideASurrogatePair() {
        assertThat(StorableText.prefix("ab" + TEA + "c", 3)).isEqualTo("ab");
        assertThat(StorableText.prefix("ab" + TEA + "c", 4)).isEqualTo("ab" + TEA);
        assertThat(StorableText.prefix("abc", 5)).isEqualTo("abc");
    }

    @Test
    void anAbbreviationMarksWhatWasCutAndLeavesShortTextAlone() {
        assertThat(StorableText.abbreviate("cold brew", 9)).isEqualTo("cold brew");
        assertThat(StorableText.abbreviate("cold brew", 4)).isEqualTo("cold…");
        assertThat(StorableText.abbreviate("ab" + TEA, 3)).isEqualTo("ab…");
        assertThat(StorableText.firstBad(StorableText.abbreviate("ab" + TEA + "cd", 3))).isEqualTo(-1);
    }
}
