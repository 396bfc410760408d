package dev.skillforge.server.document;

import dev.skillforge.core.transcript.StorableText;

/** Attachment names: shown to the person and the model, offered on download; never a path. */
final class FileNames {

    private FileNames() {
    }

    /**
     * The name as given, if it is a plain file name.
     *
     * @throws DocumentException INVALID for an empty or long name, path characters, {@code .}/{@code ..}, control characters
     */
    static String check(String name) {
        String quoted = "'" + StorableText.abbreviate(StorableText.clean(name).replaceAll("\\p{Cntrl}", "?"), 60) + "'";
        if (name.isBlank()) {
            throw DocumentException.invalid("An attachment has no name");
        }
        if (name.length() > DocumentLimits.MAX_NAME_CHARS) {
            throw DocumentException.invalid("The attachment name " + quoted + " is " + name.length() + " characters; the limit is "
                    + DocumentLimits.MAX_NAME_CHARS);
        }
        if (name.indexOf('/') >= 0 || name.indexOf('\\') >= 0 || name.equals(".") || name.equals("..")) {
            throw DocumentException.invalid("The attachment name " + quoted + " is a path; send the file's name only");
        }
        if (StorableText.firstBad(name) >= 0 || name.codePoints().anyMatch(c -> Character.isISOControl(c)
                || Character.getType(c) == Character.FORMAT)) {
            throw DocumentException.invalid("The attachment name " + quoted + " holds control or invisible formatting characters");
        }
        if (!name.equals(name.strip())) {
            throw DocumentException.invalid("The attachment name " + quoted + " starts or ends with white space");
        }
        return name;
    }

    /** The lowercase extension without the dot, or "". */
    static String extension(String name) {
        int dot = name.lastIndexOf('.');
        return dot <= 0 ? "" : name.substring(dot + 1).toLowerCase(java.util.Locale.ROOT);
    }
}
