package dev.skillforge.server.provider;

import dev.skillforge.core.agent.ModelStreamListener;

/** A stream listener that keeps nothing: for model calls whose streamed output a test does not look at. */
public final class IgnoredOutput implements ModelStreamListener {

    public static final ModelStreamListener INSTANCE = new IgnoredOutput();

    private IgnoredOutput() {
    }

    @Override
    public void onText(String chunk) {
    }

    @Override
    public void onReasoning(String chunk) {
    }

    @Override
    public void onSource(String url, String title) {
    }
}
