package dev.skillforge.server.provider;

import dev.skillforge.core.agent.ModelStreamListener;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Keeps what a provider streamed, in order: text chunks, reasoning chunks, sources ({@code url title}). */
public class RecordingListener implements ModelStreamListener {

    public final List<String> text = new CopyOnWriteArrayList<>();
    public final List<String> reasoning = new CopyOnWriteArrayList<>();
    public final List<String> sources = new CopyOnWriteArrayList<>();

    @Override
    public void onText(String chunk) {
        text.add(chunk);
    }

    @Override
    public void onReasoning(String chunk) {
        reasoning.add(chunk);
    }

    @Override
    public void onSource(String url, String title) {
        sources.add(url + " " + title);
    }

    public String allText() {
        return String.join("", text);
    }

    public String allReasoning() {
        return String.join("", reasoning);
    }
}
