package dev.skillforge.server.conversation;

import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.server.store.StoredEntry;

/** A conversation as readable Markdown: who said what, commands and their output as code blocks. */
public final class MarkdownExport {

    private MarkdownExport() {
    }

    public static String of(ConversationSnapshot snapshot) {
        StringBuilder md = new StringBuilder();
        String title = snapshot.record().title().isEmpty() ? "Untitled conversation" : snapshot.record().title();
        md.append("# ").append(title).append("\n\n");
        md.append("_Conversation ").append(snapshot.record().id()).append(", ").append(snapshot.record().provider())
                .append(" / ").append(snapshot.record().model()).append("_\n\n");
        for (StoredEntry entry : snapshot.entries()) {
            switch (entry.kind()) {
                case "user" -> {
                    md.append("## You\n\n");
                    entry.attachments().forEach(a -> attached(md, snapshot.record().id(), a));
                    md.append(entry.content().strip()).append("\n\n");
                }
                case "assistant" -> md.append("## SkillForge\n\n").append(entry.content().strip()).append("\n\n");
                case HotConversation.CONTEXT -> md.append("> ").append(entry.content().strip().replace("\n", "\n> ")).append("\n\n");
                default -> md.append(fence(entry.content())).append("\n\n");
            }
        }
        return md.toString();
    }

    /**
     * An attachment's line; an image's also shows it, from the server's download link (the same origin as the export:
     * a Markdown viewer elsewhere shows its name instead).
     */
    private static void attached(StringBuilder md, String conversationId, Attachment a) {
        String url = "/api/conversations/" + conversationId + "/attachments/" + a.sha256();
        md.append("_Attached: ").append(a.name()).append(" (").append(a.mediaType());
        if (a.isImage()) {
            md.append(", ").append(a.image().width()).append("×").append(a.image().height());
        }
        md.append(", ").append(a.size()).append(" bytes)_\n\n");
        if (a.isImage()) {
            md.append("![").append(a.name().replaceAll("[\\[\\]\\\\]", "_")).append("](").append(url).append(")\n\n");
        }
    }

    /** A code fence longer than any run of backticks inside, so command output cannot end it early. */
    private static String fence(String text) {
        int longest = 0;
        int run = 0;
        for (int i = 0; i < text.length(); i++) {
            run = text.charAt(i) == '`' ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        String ticks = "`".repeat(Math.max(3, longest + 1));
        return ticks + "text\n" + text + "\n" + ticks;
    }
}
