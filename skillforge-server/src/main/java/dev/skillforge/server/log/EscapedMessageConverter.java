package dev.skillforge.server.log;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * {@code %msg} of the log pattern: the formatted message, arguments included, through
 * {@link LogText#forLine} (escaped and cut), so no caller has to escape or cut what it logs.
 */
public final class EscapedMessageConverter extends ClassicConverter {

    @Override
    public String convert(ILoggingEvent event) {
        return LogText.forLine(event.getFormattedMessage());
    }
}
