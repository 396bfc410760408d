package dev.skillforge.server.document;

import dev.skillforge.core.transcript.Attachment;

import java.util.Base64;
import java.util.Optional;

/**
 * Reads an attached image: what it is comes from its magic number, and a type or name that says otherwise is refused
 * (the declared type is the client's word, nothing more); its size in pixels from its header alone. Nothing is decoded
 * or converted: the model is sent the bytes as they came, the same on every request.
 */
final class Images {

    private static final String ACCEPTED = "PNG, JPEG, WebP or GIF";

    private Images() {
    }

    /**
     * Whether an upload is meant as an image (its type or, without one, its name says so) or is one (its bytes say
     * so). A file named {@code .svg} without a type is XML, read as text like any other.
     */
    static boolean isImage(String name, String declaredType, byte[] data) {
        String type = DocumentKind.baseType(declaredType);
        if (type.startsWith("image/")) {
            return true;
        }
        return ImageFormat.sniff(data).isPresent() || (generic(type) && ImageFormat.ofExtension(FileNames.extension(name)).isPresent());
    }

    /**
     * @throws DocumentException UNSUPPORTED for a format SkillForge does not accept or bytes that are not what the type or
     *                           name claims; INVALID for a header cut short or malformed, or a size past
     *                           {@link DocumentLimits#MAX_IMAGE_SIDE} on a side
     */
    static AttachedDocument read(String name, String declaredType, byte[] data) {
        String type = DocumentKind.baseType(declaredType);
        Optional<ImageFormat> claimed = generic(type) ? ImageFormat.ofExtension(FileNames.extension(name)) : ImageFormat.ofMediaType(type);
        String claim = generic(type) ? "named ." + FileNames.extension(name) : "declared " + type;
        if (type.equals("image/svg+xml")) {
            throw DocumentException.unsupported("'" + name + "' is image/svg+xml: an SVG is not accepted as an image (it is a document"
                    + " that can run scripts); attach a PNG of it, or its source as text/plain");
        }
        if (!generic(type) && claimed.isEmpty()) {
            throw DocumentException.unsupported("'" + name + "' is " + type + ": SkillForge accepts " + ACCEPTED + " images");
        }
        ImageFormat format = ImageFormat.sniff(data).orElseThrow(() -> DocumentException.unsupported("'" + name + "' is " + claim
                + ", but its bytes are not a " + ACCEPTED + " image: SkillForge goes by what a file holds, not what it is called"));
        if (claimed.isPresent() && claimed.get() != format) {
            throw DocumentException.unsupported("'" + name + "' is " + claim + ", but its bytes are a " + format.label()
                    + ": send it as " + format.mediaType() + " (a file's type must say what it holds)");
        }
        ImageHeader header = ImageHeader.read(format, data, name);
        if (header.width() > DocumentLimits.MAX_IMAGE_SIDE || header.height() > DocumentLimits.MAX_IMAGE_SIDE) {
            throw new DocumentException(DocumentException.Kind.INVALID, "image_too_big", "'" + name + "' is " + header.width() + "x"
                    + header.height() + " pixels; the limit is " + DocumentLimits.MAX_IMAGE_SIDE + " on a side: scale it down");
        }
        Attachment.Image image = new Attachment.Image(header.width(), header.height(), Base64.getEncoder().encodeToString(data));
        return new AttachedDocument(Attachment.image(Documents.sha256(data), name, format.mediaType(), data.length, image), data);
    }

    /** The image a stored file is (its type was checked when it came): for a transcript loaded from the store. */
    static Attachment.Image stored(byte[] data, String name) {
        ImageFormat format = ImageFormat.sniff(data).orElseThrow(() -> DocumentException.invalid("the stored '" + name + "' is not an image"));
        ImageHeader header = ImageHeader.read(format, data, name);
        return new Attachment.Image(header.width(), header.height(), Base64.getEncoder().encodeToString(data));
    }

    private static boolean generic(String type) {
        return type.isEmpty() || type.equals("application/octet-stream");
    }
}
