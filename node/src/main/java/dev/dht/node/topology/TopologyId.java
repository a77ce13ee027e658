package dev.dht.node.topology;

import dev.dht.node.config.ClusterMembers;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The identity of a member set: the first 16 hex digits of the SHA-256 of its canonical URLs (sorted, normalised)
 * joined by "\n"; with racks, of its entries {@code RACK=URL} (sorted by URL) joined the same way, so a set without
 * racks keeps the id it always had and the same URLs in racks are another set. Two nodes that spell the same set
 * differently after normalisation cannot exist, so equal sets have equal ids everywhere (docs/cluster.md, "The
 * topology state and its identity").
 */
public final class TopologyId {
    private TopologyId() {}

    public static String of(ClusterMembers members) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
        byte[] digest = sha.digest(String.join("\n", members.entries()).getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest, 0, 8);
    }
}
