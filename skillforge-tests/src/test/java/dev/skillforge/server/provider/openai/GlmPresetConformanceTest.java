package dev.skillforge.server.provider.openai;

import dev.skillforge.server.ProviderFactory;

/**
 * The OpenAI-compatible client with the GLM preset's options (thinking kept, the web_search tool, its
 * results as sources) against the simulation, which sends sources in GLM's {@code web_search} shape.
 */
class GlmPresetConformanceTest extends OpenAiCompatibleConformanceTest {

    @Override
    protected ChatOptions options() {
        return OpenAiPresets.GLM;
    }

    @Override
    protected boolean reportsSources() {
        return true;
    }
}
