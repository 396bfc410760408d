package dev.skillforge.server.skill.zip;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * Zips written byte by byte, so that a test can make every lie a hostile zip tells: a link or a
 * device entry, a name that is not UTF-8, sizes that differ from the data, entries that share data,
 * two entries with one name. An entry is deflated unless {@link Entry#stored} says otherwise.
 */
final class HandMadeZip {

    /** One entry, and what it claims about itself. */
    static final class Entry {
        final byte[] name;
        byte[] data;
        int method = 8;
        int madeBy = 3 << 8 | 20; // Unix, version 2.0
        long externalAttributes = 0100644L << 16; // a regular file, rw-r--r--
        int flags = 0x800; // UTF-8 names
        Long declaredSize;
        Long declaredCrc;
        Integer localOffset;
        String localName;

        Entry(byte[] name, byte[] data) {
            this.name = name;
            this.data = data;
        }

        Entry stored() {
            method = 0;
            return this;
        }

        Entry link() {
            externalAttributes = 0120777L << 16;
            return this;
        }

        Entry device() {
            externalAttributes = 0020644L << 16;
            return this;
        }

        Entry encrypted() {
            flags |= 1;
            return this;
        }

        Entry method(int value) {
            method = value;
            return this;
        }

        Entry claimingSize(long size) {
            declaredSize = size;
            return this;
        }

        Entry claimingCrc(long crc) {
            declaredCrc = crc;
            return this;
        }

        /** The local header of the entry with offset {@code index} (0-based) in the file: two entries share data. */
        Entry sharingDataOf(int index) {
            localOffset = index;
            return this;
        }

        Entry withLocalName(String name) {
            localName = name;
            return this;
        }
    }

    private final List<Entry> entries = new ArrayList<>();

    static Entry file(String name, String text) {
        return new Entry(name.getBytes(StandardCharsets.UTF_8), text.getBytes(StandardCharsets.UTF_8));
    }

    static Entry file(String name, byte[] data) {
        return new Entry(name.getBytes(StandardCharsets.UTF_8), data);
    }

    static Entry rawName(byte[] name, String text) {
        return new Entry(name, text.getBytes(StandardCharsets.UTF_8));
    }

    HandMadeZip add(Entry entry) {
        entries.add(entry);
        return this;
    }

    byte[] bytes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<Integer> offsets = new ArrayList<>();
        List<byte[]> compressed = new ArrayList<>();
        for (Entry entry : entries) {
            byte[] body = entry.method == 8 ? deflate(entry.data) : entry.data;
            compressed.add(body);
            offsets.add(out.size());
            byte[] localName = entry.localName == null ? entry.name : entry.localName.getBytes(StandardCharsets.UTF_8);
            ByteBuffer header = header(30 + localName.length);
            header.putInt(0x04034b50).putShort((short) 20).putShort((short) entry.flags).putShort((short) entry.method)
                    .putShort((short) 0).putShort((short) 0x21).putInt((int) crc(entry)).putInt(body.length)
                    .putInt((int) size(entry)).putShort((short) localName.length).putShort((short) 0).put(localName);
            out.writeBytes(header.array());
            out.writeBytes(body);
        }
        int directoryStart = out.size();
        for (int i = 0; i < entries.size(); i++) {
            Entry entry = entries.get(i);
            int offset = entry.localOffset == null ? offsets.get(i) : offsets.get(entry.localOffset);
            byte[] body = compressed.get(entry.localOffset == null ? i : entry.localOffset);
            ByteBuffer record = header(46 + entry.name.length);
            record.putInt(0x02014b50).putShort((short) entry.madeBy).putShort((short) 20).putShort((short) entry.flags)
                    .putShort((short) entry.method).putShort((short) 0).putShort((short) 0x21).putInt((int) crc(entry))
                    .putInt(body.length).putInt((int) size(entry)).putShort((short) entry.name.length).putShort((short) 0)
                    .putShort((short) 0).putShort((short) 0).putShort((short) 0).putInt((int) entry.externalAttributes)
                    .putInt(offset).put(entry.name);
            out.writeBytes(record.array());
        }
        int directorySize = out.size() - directoryStart;
        ByteBuffer end = header(22);
        end.putInt(0x06054b50).putShort((short) 0).putShort((short) 0).putShort((short) entries.size())
                .putShort((short) entries.size()).putInt(directorySize).putInt(directoryStart).putShort((short) 0);
        out.writeBytes(end.array());
        return out.toByteArray();
    }

    private static ByteBuffer header(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static long size(Entry entry) {
        return entry.declaredSize == null ? entry.data.length : entry.declaredSize;
    }

    private static long crc(Entry entry) {
        if (entry.declaredCrc != null) {
            return entry.declaredCrc;
        }
        CRC32 crc = new CRC32();
        crc.update(entry.data);
        return crc.getValue();
    }

    static byte[] deflate(byte[] data) {
        Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
        deflater.setInput(data);
        deflater.finish();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        while (!deflater.finished()) {
            out.write(buffer, 0, deflater.deflate(buffer));
        }
        deflater.end();
        return out.toByteArray();
    }
}
