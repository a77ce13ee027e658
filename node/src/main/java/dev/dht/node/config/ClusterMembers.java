package dev.dht.node.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The set of every member's base URL, itself included, and each member's rack when the list names racks. Kept
 * canonical (normalised, sorted, no duplicates) so that every node derives the same ring from the same set whatever
 * order its source listed them in. Racks are part of the set's identity: the same URLs in other racks are another
 * set (placement differs), and moving to it is a move like any other.
 *
 * @param urls  the members' canonical base URLs, sorted
 * @param racks each member's rack (url -> rack), sorted by url; empty when the list names no racks
 */
public record ClusterMembers(List<String> urls, SortedMap<String, String> racks) {
    /** A rack is a DNS label, as a Kubernetes label value or a zone name can be. */
    private static final Pattern RACK = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

    public static final int MAX_RACK_LENGTH = 63;

    public ClusterMembers {
        if (urls.isEmpty()) {
            throw new IllegalArgumentException("the cluster has no members");
        }
        SortedSet<String> canonical = new TreeSet<>();
        for (String url : urls) {
            canonical.add(normalize(url));
        }
        urls = List.copyOf(canonical);
        TreeMap<String, String> byUrl = new TreeMap<>();
        if (racks != null) {
            racks.forEach((url, rack) -> byUrl.put(normalize(url), checkRack(rack)));
        }
        if (!byUrl.isEmpty() && !byUrl.keySet().equals(canonical)) {
            throw new IllegalArgumentException("racks must be given for every member or for none: racks for "
                    + byUrl.keySet() + ", members " + canonical);
        }
        racks = java.util.Collections.unmodifiableSortedMap(byUrl);
    }

    /** Members without racks. */
    public ClusterMembers(List<String> urls) {
        this(urls, null);
    }

    /**
     * "http://a:8080,http://b:8080" or "rack-a=http://a:8080,rack-b=http://b:8080" (blanks around commas allowed).
     */
    public static ClusterMembers parseList(String commaSeparated) {
        List<String> entries = new ArrayList<>();
        for (String part : commaSeparated.split(",")) {
            if (!part.isBlank()) {
                entries.add(part.trim());
            }
        }
        return parseEntries(entries);
    }

    /** One entry (URL or RACK=URL) a line; '#' starts a comment, blank lines are ignored. */
    public static ClusterMembers parseFile(String content) {
        List<String> entries = new ArrayList<>();
        for (String line : content.split("\\R")) {
            int hash = line.indexOf('#');
            String entry = (hash >= 0 ? line.substring(0, hash) : line).trim();
            if (!entry.isEmpty()) {
                entries.add(entry);
            }
        }
        return parseEntries(entries);
    }

    /** Entries {@code URL} or {@code RACK=URL}: either all name a rack or none does. */
    private static ClusterMembers parseEntries(List<String> entries) {
        List<String> urls = new ArrayList<>();
        TreeMap<String, String> racks = new TreeMap<>();
        List<String> withRack = new ArrayList<>();
        List<String> without = new ArrayList<>();
        for (String entry : entries) {
            int eq = entry.indexOf('=');
            int scheme = entry.indexOf("://");
            if (eq > 0 && (scheme < 0 || eq < scheme)) {
                String rack = entry.substring(0, eq).trim();
                String url = entry.substring(eq + 1).trim();
                String canonical = normalize(url);
                String before = racks.put(canonical, checkRack(rack));
                if (before != null && !before.equals(rack)) {
                    throw new IllegalArgumentException(
                            "member " + canonical + " is listed in two racks: " + before + " and " + rack);
                }
                urls.add(url);
                withRack.add(entry);
            } else {
                urls.add(entry);
                without.add(entry);
            }
        }
        if (!withRack.isEmpty() && !without.isEmpty()) {
            throw new IllegalArgumentException("either every member entry names a rack (RACK=URL) or none does: "
                    + without + " name none, " + withRack + " do");
        }
        return new ClusterMembers(urls, racks);
    }

    public static ClusterMembers of(Collection<String> urls) {
        return new ClusterMembers(List.copyOf(urls));
    }

    /** These members in these racks (url -> rack, for every member or empty). */
    public static ClusterMembers of(Collection<String> urls, Map<String, String> racks) {
        return new ClusterMembers(List.copyOf(urls), new TreeMap<>(racks));
    }

    /** A rack name as given, if it is a DNS label; IllegalArgumentException saying what a rack may be if not. */
    public static String checkRack(String rack) {
        if (rack == null
                || rack.length() > MAX_RACK_LENGTH
                || !RACK.matcher(rack).matches()) {
            throw new IllegalArgumentException("rack '" + rack + "' is not a DNS label (lower-case letters, digits "
                    + "and '-', starting and ending with a letter or digit, at most " + MAX_RACK_LENGTH
                    + " characters)");
        }
        return rack;
    }

    public int size() {
        return urls.size();
    }

    public boolean contains(String url) {
        return urls.contains(normalize(url));
    }

    /** Whether the members are placed by rack. */
    public boolean hasRacks() {
        return !racks.isEmpty();
    }

    /** The rack of a member, or null (no racks, or not a member). */
    public String rackOf(String url) {
        return racks.get(url);
    }

    /** The same members less these, each keeping its rack. */
    public ClusterMembers without(Collection<String> gone) {
        List<String> kept = new ArrayList<>(urls);
        kept.removeAll(gone);
        TreeMap<String, String> keptRacks = new TreeMap<>(racks);
        keptRacks.keySet().retainAll(kept);
        return new ClusterMembers(kept, keptRacks);
    }

    /** Canonical form: http://host:port, lower-case scheme and host, no path, no trailing slash. */
    public static String normalize(String url) {
        URI uri;
        try {
            uri = new URI(url.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("'" + url + "' is not a URL", e);
        }
        String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!"http".equals(scheme)) {
            throw new IllegalArgumentException("'" + url + "' is not an http:// base URL");
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("'" + url + "' has no host");
        }
        String path = uri.getRawPath();
        if ((path != null && !path.isEmpty() && !path.equals("/"))
                || uri.getRawQuery() != null
                || uri.getRawFragment() != null
                || uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException(
                    "'" + url + "' must be a base URL like http://host:8080 (no path or query)");
        }
        int port = uri.getPort() < 0 ? 80 : uri.getPort();
        return "http://" + uri.getHost().toLowerCase(Locale.ROOT) + ":" + port;
    }

    /** The member on localhost/127.0.0.1 with this port, or null. */
    public String findLocal(int port) {
        for (String candidate :
                List.of("http://localhost:" + port, "http://127.0.0.1:" + port, "http://[::1]:" + port)) {
            if (urls.contains(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** The entries as a list gives them: {@code URL} or {@code RACK=URL}. */
    public List<String> entries() {
        return urls.stream()
                .map(u -> racks.isEmpty() ? u : racks.get(u) + "=" + u)
                .toList();
    }

    @Override
    public String toString() {
        return String.join(",", entries());
    }
}
