package dev.skillforge.server.skill.zip;

import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Unpacks one entry a {@link ZipDirectory} has checked, trusting nothing it says: never more bytes
 * than the entry declares (a lying size is how a bomb slips past a limit), refused when the
 * unpacked bytes are fewer, when their CRC-32 differs, or when they expand from so few compressed
 * bytes that only a zip bomb would.
 */
final class ZipEntryReader {

    /** Past this many unpacked bytes, an entry that expands more than {@link #MAX_RATIO} times its compressed size is a bomb. */
    static final long RATIO_CHECKED_FROM = 1024 * 1024;
    /** Text compresses about 3 to 10 times, repetitive data 50 or 100; more than this is a bomb's. */
    static final long MAX_RATIO = 200;

    private ZipEntryReader() {
    }

    static byte[] read(byte[] zip, ZipDirectory.Entry entry) {
        String name = ZipDirectory.quote(entry.name());
        if (entry.size() >= RATIO_CHECKED_FROM && entry.size() > MAX_RATIO * Math.max(1, entry.compressedSize())) {
            throw ZipRefusedException.tooLarge(name + " unpacks from " + entry.compressedSize() + " to " + entry.size()
                    + " bytes: no real file compresses that well; it looks like a zip bomb.");
        }
        int start = ZipDirectory.dataStart(zip, entry);
        byte[] bytes = entry.method() == 0 ? Arrays.copyOfRange(zip, start, start + (int) entry.size())
                : inflate(zip, start, (int) entry.compressedSize(), (int) entry.size(), name);
        CRC32 crc = new CRC32();
        crc.update(bytes);
        if (crc.getValue() != entry.crc()) {
            throw new ZipRefusedException("the zip is damaged: " + name + " does not unpack to what its checksum says.");
        }
        return bytes;
    }

    private static byte[] inflate(byte[] zip, int start, int compressedSize, int size, String name) {
        Inflater inflater = new Inflater(true);
        try {
            inflater.setInput(zip, start, compressedSize);
            // One byte of room past the declared size: filling it proves the size was a lie.
            byte[] out = new byte[size + 1];
            int filled = 0;
            while (filled < out.length && !inflater.finished()) {
                int n = inflater.inflate(out, filled, out.length - filled);
                if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    break;
                }
                filled += n;
            }
            if (filled != size || !inflater.finished()) {
                throw new ZipRefusedException("the zip is damaged or crafted: " + name + " does not unpack to the " + size
                        + " bytes its directory says.");
            }
            return Arrays.copyOf(out, size);
        } catch (DataFormatException e) {
            throw new ZipRefusedException("the zip is damaged: " + name + " cannot be unpacked (" + e.getMessage() + ").");
        } finally {
            inflater.end();
        }
    }
}
