package dev.dht.operator.model;

/**
 * One member's identity: its rack and its ordinal in the rack's StatefulSet. Its pod name, URL and topology line
 * follow from it (and the cluster's name); without racks the rack is the implicit one and all three are as before
 * racks existed.
 *
 * @param rack the rack's name, empty for the implicit rack
 */
public record Member(String rack, int ordinal) implements Comparable<Member> {
    private static final java.util.Comparator<Member> ORDER =
            java.util.Comparator.comparing(Member::rack).thenComparingInt(Member::ordinal);

    @Override
    public int compareTo(Member other) {
        return ORDER.compare(this, other);
    }

    /** A member of a cluster without racks. */
    public static Member of(int ordinal) {
        return new Member("", ordinal);
    }

    public String pod(String cluster) {
        return Names.pod(cluster, rack, ordinal);
    }

    public String url(ClusterModel model) {
        return Names.memberUrl(model.name(), model.namespace(), model.clusterDomain(), this);
    }

    /** The member's line in the topology file: {@code RACK=URL}, or {@code URL} without racks. */
    public String topologyLine(ClusterModel model) {
        return rack.isEmpty() ? url(model) : rack + "=" + url(model);
    }

    @Override
    public String toString() {
        return (rack.isEmpty() ? "" : rack + "/") + ordinal;
    }
}
