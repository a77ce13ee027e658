package dev.dht.node.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/** One option's value from the command line and environment, typed and checked by its row in {@link NodeOption}. */
final class OptionValues {

    private OptionValues() {}

    static String describe(NodeOption o) {
        return o.flag() + " (" + o.env() + ")";
    }

    /** An INT option with a fixed default. */
    static int integer(Map<NodeOption, String> raw, NodeOption o) throws ConfigException {
        return (int) number(raw, o, o.longDefault());
    }

    static long number(Map<NodeOption, String> raw, NodeOption o) throws ConfigException {
        return number(raw, o, o.longDefault());
    }

    /** An INT or SIZE option within the table's bounds; {@code dflt} when not given (not checked: it may mean "unset"). */
    static long number(Map<NodeOption, String> raw, NodeOption o, long dflt) throws ConfigException {
        String v = raw.get(o);
        if (v == null) {
            return dflt;
        }
        NodeOption.Type type = o.type();
        boolean size = type.kind() == NodeOption.Kind.SIZE;
        long n;
        try {
            n = size ? Units.parseSize(v) : Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new ConfigException("bad value for " + describe(o) + ": '" + v + "' is not a whole number");
        } catch (IllegalArgumentException e) {
            throw new ConfigException("bad value for " + describe(o) + ": " + e.getMessage());
        }
        if (n < type.min() || n > type.max()) {
            throw new ConfigException("bad value for " + describe(o) + ": " + (size ? v : String.valueOf(n))
                    + " is outside "
                    + (size
                            ? Units.formatSize(type.min()) + ".." + Units.formatSize(type.max())
                            : type.min() + ".." + type.max()));
        }
        return n;
    }

    static long size(Map<NodeOption, String> raw, NodeOption o) throws ConfigException {
        return number(raw, o, o.sizeDefault());
    }

    static boolean bool(Map<NodeOption, String> raw, NodeOption o) throws ConfigException {
        String v = raw.get(o);
        if (v == null) {
            return o.boolDefault();
        }
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on", "1" -> true;
            case "false", "no", "off", "0" -> false;
            default -> throw new ConfigException("bad value for " + describe(o) + ": '" + v + "' is not true or false");
        };
    }

    static Duration duration(Map<NodeOption, String> raw, NodeOption o) throws ConfigException {
        String v = raw.get(o);
        if (v == null) {
            return o.durationDefault();
        }
        try {
            return Units.parseDuration(v);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("bad value for " + describe(o) + ": " + e.getMessage());
        }
    }

    /** A PATH option: its default, or null when it has none. */
    static Path path(Map<NodeOption, String> raw, NodeOption o) throws ConfigException {
        String v = raw.getOrDefault(o, o.defaultValue());
        if (v == null) {
            return null;
        }
        try {
            return Path.of(v);
        } catch (InvalidPathException e) {
            throw new ConfigException("bad value for " + describe(o) + ": " + e.getMessage());
        }
    }
}
