package dev.dht.node.http;

import java.util.function.IntSupplier;

/**
 * Where the cluster size and replication factor for {@link Replicas#parse} come from. The standalone node of this
 * version serves every key itself, so it validates against a cluster of one; the cluster version plugs in the
 * live member count here and nothing in parsing changes.
 */
public final class ReplicasPolicy {
    private final IntSupplier clusterSize;
    private final int replicationFactor;
    /** The default for the last cluster size seen (requests without the parameter allocate nothing). */
    private volatile Default cached;

    private record Default(int clusterSize, Replicas replicas) {}

    public ReplicasPolicy(IntSupplier clusterSize, int replicationFactor) {
        this.clusterSize = clusterSize;
        this.replicationFactor = replicationFactor;
    }

    public static ReplicasPolicy standalone() {
        return new ReplicasPolicy(() -> 1, 1);
    }

    public Replicas parse(String param) throws BadRequestException {
        int size = clusterSize.getAsInt();
        if (param == null) {
            Default d = cached;
            if (d == null || d.clusterSize() != size) {
                d = new Default(size, Replicas.parse(null, size, replicationFactor));
                cached = d;
            }
            return d.replicas();
        }
        return Replicas.parse(param, size, replicationFactor);
    }
}
