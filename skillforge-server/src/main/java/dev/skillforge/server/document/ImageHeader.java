package dev.skillforge.server.document;

/**
 * An image's size in pixels, read from its header alone: nothing is decoded, so a file that claims a huge canvas
 * costs no more to read than a small one. Every read is bounded by the file's length; a header cut short or malformed
 * is refused.
 */
public record ImageHeader(ImageFormat format, int width, int height) {

    /**
     * @param name names the file in the message of a refusal
     * @throws DocumentException INVALID when the header is cut short, malformed or says the image has no pixels
     */
    public static ImageHeader read(ImageFormat format, byte[] data, String name) {
        Bytes bytes = new Bytes(data, name, format);
        ImageHeader header = switch (format) {
            case PNG -> png(bytes);
            case GIF -> new ImageHeader(format, bytes.u16le(6), bytes.u16le(8));
            case WEBP -> webp(bytes);
            case JPEG -> jpeg(bytes);
        };
        if (header.width < 1 || header.height < 1) {
            throw DocumentException.invalid("'" + name + "' is a " + format.label() + " whose header says it is " + header.width + "x"
                    + header.height + " pixels: an image has at least one");
        }
        return header;
    }

    /** The signature, then the IHDR chunk: length 13, "IHDR", width and height as unsigned 32-bit big-endian. */
    private static ImageHeader png(Bytes bytes) {
        if (bytes.u32be(8) != 13 || !bytes.ascii(12, "IHDR")) {
            throw bytes.malformed("its first chunk is not the IHDR header");
        }
        return new ImageHeader(ImageFormat.PNG, bytes.dimension(bytes.u32be(16)), bytes.dimension(bytes.u32be(20)));
    }

    /** RIFF, size, WEBP, then a VP8 (lossy), VP8L (lossless) or VP8X (extended) chunk, each with its own size fields. */
    private static ImageHeader webp(Bytes bytes) {
        if (bytes.ascii(12, "VP8 ")) {
            if (bytes.u8(23) != 0x9D || bytes.u8(24) != 0x01 || bytes.u8(25) != 0x2A) {
                throw bytes.malformed("its VP8 frame has no start code");
            }
            return new ImageHeader(ImageFormat.WEBP, bytes.u16le(26) & 0x3FFF, bytes.u16le(28) & 0x3FFF);
        }
        if (bytes.ascii(12, "VP8L")) {
            if (bytes.u8(20) != 0x2F) {
                throw bytes.malformed("its VP8L chunk has no signature");
            }
            long bits = bytes.u32le(21);
            return new ImageHeader(ImageFormat.WEBP, (int) (bits & 0x3FFF) + 1, (int) ((bits >> 14) & 0x3FFF) + 1);
        }
        if (bytes.ascii(12, "VP8X")) {
            return new ImageHeader(ImageFormat.WEBP, bytes.u24le(24) + 1, bytes.u24le(27) + 1);
        }
        throw bytes.malformed("its first chunk is not VP8, VP8L or VP8X");
    }

    /**
     * The markers after SOI, each FF then its code: standalone ones (RSTn, TEM) have no length; a frame header
     * (SOF0-SOF15 but DHT, JPG and DAC) holds precision, height, width; any other is skipped by its length. The scan
     * (SOS) before any frame header means there is none.
     */
    private static ImageHeader jpeg(Bytes bytes) {
        int at = 2;
        while (true) {
            if (bytes.u8(at) != 0xFF) {
                throw bytes.malformed("a marker is expected at byte " + at);
            }
            int code = bytes.u8(at + 1);
            if (code == 0xFF) {
                at++; // fill bytes before a marker
                continue;
            }
            if (code == 0x01 || (code >= 0xD0 && code <= 0xD7)) {
                at += 2;
                continue;
            }
            if (code == 0xD9 || code == 0xDA) {
                throw bytes.malformed("it has no frame header before its " + (code == 0xDA ? "scan" : "end"));
            }
            int length = bytes.u16be(at + 2);
            if (length < 2) {
                throw bytes.malformed("a segment at byte " + at + " has length " + length);
            }
            boolean frame = code >= 0xC0 && code <= 0xCF && code != 0xC4 && code != 0xC8 && code != 0xCC;
            if (frame) {
                return new ImageHeader(ImageFormat.JPEG, bytes.u16be(at + 7), bytes.u16be(at + 5));
            }
            at += 2 + length;
        }
    }

    /** Reads within the file only: a read past its end is a header cut short. */
    private record Bytes(byte[] data, String name, ImageFormat format) {
        int u8(int at) {
            if (at < 0 || at >= data.length) {
                throw DocumentException.invalid("'" + name + "' is cut short: its " + format.label() + " header ends at byte "
                        + data.length + ", before the image's size");
            }
            return data[at] & 0xFF;
        }

        int u16le(int at) {
            return u8(at) | u8(at + 1) << 8;
        }

        int u16be(int at) {
            return u8(at) << 8 | u8(at + 1);
        }

        int u24le(int at) {
            return u8(at) | u8(at + 1) << 8 | u8(at + 2) << 16;
        }

        long u32le(int at) {
            return (long) u16le(at) | (long) u16le(at + 2) << 16;
        }

        long u32be(int at) {
            return (long) u16be(at) << 16 | u16be(at + 2);
        }

        boolean ascii(int at, String text) {
            for (int i = 0; i < text.length(); i++) {
                if (u8(at + i) != text.charAt(i)) {
                    return false;
                }
            }
            return true;
        }

        /** A 32-bit size as an int: past Integer.MAX_VALUE it is as absurd as any other size over the limit. */
        int dimension(long value) {
            return (int) Math.min(value, Integer.MAX_VALUE);
        }

        DocumentException malformed(String what) {
            return DocumentException.invalid("'" + name + "' is not a well-formed " + format.label() + ": " + what);
        }
    }
}
