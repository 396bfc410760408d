package dev.skillforge.server.trace;

import io.opentelemetry.api.common.AttributeKey;

import java.util.List;

/**
 * The names SkillForge's spans use: the OpenTelemetry GenAI semantic conventions (status "development",
 * names as of semantic-conventions-genai v0.1.0 / semconv 1.41), kept in this one class so a rename there
 * is one change here; SkillForge's own attributes are under {@code skillforge.}.
 */
public final class GenAi {

    private GenAi() {
    }

    /** {@code gen_ai.agent.name}, and the second word of the turn span's name. */
    public static final String AGENT_NAME = "skillforge";

    // Operation names (gen_ai.operation.name), also the first word of each span's name.
    public static final String INVOKE_AGENT = "invoke_agent";
    public static final String CHAT = "chat";
    public static final String EXECUTE_TOOL = "execute_tool";

    public static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("gen_ai.operation.name");
    public static final AttributeKey<String> PROVIDER_NAME = AttributeKey.stringKey("gen_ai.provider.name");
    public static final AttributeKey<String> AGENT = AttributeKey.stringKey("gen_ai.agent.name");
    public static final AttributeKey<String> REQUEST_MODEL = AttributeKey.stringKey("gen_ai.request.model");
    public static final AttributeKey<String> RESPONSE_MODEL = AttributeKey.stringKey("gen_ai.response.model");
    public static final AttributeKey<String> CONVERSATION_ID = AttributeKey.stringKey("gen_ai.conversation.id");
    /** OpenTelemetry's {@code user.id}: the person's id on this server, never a name or an e-mail address. */
    public static final AttributeKey<String> USER_ID = AttributeKey.stringKey("user.id");
    public static final AttributeKey<List<String>> FINISH_REASONS = AttributeKey.stringArrayKey("gen_ai.response.finish_reasons");
    public static final AttributeKey<Long> INPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.input_tokens");
    public static final AttributeKey<Long> OUTPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.output_tokens");
    public static final AttributeKey<Long> CACHE_READ_TOKENS = AttributeKey.longKey("gen_ai.usage.cache_read.input_tokens");
    public static final AttributeKey<Long> CACHE_CREATION_TOKENS = AttributeKey.longKey("gen_ai.usage.cache_creation.input_tokens");
    /** Seconds from the request to the first chunk of the answer. */
    public static final AttributeKey<Double> TIME_TO_FIRST_CHUNK = AttributeKey.doubleKey("gen_ai.response.time_to_first_chunk");
    public static final AttributeKey<String> TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");
    public static final AttributeKey<String> TOOL_TYPE = AttributeKey.stringKey("gen_ai.tool.type");
    public static final AttributeKey<String> TOOL_CALL_ID = AttributeKey.stringKey("gen_ai.tool.call.id");
    public static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    public static final AttributeKey<Long> EXIT_CODE = AttributeKey.longKey("process.exit.code");

    // Content, only when the operator turns it on (FORGE_TRACE_CONTENT): JSON in the conventions' message shape.
    public static final AttributeKey<String> INPUT_MESSAGES = AttributeKey.stringKey("gen_ai.input.messages");
    public static final AttributeKey<String> OUTPUT_MESSAGES = AttributeKey.stringKey("gen_ai.output.messages");
    public static final AttributeKey<String> TOOL_ARGUMENTS = AttributeKey.stringKey("gen_ai.tool.call.arguments");
    public static final AttributeKey<String> TOOL_RESULT = AttributeKey.stringKey("gen_ai.tool.call.result");

    // SkillForge's own.
    public static final AttributeKey<Long> ITERATION = AttributeKey.longKey("skillforge.iteration");
    public static final AttributeKey<Long> ITERATIONS = AttributeKey.longKey("skillforge.iterations");
    public static final AttributeKey<Long> COMMANDS = AttributeKey.longKey("skillforge.commands");
    public static final AttributeKey<String> MODE = AttributeKey.stringKey("skillforge.mode");
    public static final AttributeKey<String> PROVIDER = AttributeKey.stringKey("skillforge.provider");
    public static final AttributeKey<String> COMMAND = AttributeKey.stringKey("skillforge.command");
    /** The prefix guard's verdict on a request: {@code first}, {@code prefix}, {@code context_cut} or {@code break}. */
    public static final AttributeKey<String> CACHE_VERDICT = AttributeKey.stringKey("skillforge.cache.verdict");
    public static final String CACHE_BREAK_EVENT = "skillforge.cache.break";
    public static final AttributeKey<Long> BREAK_REQUEST = AttributeKey.longKey("skillforge.cache.request");
    public static final AttributeKey<Long> BREAK_MESSAGE = AttributeKey.longKey("skillforge.cache.message_index");
    public static final AttributeKey<Long> BREAK_CHARACTER = AttributeKey.longKey("skillforge.cache.char_offset");
    public static final String CONTEXT_CUT_EVENT = "skillforge.context.cut";
    public static final AttributeKey<Long> KEPT_FROM = AttributeKey.longKey("skillforge.context.kept_from");

    /** A command's tool name when content is off: the one tool there is, not the command's first word. */
    public static final String SHELL_TOOL = "shell";

    /** The tool type of a command: run by SkillForge itself, on the model's behalf. */
    public static final String TOOL_TYPE_EXTENSION = "extension";

    /** {@code gen_ai.provider.name} for a configured preset: the convention's well-known values, else the preset's id. */
    public static String providerName(String preset) {
        return switch (preset) {
            case "gemini" -> "gcp.gemini";
            case "kimi" -> "moonshot_ai";
            case "sim" -> "skillforge.sim";
            default -> preset; // openai, anthropic, deepseek, and the rest by their own name
        };
    }
}
