package dev.skillforge.server.access;

import java.math.BigDecimal;

/** Amounts of money as people read and JSON carries them: millionths of a dollar in, dollars out. */
public final class Dollars {

    private Dollars() {
    }

    /** {@code 12500000} as {@code $12.50}. */
    static String of(long micros) {
        return "$" + amount(micros).setScale(2, java.math.RoundingMode.HALF_UP).toPlainString();
    }

    /** {@code 12500000} as the number {@code 12.5}. */
    public static BigDecimal amount(long micros) {
        return BigDecimal.valueOf(micros, 6).stripTrailingZeros();
    }
}
