package dev.skillforge.server.skill.zip;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The central directory of a zip held in memory, read by hand, because it is what unzip and other
 * tools go by and {@code java.util.zip} hides what a hostile zip hides in it: each entry's file type
 * (a symbolic link, a device), its name's bytes, and where its data lies (two entries sharing data
 * is how a small zip unpacks to gigabytes). Everything is checked before any entry is unpacked:
 * one disk, no Zip64, no encryption, stored or deflated, names that are UTF-8, unique and without
 * NUL, no link or device, and entries whose data lies inside the file without overlapping.
 */
final class ZipDirectory {

    private static final int END_SIGNATURE = 0x06054b50;
    private static final int ENTRY_SIGNATURE = 0x02014b50;
    private static final int END_SIZE = 22;
    private static final int ENTRY_SIZE = 46;
    private static final int LOCAL_HEADER_SIZE = 30;
    private static final int UNIX = 3;
    private static final int MAC_OS_X = 19;
    private static final int TYPE_MASK = 0170000;
    private static final int TYPE_FILE = 0100000;
    private static final int TYPE_DIRECTORY = 0040000;
    private static final int TYPE_LINK = 0120000;
    private static final int DOS_DIRECTORY = 0x10;
    private static final int DOS_REPARSE_POINT = 0x400;

    /** One entry as the central directory describes it. */
    record Entry(String name, int method, long crc, long compressedSize, long size, long localHeaderOffset, boolean directory) {
    }

    private ZipDirectory() {
    }

    /**
     * The entries of {@code zip}, in the order of the directory.
     *
     * @throws ZipRefusedException naming the first thing wrong
     */
    static List<Entry> read(byte[] zip, int maxEntries) {
        ByteBuffer bytes = ByteBuffer.wrap(zip).order(ByteOrder.LITTLE_ENDIAN);
        int end = findEnd(bytes);
        if (u16(bytes, end + 4) != 0 || u16(bytes, end + 6) != 0 || u16(bytes, end + 8) != u16(bytes, end + 10)) {
            throw new ZipRefusedException("the zip is split over several files: send it as one zip.");
        }
        int count = u16(bytes, end + 10);
        long directorySize = u32(bytes, end + 12);
        long directoryOffset = u32(bytes, end + 16);
        if (count == 0xffff || directorySize == 0xffffffffL || directoryOffset == 0xffffffffL) {
            throw new ZipRefusedException("the zip is a Zip64 archive, made for gigabytes: zip the skill again as a plain zip.");
        }
        if (count > maxEntries) {
            throw ZipRefusedException.tooLarge("the zip has " + count + " entries; at most " + maxEntries + " are read.");
        }
        if (directoryOffset + directorySize > end) {
            throw new ZipRefusedException("the zip is damaged: its directory lies outside the file.");
        }
        List<Entry> entries = new ArrayList<>();
        Set<String> names = new HashSet<>();
        int at = (int) directoryOffset;
        for (int i = 0; i < count; i++) {
            Entry entry = entry(bytes, at, end);
            if (!names.add(entry.name())) {
                throw new ZipRefusedException("the zip holds " + quote(entry.name()) + " twice: which one is meant? Zip each file once.");
            }
            entries.add(entry);
            at += ENTRY_SIZE + u16(bytes, at + 28) + u16(bytes, at + 30) + u16(bytes, at + 32);
        }
        checkLayout(bytes, entries, (int) directoryOffset);
        return List.copyOf(entries);
    }

    /** The end record: the last signature whose comment runs exactly to the end of the file. */
    private static int findEnd(ByteBuffer bytes) {
        int length = bytes.capacity();
        for (int at = length - END_SIZE; at >= Math.max(0, length - END_SIZE - 0xffff); at--) {
            if (bytes.getInt(at) == END_SIGNATURE && at + END_SIZE + u16(bytes, at + 20) == length) {
                return at;
            }
        }
        throw new ZipRefusedException("this is not a zip file (no zip directory at its end).");
    }

    private static Entry entry(ByteBuffer bytes, int at, int end) {
        if (at + ENTRY_SIZE > end || bytes.getInt(at) != ENTRY_SIGNATURE) {
            throw new ZipRefusedException("the zip is damaged: its directory ends early.");
        }
        int madeBy = u16(bytes, at + 4) >>> 8;
        int flags = u16(bytes, at + 8);
        int method = u16(bytes, at + 10);
        int nameLength = u16(bytes, at + 28);
        if (at + ENTRY_SIZE + nameLength > end) {
            throw new ZipRefusedException("the zip is damaged: an entry's name runs past its directory.");
        }
        String name = name(bytes, at + ENTRY_SIZE, nameLength);
        if ((flags & 0x41) != 0) {
            throw new ZipRefusedException(quote(name) + " is encrypted: zip the skill again without a password.");
        }
        long compressed = u32(bytes, at + 20);
        long size = u32(bytes, at + 24);
        long offset = u32(bytes, at + 42);
        if (compressed == 0xffffffffL || size == 0xffffffffL || offset == 0xffffffffL || u16(bytes, at + 34) == 0xffff) {
            throw new ZipRefusedException("the zip is a Zip64 archive, made for gigabytes: zip the skill again as a plain zip.");
        }
        if (u16(bytes, at + 34) != 0) {
            throw new ZipRefusedException("the zip is split over several files: send it as one zip.");
        }
        long attributes = u32(bytes, at + 38);
        boolean directory = name.endsWith("/") || type(madeBy, attributes) == TYPE_DIRECTORY || (attributes & DOS_DIRECTORY) != 0;
        if (!directory) {
            int type = type(madeBy, attributes);
            if (type == TYPE_LINK || (attributes & DOS_REPARSE_POINT) != 0) {
                throw new ZipRefusedException(quote(name) + " is a symbolic link: a skill holds files only. Zip the files themselves.");
            }
            if (type != 0 && type != TYPE_FILE) {
                throw new ZipRefusedException(quote(name) + " is a device, pipe or socket, not a file: a skill holds files only.");
            }
            if (method != 0 && method != 8) {
                throw new ZipRefusedException(quote(name) + " is compressed with method " + method
                        + ", which is not read here: zip the skill again with the usual Deflate.");
            }
            if (method == 0 && compressed != size) {
                throw new ZipRefusedException("the zip is damaged: the stored entry " + quote(name) + " has two sizes.");
            }
        }
        return new Entry(name, method, u32(bytes, at + 16), compressed, size, offset, directory);
    }

