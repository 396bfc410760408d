package dev.skillforge.server.log;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * {@code %msg} of the log pattern: the formatted message, arguments included, through
 * {@link LogText#escape}, so no caller has to escape what it logs.
 */
public final class EscapedMessageConverter extends ClassicConverter {

    @Override
    public String convert(ILoggingEvent event) {
        return LogText.escape(event.getFormattedMessage());
    }
}
