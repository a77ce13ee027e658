package dev.dht.node.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The set of every member's base URL, itself included. Kept canonical (normalised, sorted, no duplicates) so that
 * every node derives the same ring from the same set whatever order its source listed them in.
 */
public record ClusterMembers(List<String> urls) {

    public ClusterMembers {
        if (urls.isEmpty()) {
            throw new IllegalArgumentException("the cluster has no members");
        }
        SortedSet<String> canonical = new TreeSet<>();
        for (String url : urls) {
            canonical.add(normalize(url));
        }
        urls = List.copyOf(canonical);
    }

    /** "http://a:8080,http://b:8080" (blanks around commas allowed). */
    public static ClusterMembers parseList(String commaSeparated) {
        List<String> urls = new ArrayList<>();
        for (String part : commaSeparated.split(",")) {
            if (!part.isBlank()) {
                urls.add(part.trim());
            }
        }
        return new ClusterMembers(urls);
    }

    /** One URL a line; '#' starts a comment, blank lines are ignored. */
    public static ClusterMembers parseFile(String content) {
        List<String> urls = new ArrayList<>();
        for (String line : content.split("\\R")) {
            int hash = line.indexOf('#');
            String url = (hash >= 0 ? line.substring(0, hash) : line).trim();
            if (!url.isEmpty()) {
                urls.add(url);
            }
        }
        return new ClusterMembers(urls);
    }

    public static ClusterMembers of(Collection<String> urls) {
        return new ClusterMembers(List.copyOf(urls));
    }

    public int size() {
        return urls.size();
    }

    public boolean contains(String url) {
        return urls.contains(normalize(url));
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
        if ((path != null && !path.isEmpty() && !path.equals("/")) || uri.getRawQuery() != null
                || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException("'" + url + "' must be a base URL like http://host:8080 (no path or query)");
        }
        int port = uri.getPort() < 0 ? 80 : uri.getPort();
        return "http://" + uri.getHost().toLowerCase(Locale.ROOT) + ":" + port;
    }

    /** The member on localhost/127.0.0.1 with this port, or null. */
    public String findLocal(int port) {
        for (String candidate : List.of("http://localhost:" + port, "http://127.0.0.1:" + port, "http://[::1]:" + port)) {
            if (urls.contains(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return String.join(",", urls);
    }
}