    /** The Unix file type in the external attributes of an entry made on Unix or macOS, else 0. */
    private static int type(int madeBy, long attributes) {
        return madeBy == UNIX || madeBy == MAC_OS_X ? (int) (attributes >>> 16) & TYPE_MASK : 0;
    }

    /** Each entry's local header at its place with the same name, and no two entries' data overlapping. */
    private static void checkLayout(ByteBuffer bytes, List<Entry> entries, int directoryOffset) {
        List<Entry> byOffset = entries.stream().sorted(Comparator.comparingLong(Entry::localHeaderOffset)).toList();
        long previousEnd = 0;
        for (Entry entry : byOffset) {
            long at = entry.localHeaderOffset();
            if (at < previousEnd) {
                throw new ZipRefusedException("the zip's entries overlap (" + quote(entry.name()) + "): a trick of zip bombs. Zip the"
                        + " files again.");
            }
            if (at + LOCAL_HEADER_SIZE > directoryOffset || bytes.getInt((int) at) != 0x04034b50) {
                throw new ZipRefusedException("the zip is damaged: the data of " + quote(entry.name()) + " is not where its directory says.");
            }
            int nameLength = u16(bytes, (int) at + 26);
            long dataStart = at + LOCAL_HEADER_SIZE + nameLength + u16(bytes, (int) at + 28);
            if (at + LOCAL_HEADER_SIZE + nameLength > directoryOffset
                    || !name(bytes, (int) at + LOCAL_HEADER_SIZE, nameLength).equals(entry.name())) {
                throw new ZipRefusedException("the zip is damaged or crafted: " + quote(entry.name())
                        + " has another name in its own header than in the zip's directory.");
            }
            previousEnd = dataStart + entry.compressedSize();
            if (previousEnd > directoryOffset) {
                throw new ZipRefusedException("the zip is damaged: the data of " + quote(entry.name()) + " runs past the end of the file.");
            }
        }
    }

    /** The data of an entry: where it starts, after its local header. */
    static int dataStart(byte[] zip, Entry entry) {
        ByteBuffer bytes = ByteBuffer.wrap(zip).order(ByteOrder.LITTLE_ENDIAN);
        int at = (int) entry.localHeaderOffset();
        return at + LOCAL_HEADER_SIZE + u16(bytes, at + 26) + u16(bytes, at + 28);
    }

    private static String name(ByteBuffer bytes, int at, int length) {
        byte[] raw = new byte[length];
        bytes.get(at, raw);
        String name;
        try {
            name = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(raw)).toString();
        } catch (CharacterCodingException e) {
            throw new ZipRefusedException("a name in the zip is not UTF-8 (" + printable(raw)
                    + "): zip it again with a tool that writes UTF-8 names (7-Zip, Info-ZIP's zip, macOS, Windows 11).");
        }
        if (name.isEmpty() || name.indexOf('\0') >= 0) {
            throw new ZipRefusedException("a name in the zip is empty or holds a NUL character.");
        }
        return name;
    }

    private static String printable(byte[] raw) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < Math.min(raw.length, 40); i++) {
            int b = raw[i] & 0xff;
            out.append(b >= 0x20 && b < 0x7f ? String.valueOf((char) b) : String.format("\\x%02x", b));
        }
        return out.toString();
    }

    static String quote(String name) {
        String shown = name.length() > 80 ? name.substring(0, 80) + "..." : name;
        StringBuilder out = new StringBuilder("\"");
        shown.codePoints().forEach(c -> out.append(c < 0x20 || c == 0x7f ? String.format("\\u%04x", c) : Character.toString(c)));
        return out.append('"').toString();
    }

    private static int u16(ByteBuffer bytes, int at) {
        if (at < 0 || at + 2 > bytes.capacity()) {
            throw new ZipRefusedException("the zip is damaged: it ends in the middle of a record.");
        }
        return Short.toUnsignedInt(bytes.getShort(at));
    }

    private static long u32(ByteBuffer bytes, int at) {
        if (at < 0 || at + 4 > bytes.capacity()) {
            throw new ZipRefusedException("the zip is damaged: it ends in the middle of a record.");
        }
        return Integer.toUnsignedLong(bytes.getInt(at));
    }
}
