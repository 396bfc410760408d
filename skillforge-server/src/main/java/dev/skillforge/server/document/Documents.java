package dev.skillforge.server.document;

import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.core.agent.Cancellation;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Turns uploads into attachments: checks names, types and limits, extracts the text once (PDF with
 * PDFBox, HTML with jsoup, text with its encoding detected) and wraps it ({@link Attachment#wrap}). What
 * comes out is stored and replayed verbatim; nothing here runs again for a stored attachment. Text is extracted off
 * the caller's thread, a few files at a time for the whole server, within a time limit per request, and stops when
 * the caller goes away ({@link ExtractionWorkers}).
 */
public final class Documents {

    private Documents() {
    }

    /**
     * All files of one message, in order.
     *
     * @param caller cancelled when whoever sent them has gone (the request ended, the call was cancelled)
     * @throws DocumentException for the first file (or limit) that is wrong: then nothing is accepted
     */
    public static List<AttachedDocument> read(List<Upload> uploads, Cancellation caller) {
        return readMessages(List.of(uploads), caller).getFirst();
    }

    /**
     * The files of several messages (a stateless request's history), each message's in order: one extraction, within
     * one time limit, and each message within the limits of a message.
     *
     * @throws DocumentException for the first file (or limit) that is wrong: then nothing is accepted
     */
    public static List<List<AttachedDocument>> readMessages(List<List<Upload>> messages, Cancellation caller) {
        if (messages.stream().allMatch(List::isEmpty)) {
            return messages.stream().map(none -> List.<AttachedDocument>of()).toList();
        }
        messages.forEach(Documents::checkCounts);
        return ExtractionWorkers.SHARED.run(caller, deadline -> messages.stream().map(uploads -> read(uploads, deadline)).toList());
    }

    /**
     * A fetched web page's title and readable text (as an attached HTML file's), read like an attachment: off the
     * caller's thread, within the same limits and time.
     *
     * @throws DocumentException when the page passes a limit or the caller went away
     */
    public static HtmlPage readPage(String html, String url, int maxChars, Cancellation caller) {
        return ExtractionWorkers.SHARED.run(caller, deadline -> {
            org.jsoup.nodes.Document page = HtmlParsing.parse(html, url, url, deadline);
            return new HtmlPage(page.title().strip(), HtmlMarkdown.of(page, url, maxChars, deadline));
        });
    }

    private static void checkCounts(List<Upload> uploads) {
        if (uploads.size() > DocumentLimits.MAX_FILES) {
            throw DocumentException.tooLarge(uploads.size() + " files are attached; the limit is " + DocumentLimits.MAX_FILES
                    + " per message");
        }
        long total = uploads.stream().mapToLong(upload -> upload.data().length).sum();
        if (total > DocumentLimits.MAX_MESSAGE_BYTES) {
            throw DocumentException.tooLarge("The attached files are " + total + " bytes together; the limit is "
                    + DocumentLimits.MAX_MESSAGE_BYTES + " bytes (10 MiB) per message");
        }
    }

    /** One message's files, on this thread, within {@code deadline}. */
    static List<AttachedDocument> read(List<Upload> uploads, Deadline deadline) {
        List<AttachedDocument> documents = new ArrayList<>(uploads.size());
        long text = 0;
        for (Upload upload : uploads) {
            AttachedDocument document = read(upload, deadline);
            text += document.attachment().promptText().length();
            if (text > DocumentLimits.MAX_MESSAGE_TEXT_CHARS) {
                throw DocumentException.tooLarge("The attached files hold more than " + DocumentLimits.MAX_MESSAGE_TEXT_CHARS
                        + " characters of text together; attach fewer per message");
            }
            documents.add(document);
        }
        return List.copyOf(documents);
    }

    /** One file, on this thread, within {@code deadline}. @throws DocumentException when it is refused */
    static AttachedDocument read(Upload upload, Deadline deadline) {
        String name = FileNames.check(upload.name());
        byte[] data = upload.data();
        if (data.length == 0) {
            throw DocumentException.invalid("'" + name + "' is empty");
        }
        if (data.length > DocumentLimits.MAX_FILE_BYTES) {
            throw DocumentException.tooLarge("'" + name + "' is " + data.length + " bytes; the limit is " + DocumentLimits.MAX_FILE_BYTES
                    + " bytes (5 MiB) per file");
        }
        if (Images.isImage(name, upload.mediaType(), data)) {
            return Images.read(name, upload.mediaType(), data);
        }
        DocumentKind kind = DocumentKind.of(name, upload.mediaType());
        if (kind != DocumentKind.PDF && startsWith(data, "PK\u0003\u0004")) {
            throw DocumentException.unsupported("'" + name + "' is a ZIP archive (an Office document?), not " + kind.name().toLowerCase()
                    + ": save it as PDF or text and attach that");
        }
        if (kind != DocumentKind.PDF && startsWith(data, "%PDF-")) {
            kind = DocumentKind.PDF; // a PDF sent as text would reach the model as binary noise
        }
        String what = "'" + name + "'";
        String text = StorableText.clean(switch (kind) {
            case PDF -> PdfText.extract(name, data, deadline);
            case HTML -> HtmlMarkdown.of(HtmlParsing.parse(data, what, deadline), what, DocumentLimits.MAX_TEXT_CHARS, deadline);
            case TEXT -> TextDecoding.decode(name, data);
        });
        if (text.length() > DocumentLimits.MAX_TEXT_CHARS) {
            throw DocumentException.tooLarge("'" + name + "' holds " + text.length() + " characters of text; the limit is "
                    + DocumentLimits.MAX_TEXT_CHARS + " per file");
        }
        if (text.isBlank()) {
            throw DocumentException.invalid("'" + name + "' has no text to read");
        }
        String type = storedType(kind, upload.mediaType());
        return new AttachedDocument(new Attachment(sha256(data), name, type, data.length, Attachment.wrap(name, type, text)), data);
    }

    /** The declared type without parameters, or the kind's own when none (or a generic one) was declared. */
    private static String storedType(DocumentKind kind, String declared) {
        String base = DocumentKind.baseType(declared);
        boolean generic = base.isEmpty() || base.equals("application/octet-stream") || !base.matches("[a-z0-9.+-]+/[a-z0-9.+-]+");
        return generic || (kind == DocumentKind.PDF && !base.equals("application/pdf")) ? kind.defaultType : base;
    }

    private static boolean startsWith(byte[] data, String prefix) {
        if (data.length < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (data[i] != (byte) prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The image of a file stored as one (its type and size were checked when it came): the same bytes, in the same
     * base64, as when it was attached.
     *
     * @throws DocumentException when the stored bytes are not an image (a damaged store)
     */
    public static Attachment.Image storedImage(byte[] data, String name) {
        return Images.stored(data, name);
    }

    public static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
