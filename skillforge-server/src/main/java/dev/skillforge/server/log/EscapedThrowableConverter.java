package dev.skillforge.server.log;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;

/**
 * {@code %ex} of the log pattern: the stack trace as logback writes it, one frame per line, with the
 * messages of the exception, its causes and suppressed ones through {@link LogText#forLine} (an
 * exception message often quotes its input).
 */
public final class EscapedThrowableConverter extends ThrowableProxyConverter {

    @Override
    protected String throwableProxyToString(IThrowableProxy throwable) {
        return super.throwableProxyToString(new Escaped(throwable));
    }

    /** The throwable as logback sees it, its messages escaped, its causes likewise. */
    private record Escaped(IThrowableProxy original) implements IThrowableProxy {

        @Override
        public String getMessage() {
            return LogText.forLine(original.getMessage());
        }

        @Override
        public String getOverridingMessage() {
            return LogText.forLine(original.getOverridingMessage());
        }

        @Override
        public String getClassName() {
            return LogText.escape(original.getClassName());
        }

        @Override
        public StackTraceElementProxy[] getStackTraceElementProxyArray() {
            return original.getStackTraceElementProxyArray();
        }

        @Override
        public int getCommonFrames() {
            return original.getCommonFrames();
        }

        @Override
        public IThrowableProxy getCause() {
            return original.getCause() == null ? null : new Escaped(original.getCause());
        }

        @Override
        public IThrowableProxy[] getSuppressed() {
            IThrowableProxy[] suppressed = original.getSuppressed();
            if (suppressed == null) {
                return null;
            }
            IThrowableProxy[] escaped = new IThrowableProxy[suppressed.length];
            for (int i = 0; i < suppressed.length; i++) {
                escaped[i] = new Escaped(suppressed[i]);
            }
            return escaped;
        }

        @Override
        public boolean isCyclic() {
            return original.isCyclic();
        }
    }
}
