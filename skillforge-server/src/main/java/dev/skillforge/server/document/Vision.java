package dev.skillforge.server.document;

import dev.skillforge.core.transcript.Attachment;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Whether a model sees images, and what its provider's API takes of them. Every request of a conversation carries all
 * its images again (the prompt only grows), so the per-request limits hold for the images of the whole conversation as
 * the model sees it. A wire format's figures, from its vendor's documentation, are kept with that format's adapter.
 *
 * @param sees         whether the model is sent images at all
 * @param formats      the formats its API takes
 * @param maxImageBytes one image's bytes (before base64)
 * @param maxSide      pixels on a side
 * @param maxImages    images in one request
 * @param maxTotalBytes the images of one request together (before base64), leaving room for the text
 * @param manyImages   from this many images in one request on, {@code maxSideWhenMany} is the limit on a side
 */
public record Vision(boolean sees, Set<ImageFormat> formats, long maxImageBytes, int maxSide, int maxImages, long maxTotalBytes,
                     int manyImages, int maxSideWhenMany) {

    /** A mebibyte: the unit the APIs' byte limits are written in. */
    public static final long MIB = 1024 * 1024;

    /** A model that sees no images: {@link #check} refuses any before a limit matters, so they are all zero. */
    public static final Vision NONE = new Vision(false, Set.of(), 0, 0, 0, 0, Integer.MAX_VALUE, 0);

    public Vision {
        formats = Set.copyOf(formats);
    }

    /** These limits, for a model that sees ({@code true}) or not. */
    public Vision seeing(boolean sees) {
        return new Vision(sees, formats, maxImageBytes, maxSide, maxImages, maxTotalBytes, manyImages, maxSideWhenMany);
    }

    /** The media types it takes, in a fixed order (for the providers listing). */
    public List<String> mediaTypes() {
        return Arrays.stream(ImageFormat.values()).filter(formats::contains).map(ImageFormat::mediaType).toList();
    }

    /**
     * Checks the images one request to {@code model} would carry: {@code earlier} (those the model already sees) and
     * {@code added} (those of the new message). Nothing to check when none is added.
     *
     * @throws DocumentException UNSUPPORTED (415) when the model sees no images or not this format; TOO_LARGE (413) for an
     *                           image or all of them together over the API's bytes; INVALID (400) for too many images or
     *                           more pixels on a side than the API takes
     */
    public void check(String model, List<Attachment> earlier, List<Attachment> added) {
        if (added.isEmpty()) {
            return;
        }
        if (!sees) {
            throw new DocumentException(DocumentException.Kind.UNSUPPORTED, "model_sees_no_images", "The model " + model
                    + " does not see images, so '" + added.getFirst().name() + "' cannot be sent to it: describe it in words, or start a"
                    + " conversation with a provider whose model sees images");
        }
        int count = earlier.size() + added.size();
        if (count > maxImages) {
            throw new DocumentException(DocumentException.Kind.INVALID, "too_many_images", "A request to " + model + " may carry at most "
                    + maxImages + " images, and every request of a conversation carries all of them: this one would carry " + count
                    + "; start a new conversation for more");
        }
        int side = count >= manyImages ? maxSideWhenMany : maxSide;
        long total = 0;
        for (Attachment image : earlier) {
            total += image.size();
        }
        for (Attachment image : added) {
            ImageFormat format = ImageFormat.ofMediaType(image.mediaType()).orElseThrow();
            if (!formats.contains(format)) {
                throw DocumentException.unsupported("'" + image.name() + "' is a " + format.label() + ", which " + model + " does not take:"
                        + " send it as " + formats.stream().sorted().map(ImageFormat::label).collect(Collectors.joining(", ")));
            }
            if (image.size() > maxImageBytes) {
                throw DocumentException.tooLarge("'" + image.name() + "' is " + image.size() + " bytes; " + model + " takes images of at most "
                        + maxImageBytes + " bytes");
            }
            Attachment.Image pixels = image.image();
            if (pixels.width() > side || pixels.height() > side) {
                throw new DocumentException(DocumentException.Kind.INVALID, "image_too_big", "'" + image.name() + "' is " + pixels.width()
                        + "x" + pixels.height() + " pixels; " + model + " takes at most " + side + " on a side"
                        + (count >= manyImages ? " in a request of " + manyImages + " images or more" : "") + ": scale it down");
            }
            total += image.size();
        }
        if (total > maxTotalBytes) {
            throw DocumentException.tooLarge("The images of this conversation would be " + total + " bytes together; a request to " + model
                    + " may carry at most " + maxTotalBytes + " bytes of images: start a new conversation for more");
        }
    }
}
