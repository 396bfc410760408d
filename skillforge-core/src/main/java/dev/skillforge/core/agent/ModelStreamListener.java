package dev.skillforge.core.agent;

/** Receives a model's output as it streams. Called on the thread that called the provider. */
public interface ModelStreamListener {

    void onText(String chunk);

    void onReasoning(String chunk);

    void onSource(String url, String title);
}
